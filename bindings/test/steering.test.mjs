// Scenarios 2-5 on the real Pi runtime: diagnostics after a wave of parallel writes (one scan, one
// carrier), no repeats after an unrelated wave, fixes and suppressions, a wave mixing valid,
// blocked and invalid calls, and a bash edit detected through the workspace.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { assertNoProblems, assertRealUntouched, call, command, configRoot, listedLocations, newRepo, say, start, toolResults, toolUse } from "./harness.mjs";

after(assertRealUntouched);

const BANG = "declare const user: { name?: string } | undefined;\nexport const name = user!.name;\n";
const FIXED = "declare const user: { name?: string } | undefined;\nexport const name = user?.name;\n";
const IGNORED =
  "declare const user: { name?: string } | undefined;\n// ast-grep-ignore: typescript-no-non-null-assertion-ts -- checked by the caller\nexport const name = user!.name;\n";
const LAZY = 'export function View() {\n  return <div>{String(import("./page"))}</div>;\n}\n';
/** A `write` call with id `id`. @param {string} id @param {string} path @param {string} content */
const write = (id, path, content) => call("write", { path, content }, { id });
/** The block appended to a tool result's text. @param {[string, boolean, string]} result */
const blockOf = (result) => result[2].split("\n").slice(1).join("\n");
const NON_NULL = "typescript-no-non-null-assertion-ts";

test("two parallel writes: one scan, one block on one carrier naming both findings, nothing flipped to an error", async () => {
  const repo = newRepo();
  const started = await start({
    repo,
    configRoot: configRoot(),
    responses: [toolUse(write("A", "src/a.ts", BANG), write("B", "src/b.tsx", LAZY)), say("done")],
  });
  await started.session.prompt("write two files");
  assertNoProblems(started);
  const [a, b] = toolResults(started.contexts[1]);
  assert.deepEqual(a, ["A", false, "Successfully wrote to src/a.ts"], "the other result is unchanged");
  assert.equal(b[1], false, "the carrier stays a success");
  assert.match(b[2], /^Successfully wrote to src\/b\.tsx\n\[pi-native-hooks\] The `write` call succeeded/);
  assert.deepEqual(listedLocations(b[2], NON_NULL), ["src/a.ts:2:21"], b[2]);
  assert.deepEqual(listedLocations(b[2], "typescript-no-dynamic-import-tsx"), ["src/b.tsx:2:23"], b[2]);
  for (const expected of [
    /\/\/ ast-grep-ignore: typescript-no-non-null-assertion-ts -- <reason>/,
    /\/\/ ast-grep-ignore: typescript-no-dynamic-import-tsx -- <reason>/,
  ]) {
    assert.match(b[2], expected);
  }
  const status = await command(started, "/hooks-status");
  assert.match(status.join("\n"), /scans: 1,/, "exactly one scan for the wave");
  started.session.dispose();
});

test("Pi's start does not wait for the engine session; a prompt sent at once waits for it and gets its block", async () => {
  const repo = newRepo();
  const started = await start({
    repo,
    configRoot: configRoot(),
    responses: [toolUse(write("A", "src/a.ts", BANG)), say("done")],
    awaitStart: false,
  });
  await started.session.prompt("write a file");
  assertNoProblems(started);
  const [a] = toolResults(started.contexts[1]);
  assert.deepEqual(listedLocations(a[2], NON_NULL), ["src/a.ts:2:21"], a[2]);
  const status = await command(started, "/hooks-status");
  assert.match(status.join("\n"), /scans: 1,/, "the wave was analyzed once, by the session the start opened");
  started.session.dispose();
});

test("an unrelated wave repeats nothing; a fix drops the finding; a justified suppression silences it", async () => {
  const repo = newRepo();
  const started = await start({
    repo,
    configRoot: configRoot(),
    responses: [
      toolUse(write("A", "src/a.ts", BANG)),
      toolUse(write("R", "README.md", "# changed\n")),
      toolUse(write("F", "src/a.ts", FIXED)),
      toolUse(write("G", "src/a.ts", BANG)),
      toolUse(write("S", "src/a.ts", IGNORED)),
      say("done"),
    ],
  });
  await started.session.prompt("work");
  const results = toolResults(started.contexts[5]);
  assert.deepEqual(results.map(([id, isError]) => [id, isError]), [["A", false], ["R", false], ["F", false], ["G", false], ["S", false]]);
  assert.deepEqual(listedLocations(blockOf(results[0]), NON_NULL), ["src/a.ts:2:21"]);
  assert.equal(results[1][2], "Successfully wrote to README.md", "an unrelated wave repeats nothing");
  assert.equal(results[2][2], "Successfully wrote to src/a.ts", "the fix adds nothing");
  assert.deepEqual(listedLocations(blockOf(results[3]), NON_NULL), ["src/a.ts:2:21"], "a fixed finding was dropped, so its return is new");
  assert.equal(results[4][2], "Successfully wrote to src/a.ts", "the suppressed finding is silent");
  started.session.dispose();
});

test("a wave mixing a valid write, a blocked call and an invalid call completes without hanging", async () => {
  const repo = newRepo();
  /** @type {import("@earendil-works/pi-coding-agent").ExtensionFactory} */
  const blocker = (pi) => {
    pi.on("tool_call", (event) => (event.toolCallId === "C" ? { block: true, reason: "blocked by the test" } : undefined));
  };
  const started = await start({
    repo,
    configRoot: configRoot(),
    extra: [blocker],
    options: { waveTimeoutMs: 5000 },
    responses: [toolUse(write("A", "src/a.ts", BANG), call("write", { path: "src/b.ts" }, { id: "B" }), call("bash", { command: "echo hi" }, { id: "C" })), say("ok")],
  });
  await started.session.prompt("mixed");
  const results = toolResults(started.contexts[1]);
  assert.deepEqual(results.map(([id, isError]) => [id, isError]), [["A", false], ["B", true], ["C", true]]);
  assert.deepEqual(listedLocations(results[0][2], NON_NULL), ["src/a.ts:2:21"], results[0][2]);
  assert.match(results[1][2], /^Validation failed for tool "write"/);
  assert.equal(results[2][2], "blocked by the test");
  assertNoProblems(started);
  const status = (await command(started, "/hooks-status")).join("\n");
  assert.doesNotMatch(status, /coordinator failure/, "no handler was released by the timeout");
  started.session.dispose();
});

test("a bash call that edits a TS file is detected through the workspace, not the command name", async () => {
  const repo = newRepo({ "src/app.ts": "declare const maybe: { value: number } | undefined;\nexport const v = maybe?.value;\n" });
  const started = await start({
    repo,
    configRoot: configRoot(),
    responses: [toolUse(call("bash", { command: "sed -i 's/maybe?\\.value/maybe!.value/' src/app.ts" }, { id: "S" })), say("ok")],
  });
  await started.session.prompt("edit with sed");
  const [result] = toolResults(started.contexts[1]);
  assert.equal(result[1], false);
  assert.match(result[2], /The `bash` call succeeded/);
  assert.deepEqual(listedLocations(result[2], NON_NULL), ["src/app.ts:2:18"], result[2]);
  started.session.dispose();
});

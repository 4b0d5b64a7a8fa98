// A handler that fails, on the real Pi runtime: the extension's guard catches the exception, says
// so in an error notification and marks the footer `degraded (handler error)`, and Pi's own work
// goes on untouched: the tool result stays exactly as Pi made it. The harness's problem check is
// what sees it (Pi's `onError` never fires: the guard does not rethrow). The tests-only option
// `failHandler` makes a handler fail; `/hooks-init` on a root that cannot be created fails for real.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, assertRealUntouched, call, command, configRoot, expectProblems, footer, newRepo, say, start, toolResults, toolUse } from "./harness.mjs";

after(assertRealUntouched);

const BANG = "declare const user: { name?: string } | undefined;\nexport const name = user!.name;\n";

test("a failing tool_result handler is reported by an error notice and a degraded footer; the result stays Pi's own", async () => {
  const root = configRoot();
  const started = await start({
    repo: newRepo(),
    configRoot: root,
    // Fails after the engine analyzed the wave and decided to append its block to this result.
    options: { failHandler: "tool_result" },
    responses: [toolUse(call("write", { path: "src/a.ts", content: BANG }, { id: "A" })), say("done")],
  });
  await started.session.prompt("write a file");
  assert.equal(started.faux.state.callCount, 2, "Pi went on after the failure");
  assert.deepEqual(toolResults(started.contexts[1]), [["A", false, "Successfully wrote to src/a.ts"]], "no block, no error flag: the result is Pi's");
  expectProblems(started, [
    "error notice: pi-native-hooks: tool_result failed: thrown on purpose (the failHandler test option)",
    `degraded footer: hooks: ${root} · 1 diagnostics · degraded (handler error)`,
  ]);
  assert.equal(footer(started.ui), `hooks: ${root} · 1 diagnostics · degraded (handler error)`, "the footer stays degraded");
  // The engine did its part: the finding it could not deliver is in its status.
  const status = (await command(started, "/hooks-status")).join("\n");
  assert.match(status, /scans: 1,/, status);
  started.session.dispose();
});

test("a failing command handler is reported once, after the command's own output", async () => {
  const root = configRoot();
  const started = await start({ repo: newRepo(), configRoot: root, options: { failHandler: "/hooks-status" } });
  const shown = await command(started, "/hooks-status");
  assert.equal(shown.length, 2, shown.join("\n---\n"));
  assert.match(shown[0], /^pi-native-hooks active\n/, "the status was shown before the failure");
  expectProblems(started, [
    "error notice: pi-native-hooks: /hooks-status failed: thrown on purpose (the failHandler test option)",
    `degraded footer: hooks: ${root} · 0 diagnostics · degraded (handler error)`,
  ]);
  started.session.dispose();
});

test("/hooks-init failing for real (the root's parent is a file) is reported as the engine's error, and writes nothing", async () => {
  const file = join(ROOT, "not-a-directory");
  writeFileSync(file, "kept\n");
  const root = join(file, "pi-native-hooks");
  const started = await start({ repo: newRepo(), configRoot: root });
  started.confirmAnswers.push(true);
  const shown = await command(started, "/hooks-init");
  assert.match(shown[0] ?? "", /^pi-native-hooks init \(dry run\):\n/, "the dry run came first");
  assert.equal(shown.length, 2, shown.join("\n---\n"));
  const notice = `pi-native-hooks: /hooks-init failed: PNH_INIT_FAILED: ${root}: Not a directory (os error 20); nothing was left behind`;
  expectProblems(started, [`error notice: ${notice}`, "degraded footer: hooks: built-in pack · 0 diagnostics · degraded (handler error)"]);
  assert.ok(statSync(file).isFile() && readFileSync(file, "utf8") === "kept\n", "the file in the way is untouched");
  started.session.dispose();
});

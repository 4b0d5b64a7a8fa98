// Scenario 6 on the real Pi runtime: the verification gate. A relevant write arms a requirement;
// at settle Pi continues with the gate message; only the exact command run by `bash` on its own
// passes it; a waiver clears it until the next relevant change; only the newest gate message
// reaches the model; the continuation cap stops a runaway loop and tells the user.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { assertNoProblems, assertRealUntouched, command, footer, notes, say, start, text, toolResults, toolUse } from "./harness.mjs";
import { CHECK, bash, footers, gateEntries, gateMessage, gatesIn, project, waive, write } from "./project.mjs";

after(assertRealUntouched);

test("a relevant write arms the check; Pi continues with the gate message; the exact command passes it and Pi settles", async () => {
  const { repo, ...root } = project();
  const started = await start({
    repo,
    ...root,
    responses: [
      toolUse(write("D", "README.md", "# demo, documented\n")),
      say("docs done"),
      toolUse(write("W", "src/a.ts")),
      say("done"),
      toolUse(bash("V")),
      say("verified"),
      say("never requested"),
    ],
  });
  await started.session.prompt("document it");
  assert.equal(started.faux.state.callCount, 2, "an irrelevant write arms nothing: Pi settles at once");
  assert.deepEqual(gateEntries(started.session.sessionManager), []);

  await started.session.prompt("change the code");
  assert.equal(started.faux.state.callCount, 6, "one continuation, then settled after the passing run");
  assertNoProblems(started);
  const [, , , beforeSettle, gated, afterCheck] = started.contexts;
  const expected = gateMessage(repo, "not run since the relevant change at revision 2");
  assert.deepEqual(gatesIn(beforeSettle), [], "no gate before the settle candidate");
  const last = gated.messages.at(-1);
  assert.ok(last, "the continuation request has messages");
  assert.deepEqual([last.role, text(last)], ["user", expected], "the model was sent back with the exact command and the project root");
  assert.deepEqual(gateEntries(started.session.sessionManager), [[expected, true]], "one displayed custom message of the gate's type");
  assert.deepEqual(toolResults(afterCheck).at(-1), ["V", false, "verify: ok\n"], "the check's own result is untouched");
  assert.deepEqual(footers(started.ui), [
    `hooks: ${root.configRoot} · 0 diagnostics`,
    `hooks: ${root.configRoot} · 0 diagnostics · checks: 0 passed, 1 pending`,
    `hooks: ${root.configRoot} · 0 diagnostics · checks: 1 passed, 0 pending`,
  ]);
  const status = (await command(started, "/hooks-status")).join("\n");
  assert.match(status, /demo-verification\/check `sh verify\.sh`: passed \(required revision 2\)/);
  started.session.dispose();
});

test("`cmd -- --flag` and a failing exit do not pass the check; only the newest gate message is in context", async () => {
  const { repo, ...root } = project();
  const fail = join(repo, "FAIL");
  const started = await start({
    repo,
    ...root,
    responses: [
      toolUse(write("W", "src/a.ts")),
      say("done"),
      toolUse(bash("F", `${CHECK} -- --flag`)),
      say("done, with a flag"),
      () => (writeFileSync(fail, ""), toolUse(bash("X"))),
      say("done, it ran"),
      () => (rmSync(fail), toolUse(bash("P"))),
      say("done, it passed"),
      say("never requested"),
    ],
  });
  await started.session.prompt("change the code");
  assertNoProblems(started);
  assert.equal(started.faux.state.callCount, 8);
  const notRun = gateMessage(repo, "not run since the relevant change at revision 1");
  // A near miss never counts, and the gate says which command would have.
  const nearMiss = `; the run in call F did not count: not the exact command: expected \`${CHECK}\` in ${repo}`;
  const notExact = gateMessage(repo, `not run since the relevant change at revision 1${nearMiss}`);
  const failed = gateMessage(repo, `failed with exit code 1 at revision 1${nearMiss}`);
  assert.deepEqual(gatesIn(started.contexts[2]), [notRun]);
  assert.deepEqual(gatesIn(started.contexts[4]), [notExact], "the run with extra arguments did not count; the older gate message was pruned");
  assert.deepEqual(gatesIn(started.contexts[6]), [failed], "the failing run counted as a failure; one gate message in context");
  assert.deepEqual(gatesIn(started.contexts[7]), [], "the passing run left no gate message in context");
  assert.deepEqual(gateEntries(started.session.sessionManager), [[notRun, true], [notExact, true], [failed, true]], "the history keeps every gate message");
  const results = toolResults(started.contexts[7]);
  assert.deepEqual(results.map(([id, isError]) => [id, isError]), [["W", false], ["F", false], ["X", true], ["P", false]]);
  assert.equal(results[2][2], "verify: failing\n\n\nCommand exited with code 1", "the failing result is Pi's own");
  assert.equal(footer(started.ui), `hooks: ${root.configRoot} · 0 diagnostics · checks: 1 passed, 0 pending`);
  started.session.dispose();
});

test("a check racing a sibling write in the same wave does not count, even when the write changed nothing", async () => {
  const { repo, ...root } = project();
  const started = await start({
    repo,
    ...root,
    responses: [
      toolUse(write("W", "src/a.ts", "export const a = 1;\n")),
      say("done"),
      toolUse(bash("V"), write("S", "src/a.ts", "export const a = 1;\n")),
      say("done, verified"),
      toolUse(bash("V2")),
      say("done, verified alone"),
      say("never requested"),
    ],
  });
  await started.session.prompt("change the code");
  assertNoProblems(started);
  assert.equal(started.faux.state.callCount, 6);
  assert.deepEqual(toolResults(started.contexts[3]).slice(1), [["V", false, "verify: ok\n"], ["S", false, "Successfully wrote to src/a.ts"]]);
  assert.deepEqual(gatesIn(started.contexts[4]), [
    gateMessage(
      repo,
      "not run since the relevant change at revision 1; the run in call V did not count: `write` call S ran in the same batch and may have changed files while it ran",
    ),
  ]);
  assert.equal(footer(started.ui), `hooks: ${root.configRoot} · 0 diagnostics · checks: 1 passed, 0 pending`);
  started.session.dispose();
});

test("the waiver tool clears the check with a reason; a later relevant write re-arms it", async () => {
  const { repo, ...root } = project();
  const started = await start({
    repo,
    ...root,
    responses: [
      toolUse(write("W", "src/a.ts")),
      say("done"),
      toolUse(waive("Z", "  the verifier needs a device this machine lacks  ")),
      say("waived"),
      // second prompt
      toolUse(write("B", "src/b.ts")),
      say("done again"),
      toolUse(waive("E", "   ")),
      toolUse(bash("V")),
      say("verified"),
      say("never requested"),
    ],
  });
  await started.session.prompt("change the code");
  assert.equal(started.faux.state.callCount, 4, "the waiver let Pi settle");
  const [waiver] = toolResults(started.contexts[3]).slice(-1);
  assert.deepEqual(waiver, [
    "Z",
    false,
    "Verification skipped (waived, not passed). The following checks did not run:\n" +
      `- \`${CHECK}\` (demo-verification/check) in ${repo} at revision 1\n` +
      "Reason recorded: the verifier needs a device this machine lacks\n" +
      "The waiver expires for a check at its next relevant change.",
  ]);
  assert.equal(footer(started.ui), `hooks: ${root.configRoot} · 0 diagnostics · checks: 0 passed, 0 pending, 1 waived`);
  const status = (await command(started, "/hooks-status")).join("\n");
  assert.match(status, /demo-verification\/check `sh verify\.sh`: waived \(required revision 1\)\n {4}waived \(not passed\): the verifier needs a device this machine lacks/);

  await started.session.prompt("change more");
  assertNoProblems(started);
  assert.equal(started.faux.state.callCount, 9);
  assert.deepEqual(gatesIn(started.contexts[6]), [
    gateMessage(repo, "stale: files it depends on changed at revision 2, after its last run or waiver"),
  ], "the waiver expired at the relevant write; only the newest gate message is in context");
  const [refused] = toolResults(started.contexts[7]).slice(-1);
  assert.deepEqual(refused, ["E", true, "No waiver was recorded: a waiver needs a reason: say why the required checks cannot be run"]);
  assert.equal(footer(started.ui), `hooks: ${root.configRoot} · 0 diagnostics · checks: 1 passed, 0 pending`);
  started.session.dispose();
});

test("the continuation cap stops a runaway loop, notifies the user once and keeps the check pending", async () => {
  const { repo, ...root } = project();
  const started = await start({
    repo,
    ...root,
    options: { continuationCap: 3 },
    responses: [toolUse(write("W", "src/a.ts")), ...Array.from({ length: 4 }, (_, i) => say(`I am done (${i})`)), say("hello"), say("never requested")],
  });
  await started.session.prompt("change the code");
  assertNoProblems(started);
  assert.equal(started.faux.state.callCount, 5, "three continuations, then Pi settles");
  const message = gateMessage(repo, "not run since the relevant change at revision 1");
  for (const context of started.contexts.slice(2)) assert.deepEqual(gatesIn(context), [message]);
  assert.equal(gateEntries(started.session.sessionManager).length, 3);
  const notice =
    "pi-native-hooks stopped asking the agent to verify after 3 continuations without progress. " +
    `Still pending (not passed): \`${CHECK}\` in ${repo}. See /hooks-status.`;
  assert.deepEqual(started.ui.filter(([kind]) => kind === "notify"), [["notify", notice, "warning"]]);
  assert.equal(footer(started.ui), `hooks: ${root.configRoot} · 0 diagnostics · checks: 0 passed, 1 pending · gate exhausted`);

  await started.session.prompt("something else");
  assert.equal(started.faux.state.callCount, 6, "an exhausted gate does not force again");
  assert.deepEqual(notes(started.ui), [notice], "the user is told once");
  const status = (await command(started, "/hooks-status")).join("\n");
  assert.match(status, /`sh verify\.sh`: not-run \(required revision 1\)/);
  assert.match(status, /gate exhausted after 3 continuations without progress: checks stay pending/);
  started.session.dispose();
});

// Two Pi sessions working in one repository at once, as from two terminals: each sees the
// other's edits as changes made outside it (its check goes stale and gates its settle; it never
// passes on the other's run), both run their waves at the same time without a handler error, and
// each keeps a state of its own that decodes.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { assertNoProblems, assertRealUntouched, command, footer, notes, say, start, toolUse } from "./harness.mjs";
import { bash, gateMessage, gatesIn, project, write } from "./project.mjs";

after(assertRealUntouched);

/** @param {Awaited<ReturnType<typeof start>>} started */
const checkLine = async (started) => (await command(started, "/hooks-status")).join("\n").match(/demo-verification\/check `sh verify\.sh`: .*/)?.[0];

test("two sessions in one repository: each sees the other's edits as out-of-band changes, and both run at once", async () => {
  const { repo, configRoot } = project();
  const options = { continuationCap: 2 };
  // Enough answers for every continuation the concurrent prompts may get: each is a check and a
  // reply; unused ones are never requested.
  const spare = [toolUse(bash("S1")), say("verified"), toolUse(bash("S2")), say("verified")];
  const a = await start({
    repo,
    configRoot,
    options,
    responses: [
      toolUse(write("WA", "src/a.ts")), toolUse(bash("VA")), say("a done"),
      say("nothing left"), toolUse(bash("VA2")), say("a verified"),
      toolUse(write("WA3", "src/a3.ts")), toolUse(bash("VA3")), say("a3 done"), ...spare,
    ],
  });
  const b = await start({
    repo,
    configRoot,
    options,
    responses: [toolUse(write("WB", "src/b.ts")), toolUse(bash("VB")), say("b done"), toolUse(write("WB3", "src/b3.ts")), toolUse(bash("VB3")), say("b3 done"), ...spare],
  });

  // One after the other: each passes its own change.
  await a.session.prompt("change a");
  assert.equal(a.faux.state.callCount, 3, "A passed its check and stopped");
  assert.equal(await checkLine(a), "demo-verification/check `sh verify.sh`: passed (required revision 1)");
  await b.session.prompt("change b");
  assert.equal(b.faux.state.callCount, 3, "B passed its check and stopped");

  // A sees B's write as a change made outside it: stale at its next settle, gated, and passed
  // only by its own run.
  await a.session.prompt("anything left?");
  assert.equal(a.faux.state.callCount, 6);
  const stale = gateMessage(repo, "stale: files it depends on changed at revision 2, after its last run or waiver");
  assert.deepEqual(gatesIn(a.contexts[4]), [stale], "B's edit re-armed A's check");
  assert.equal(await checkLine(a), "demo-verification/check `sh verify.sh`: passed (required revision 2)");

  // Both at once: every wave of each completes, no handler fails, each ends passed.
  await Promise.all([a.session.prompt("change a3"), b.session.prompt("change b3")]);
  for (const started of [a, b]) {
    assertNoProblems(started);
    // Only the status this test asked for: no notice of a state entry skipped or a failure.
    assert.deepEqual(notes(started.ui).filter((note) => !note.startsWith("pi-native-hooks active\n")), [], "every state entry decoded");
    assert.match(footer(started.ui) ?? "", /checks: 1 passed, 0 pending$/, "each ended passed, on its own run");
    started.session.dispose();
  }
});

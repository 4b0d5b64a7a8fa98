// Scenario on the real Pi runtime: what an edit of the config root costs a passed check, and a
// check that writes files. Each requirement is tracked under its own digest, so editing a
// diagnostic policy's guidance between sessions leaves a passed check passed, while editing the
// check's command makes it `unknown` until it is rerun. A check whose command rewrites a file it
// is relevant to (a snapshot) settles after one run; a later edit of that file still stales it.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, assertNoProblems, assertRealUntouched, command, footer, notes, pi, say, start, toolUse } from "./harness.mjs";
import { CHECK, bash, gateEntries, gateMessage, gatesIn, project, write } from "./project.mjs";

after(assertRealUntouched);

/**
 * @typedef {import("@earendil-works/pi-coding-agent").SessionStartEvent} SessionStartEvent
 * @typedef {import("./harness.mjs").Observed} Observed
 */

/** @type {SessionStartEvent} */
const RESUME = { type: "session_start", reason: "resume" };
let sessionDirs = 0;
const newSessionDir = () => join(ROOT, `policy-edit-sessions-${++sessionDirs}`);
/** @param {Observed} started */
const checkLines = async (started) =>
  (await command(started, "/hooks-status"))
    .join("\n")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.startsWith("demo-verification/"));

/** Rewrites a file of the config root in place (its owner and mode stay). @param {string} path @param {(text: string) => string} edit */
function rewrite(path, edit) {
  const before = readFileSync(path, "utf8");
  const after = edit(before);
  assert.notEqual(after, before, `the edit changed ${path}`);
  writeFileSync(path, after);
}

test("editing a diagnostic policy's guidance leaves a passed check passed; editing the check's command makes it unknown", async () => {
  const { repo, configRoot } = project();
  const first = await start({
    repo,
    configRoot,
    sessionManager: pi.SessionManager.create(repo, newSessionDir()),
    responses: [toolUse(write("W", "src/a.ts")), say("done"), toolUse(bash("V")), say("verified"), say("never requested")],
  });
  await first.session.prompt("change the code");
  assertNoProblems(first);
  assert.equal(first.faux.state.callCount, 4, "one continuation, then settled after the passing run");
  assert.deepEqual(await checkLines(first), ["demo-verification/check `sh verify.sh`: passed (required revision 1)"]);
  const file = first.session.sessionFile;
  assert.ok(file, "the session is file-backed");
  first.session.dispose();

  // Between sessions: the user rewords a built-in diagnostic policy's guidance.
  rewrite(join(configRoot, "policies/typescript-no-console-log.rhai"), (text) =>
    text.replaceAll("Remove the debugging output, or use the project's logger.", "Use the project's logger instead."),
  );
  const second = await start({
    repo,
    configRoot,
    sessionManager: pi.SessionManager.open(file),
    sessionStartEvent: RESUME,
    responses: [say("nothing left"), say("never requested")],
  });
  assertNoProblems(second);
  assert.deepEqual(notes(second.ui), [], "no state warning");
  assert.deepEqual(await checkLines(second), ["demo-verification/check `sh verify.sh`: passed (required revision 1)"], "passed stays passed");
  await second.session.prompt("anything left?");
  assert.equal(second.faux.state.callCount, 1, "Pi settles at once: no gate message");
  assert.equal(gateEntries(second.session.sessionManager).length, 1, "no gate message since the first session's");
  assert.equal(footer(second.ui), `hooks: ${configRoot} · 0 diagnostics · checks: 1 passed, 0 pending`);
  second.session.dispose();

  // Between sessions: the user changes the check's command.
  const changed = "sh ./verify.sh";
  rewrite(join(configRoot, "policies/demo-verification.rhai"), (text) => text.replace(`command: "${CHECK}"`, `command: "${changed}"`));
  const third = await start({
    repo,
    configRoot,
    sessionManager: pi.SessionManager.open(file),
    sessionStartEvent: RESUME,
    responses: [say("nothing left"), toolUse(bash("V2", changed)), say("verified"), say("never requested")],
  });
  assertNoProblems(third);
  const [line, ...rest] = await checkLines(third);
  assert.deepEqual([line, rest], ["demo-verification/check `sh ./verify.sh`: unknown (required revision 1)", []]);
  await third.session.prompt("anything left?");
  assert.equal(third.faux.state.callCount, 3, "one continuation for the redefined check, then settled");
  const gate = gatesIn(third.contexts[1]).at(-1) ?? "";
  assert.ok(gate?.includes(`- \`${changed}\` — unproven: the required command changed from \`${CHECK}\` to \`${changed}\``), gate);
  assert.equal(footer(third.ui), `hooks: ${configRoot} · 0 diagnostics · checks: 1 passed, 0 pending`);
  third.session.dispose();
});

// The check writes a snapshot of src/a.ts into src/, which its own predicate covers.
const SNAPSHOT_CHECK = 'mkdir -p src/__snapshots__\ncat src/a.ts > src/__snapshots__/a.snap\necho "verify: snapshot updated"\n';

test("a check command that rewrites a relevant snapshot file settles after one run; a later edit of it still stales it", async () => {
  const { repo, configRoot } = project({ "verify.sh": SNAPSHOT_CHECK });
  const snapshot = join(repo, "src/__snapshots__/a.snap");
  const started = await start({
    repo,
    configRoot,
    responses: [
      toolUse(write("W", "src/a.ts")),
      say("done"),
      toolUse(bash("V")),
      say("verified"),
      // second prompt
      toolUse(write("S", "src/__snapshots__/a.snap", "edited by hand\n")),
      say("done"),
      toolUse(bash("V2")),
      say("verified again"),
      say("never requested"),
    ],
  });
  await started.session.prompt("change the code");
  assertNoProblems(started);
  assert.equal(started.faux.state.callCount, 4, "one continuation, then settled after one run");
  assert.equal(readFileSync(snapshot, "utf8"), "export const w = 1;\n", "the check rewrote the snapshot");
  assert.deepEqual(gatesIn(started.contexts[2]), [gateMessage(repo, "not run since the relevant change at revision 1")]);
  assert.equal(footer(started.ui), `hooks: ${configRoot} · 0 diagnostics · checks: 1 passed, 0 pending`);

  await started.session.prompt("touch up the snapshot");
  assertNoProblems(started);
  assert.equal(started.faux.state.callCount, 8, "one continuation, then settled after one run");
  assert.deepEqual(gatesIn(started.contexts[6]), [gateMessage(repo, "stale: files it depends on changed at revision 3, after its last run or waiver")], "an edit after the run stales it");
  assert.equal(readFileSync(snapshot, "utf8"), "export const w = 1;\n", "the second run rewrote it again");
  assert.equal(footer(started.ui), `hooks: ${configRoot} · 0 diagnostics · checks: 1 passed, 0 pending`);
  started.session.dispose();
});

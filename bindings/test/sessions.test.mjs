// Scenario 7 on the real Pi runtime: verification state across sessions. A resumed file-backed
// session restores its state; an edit made between sessions (or between prompts) re-arms the
// check at the next settle; `/tree` navigation restores the state of the branch it moves to; a
// fork starts from its own branch, not from the abandoned one.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  AGENT_DIR,
  ROOT,
  assertNoProblems,
  assertRealUntouched,
  bindingsOf,
  command,
  createPiNativeHooks,
  footer,
  newModelRuntime,
  notes,
  pi,
  say,
  start,
  text,
  toolUse,
  watch,
} from "./harness.mjs";
import { bash, gateMessage, gatesIn, project, waive, write } from "./project.mjs";

/**
 * @typedef {import("@earendil-works/pi-coding-agent").AgentSession} AgentSession
 * @typedef {import("@earendil-works/pi-coding-agent").SessionEntry} SessionEntry
 * @typedef {import("@earendil-works/pi-coding-agent").SessionManager} SessionManager
 * @typedef {import("@earendil-works/pi-coding-agent").SessionStartEvent} SessionStartEvent
 * @typedef {import("@earendil-works/pi-ai").AssistantMessage} AssistantMessage
 * @typedef {import("@earendil-works/pi-ai").TranscriptContext} TranscriptContext
 * @typedef {import("./harness.mjs").Observed} Observed
 */

after(assertRealUntouched);

const ai = await import("@earendil-works/pi-ai");
const STATE = "pi-native-hooks-state";
let sessionDirs = 0;
const newSessionDir = () => join(ROOT, `sessions-${++sessionDirs}`);
/** @type {SessionStartEvent} */
const RESUME = { type: "session_start", reason: "resume" };
/** @param {Observed} started */
const statusText = async (started) => (await command(started, "/hooks-status")).join("\n");
/** @param {string} status */
const checkLine = (status) => status.match(/demo-verification\/check `sh verify\.sh`: .*/)?.[0];
/** @param {unknown} value @returns {value is Record<string, unknown>} */
const isRecord = (value) => typeof value === "object" && value !== null;
/**
 * The value at `path` in a JSON record; fails the test where the path leaves the record.
 * @param {unknown} value
 * @param {...string} path
 * @returns {unknown}
 */
const at = (value, ...path) =>
  path.reduce((inner, key) => {
    assert.ok(isRecord(inner), `no object holding ${key} in ${JSON.stringify(value)}`);
    return inner[key];
  }, value);
/** The requirements of a persisted state record. @param {unknown} data @returns {unknown[]} */
const requirementsOf = (data) => {
  const requirements = at(data, "gate", "requirements");
  assert.ok(Array.isArray(requirements), "the state lists its requirements");
  return requirements;
};

/**
 * The states persisted on a branch, newest last, as [state of the check, required revision].
 * @param {SessionEntry[]} entries
 */
const states = (entries) =>
  entries
    .flatMap((e) => (e.type === "custom" && e.customType === STATE ? [e.data] : []))
    .map((data) => requirementsOf(data).find((r) => at(r, "key", "policy") === "demo-verification"))
    .map((r) => [at(r, "standing", "kind"), at(r, "required_revision")]);

test("a resumed session restores its state; an edit made between sessions re-arms the check at the next settle", async () => {
  const { repo, configRoot } = project();
  const sessionDir = newSessionDir();
  const first = await start({
    repo,
    configRoot,
    sessionManager: pi.SessionManager.create(repo, sessionDir),
    options: { continuationCap: 1 },
    responses: [toolUse(write("W", "src/a.ts")), say("done"), say("done, really")],
  });
  await first.session.prompt("change the code");
  assert.equal(first.faux.state.callCount, 3, "one continuation, then the cap let Pi stop");
  assert.equal(checkLine(await statusText(first)), "demo-verification/check `sh verify.sh`: not-run (required revision 1)");
  const file = first.session.sessionFile;
  assert.ok(file, "the session is file-backed");
  first.session.dispose();

  // Resume: still armed, and a new session starts a new continuation count.
  const second = await start({
    repo,
    configRoot,
    sessionManager: pi.SessionManager.open(file),
    sessionStartEvent: RESUME,
    options: { continuationCap: 1 },
    responses: [say("resumed"), toolUse(bash("V")), say("verified"), say("never requested")],
  });
  assertNoProblems(second);
  assert.equal(footer(second.ui), `hooks: ${configRoot} · 0 diagnostics · checks: 0 passed, 1 pending`, "restored armed");
  assert.equal(checkLine(await statusText(second)), "demo-verification/check `sh verify.sh`: not-run (required revision 1)");
  await second.session.prompt("carry on");
  assert.equal(second.faux.state.callCount, 3);
  const notRun = gateMessage(repo, "not run since the relevant change at revision 1");
  assert.deepEqual(gatesIn(second.contexts[1]), [notRun], "the restored check gates the resumed session");
  assert.equal(second.contexts[1].messages.filter((m) => m.role === "user" && text(m) === "change the code").length, 1, "the model saw the resumed history");
  assert.equal(footer(second.ui), `hooks: ${configRoot} · 0 diagnostics · checks: 1 passed, 0 pending`);
  second.session.dispose();

  // Out of band, between sessions: the test edits a file the check depends on.
  writeFileSync(join(repo, "src/a.ts"), "export const w = 2;\n");
  const third = await start({
    repo,
    configRoot,
    sessionManager: pi.SessionManager.open(file),
    sessionStartEvent: RESUME,
    responses: [say("nothing to do"), toolUse(bash("V2")), say("verified again"), say("done"), toolUse(bash("V3")), say("verified once more"), say("never requested")],
  });
  assertNoProblems(third);
  assert.deepEqual(notes(third.ui), [], "every state entry decoded: nothing was skipped");
  assert.equal(checkLine(await statusText(third)), "demo-verification/check `sh verify.sh`: stale (required revision 2)", "the edit between sessions re-armed it");
  await third.session.prompt("anything left?");
  assert.equal(third.faux.state.callCount, 3);
  assert.deepEqual(gatesIn(third.contexts[1]), [gateMessage(repo, "stale: files it depends on changed at revision 2, after its last run or waiver")]);

  // Out of band, between two prompts of one session: found at the next settle.
  writeFileSync(join(repo, "src/a.ts"), "export const w = 3;\n");
  await third.session.prompt("and now?");
  assert.equal(third.faux.state.callCount, 6);
  assert.deepEqual(gatesIn(third.contexts[4]), [gateMessage(repo, "stale: files it depends on changed at revision 3, after its last run or waiver")]);
  assert.equal(footer(third.ui), `hooks: ${configRoot} · 0 diagnostics · checks: 1 passed, 0 pending`);
  assert.deepEqual(states(pi.SessionManager.open(file).getBranch()), [
    ["not_run", 1],
    ["passed", 1],
    ["stale", 2],
    ["passed", 2],
    ["stale", 3],
    ["passed", 3],
  ], "every transition was persisted to the session file");
  third.session.dispose();
});

/**
 * A file-backed session with two prompts: the first arms the check and passes it, the second
 * changes src/b.ts and waives it. Returns the started session.
 * @param {string} repo
 * @param {string} configRoot
 */
async function passedThenWaived(repo, configRoot) {
  const started = await start({
    repo,
    configRoot,
    sessionManager: pi.SessionManager.create(repo, newSessionDir()),
    responses: [
      toolUse(write("W", "src/a.ts")),
      say("done"),
      toolUse(bash("V")),
      say("verified"),
      toolUse(write("B", "src/b.ts")),
      say("done again"),
      toolUse(waive("Z", "the device is unavailable")),
      say("waived"),
    ],
  });
  await started.session.prompt("change the code");
  await started.session.prompt("change more");
  assert.equal(started.faux.state.callCount, 8);
  assertNoProblems(started);
  assert.deepEqual(states(started.session.sessionManager.getBranch()), [["not_run", 1], ["passed", 1], ["stale", 2], ["waived", 2]]);
  return started;
}

/**
 * The id of the assistant message whose text is `words`.
 * @param {SessionManager} sessionManager
 * @param {string} words
 * @returns {string}
 */
const said = (sessionManager, words) => {
  const entry = sessionManager.getEntries().find((e) => e.type === "message" && e.message.role === "assistant" && text(e.message) === words);
  assert.ok(entry, `an assistant message says ${JSON.stringify(words)}`);
  return entry.id;
};

test("/tree navigation restores the state of the branch it moves to", async () => {
  const { repo, configRoot } = project();
  const started = await passedThenWaived(repo, configRoot);
  const sm = started.session.sessionManager;
  const leaf = sm.getLeafId();
  assert.ok(leaf, "the session has a leaf");
  started.faux.setResponses(
    [say("ok"), toolUse(bash("V2")), say("verified on this branch"), say("never requested")].map(
      (r) => (ctx) => (started.contexts.push(structuredClone(ctx)), r),
    ),
  );
  const callsBefore = started.faux.state.callCount;

  // Back to the first settle candidate: armed, never run on that branch. The files still hold
  // src/b.ts (navigation does not rewind files): drift on that branch, its revision 2.
  assert.equal((await started.session.navigateTree(said(sm, "done"), { summarize: false })).cancelled, false);
  assertNoProblems(started);
  assert.equal(checkLine(await statusText(started)), "demo-verification/check `sh verify.sh`: not-run (required revision 2)");
  assert.equal(footer(started.ui), `hooks: ${configRoot} · 0 diagnostics · checks: 0 passed, 1 pending`);

  // After the first prompt settled: passed there, and the later edit makes it stale; the waiver
  // of the abandoned branch does not apply.
  assert.equal((await started.session.navigateTree(said(sm, "verified"), { summarize: false })).cancelled, false);
  assert.equal(checkLine(await statusText(started)), "demo-verification/check `sh verify.sh`: stale (required revision 2)");
  assert.equal(footer(started.ui), `hooks: ${configRoot} · 0 diagnostics · checks: 0 passed, 1 pending`);

  // Back to the waived leaf.
  assert.equal((await started.session.navigateTree(leaf, { summarize: false })).cancelled, false);
  const status = await statusText(started);
  assert.equal(checkLine(status), "demo-verification/check `sh verify.sh`: waived (required revision 2)");
  assert.match(status, /waived \(not passed\): the device is unavailable/);
  assert.equal(footer(started.ui), `hooks: ${configRoot} · 0 diagnostics · checks: 0 passed, 0 pending, 1 waived`);

  // Work continues from the passed branch: the gate asks for the check again.
  await started.session.navigateTree(said(sm, "verified"), { summarize: false });
  await started.session.prompt("continue here");
  assert.equal(started.faux.state.callCount - callsBefore, 3, "one continuation, then settled after the check");
  const [, gated] = started.contexts.slice(-3);
  assert.deepEqual(gatesIn(gated), [gateMessage(repo, "stale: files it depends on changed at revision 2, after its last run or waiver")]);
  assert.equal(gated.messages.filter((m) => m.role === "user" && text(m) === "change more").length, 0, "the model saw only this branch");
  assert.equal(footer(started.ui), `hooks: ${configRoot} · 0 diagnostics · checks: 1 passed, 0 pending`);
  assertNoProblems(started);
  started.session.dispose();
});

/**
 * A runtime (which can fork) over the session file, with this extension and the faux model.
 * @param {{ repo: string, configRoot: string, file: string, responses: AssistantMessage[] }} options
 */
async function startRuntime({ repo, configRoot, file, responses }) {
  const modelRuntime = await newModelRuntime();
  const faux = ai.fauxProvider();
  modelRuntime.registerNativeProvider(faux.provider);
  /** @type {TranscriptContext[]} */
  const contexts = [];
  faux.setResponses(responses.map((r) => (ctx) => (contexts.push(structuredClone(ctx)), r)));
  // One record across the fork: the runtime binds the forked session to it again.
  const watched = watch();
  /** @param {AgentSession} session */
  const bind = (session) => session.bindExtensions(bindingsOf(watched));
  const runtime = await pi.createAgentSessionRuntime(
    async ({ cwd, agentDir, sessionManager, sessionStartEvent }) => {
      const services = await pi.createAgentSessionServices({
        cwd,
        agentDir,
        modelRuntime,
        resourceLoaderOptions: { noExtensions: true, extensionFactories: [createPiNativeHooks({ configRoot })] },
      });
      const created = await pi.createAgentSessionFromServices({ services, sessionManager, sessionStartEvent, model: faux.getModel() });
      return { ...created, services, diagnostics: services.diagnostics };
    },
    { cwd: repo, agentDir: AGENT_DIR, sessionManager: pi.SessionManager.open(file), sessionStartEvent: RESUME },
  );
  runtime.setRebindSession(bind);
  await bind(runtime.session);
  return { runtime, faux, contexts, watched };
}

test("a fork starts from its own branch: the abandoned branch's waiver does not follow it", async () => {
  const { repo, configRoot } = project();
  const source = await passedThenWaived(repo, configRoot);
  const file = source.session.sessionFile;
  assert.ok(file, "the source session is file-backed");
  source.session.dispose();

  const { runtime, faux, contexts, watched } = await startRuntime({
    repo,
    configRoot,
    file,
    responses: [say("forked and done"), toolUse(bash("V3")), say("verified in the fork"), say("never requested")],
  });
  assert.equal(footer(watched.ui), `hooks: ${configRoot} · 0 diagnostics · checks: 0 passed, 0 pending, 1 waived`, "the resumed source is waived");
  const secondPrompt = runtime.session.sessionManager
    .getEntries()
    .find((e) => e.type === "message" && e.message.role === "user" && text(e.message) === "change more");
  assert.ok(secondPrompt, "the source's second prompt is on the branch");
  assert.deepEqual(await runtime.fork(secondPrompt.id), { cancelled: false, selectedText: "change more" });
  assert.notEqual(runtime.session.sessionFile, file);
  assert.deepEqual(states(runtime.session.sessionManager.getBranch()).slice(0, 2), [["not_run", 1], ["passed", 1]]);
  // The fork's files still hold src/b.ts from the abandoned branch: drift, so the pass is stale.
  assert.equal(footer(watched.ui), `hooks: ${configRoot} · 0 diagnostics · checks: 0 passed, 1 pending`);

  await runtime.session.prompt("finish in the fork");
  assertNoProblems(watched);
  assert.equal(faux.state.callCount, 3);
  assert.deepEqual(gatesIn(contexts[1]), [gateMessage(repo, "stale: files it depends on changed at revision 2, after its last run or waiver")]);
  assert.equal(contexts[1].messages.filter((m) => m.role === "toolResult" && m.toolCallId === "Z").length, 0, "the model saw only the fork's branch");
  assert.equal(footer(watched.ui), `hooks: ${configRoot} · 0 diagnostics · checks: 1 passed, 0 pending`);
  assert.deepEqual(states(pi.SessionManager.open(file).getBranch()), [["not_run", 1], ["passed", 1], ["stale", 2], ["waived", 2]], "the source is untouched");
  assert.deepEqual(notes(watched.ui), []);
  await runtime.dispose();
});

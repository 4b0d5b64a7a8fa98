// No panic reaches Pi. The tests-only option `panicIn` makes one method of the addon panic inside
// Rust once its engine work is done. Called directly, each method answers a `PNH_PANIC` error
// naming itself and the panic, instead of aborting Node; the session it stopped answers every
// later call without the engine (a tool result unchanged, nothing persisted, the footer and status
// degraded with the reason). On the real Pi runtime, a panic in the middle of a wave leaves each
// tool result exactly as Pi made it, and Pi answers the next prompt; `/reload` replaces the stopped
// session with a new one.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { assertRealUntouched, call, command, configRoot, expectProblems, footer, newRepo, say, start, toolResults, toolUse } from "./harness.mjs";
import { problems } from "./ui.mjs";
import { isBindingError, native } from "../extension/native.ts";

/**
 * @typedef {import("../native/index.js").EntryPoint} EntryPoint
 * @typedef {import("../native/index.js").HookSession} HookSession
 */

after(assertRealUntouched);

const BANG = "declare const user: { name?: string } | undefined;\nexport const name = user!.name;\n";
/** The reason a `panicIn` panic of `method` is given as: the location is the seam's line. @param {string} method */
const reason = (method) => new RegExp(`^engine panicked in ${method}: panicked on purpose \\(the panicIn test option\\) \\(at bindings/src/contain\\.rs:\\d+:\\d+\\)$`);
/** `text` as a regular expression matching itself. @param {string} text */
const literal = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const call1 = { id: "A", name: "write", input: { path: "src/a.ts", content: BANG } };
const result1 = { toolCallId: "A", toolName: "write", input: call1.input, isError: false, content: [{ type: "text", text: "Successfully wrote to src/a.ts" }] };

/**
 * Every method of a session, called with harmless arguments; each answer as it came.
 * @type {Record<string, (session: HookSession) => unknown>}
 */
const METHODS = {
  restore: (s) => s.restore([]),
  turnStart: (s) => s.turnStart(0),
  assistantMessage: (s) => s.assistantMessage([call1], "parallel"),
  toolExecutionStart: (s) => s.toolExecutionStart(call1),
  toolCall: (s) => s.toolCall(call1),
  toolResult: (s) => s.toolResult(result1),
  toolExecutionEnd: (s) => s.toolExecutionEnd("A"),
  turnEnd: (s) => s.turnEnd(),
  beforeSettle: (s) => s.beforeSettle(),
  waive: (s) => s.waive("W", "cannot run it"),
  takeStateEntries: (s) => s.takeStateEntries(),
  statusText: (s) => s.statusText(),
  footer: (s) => s.footer(),
  doctor: (s) => s.doctor(),
  initPlan: (s) => s.initPlan(),
  initApply: (s) => s.initApply(),
  reload: (s) => s.reload(),
  shutdown: (s) => s.shutdown(),
};

/** What a stopped session answers each method (the ones not listed: `undefined`, done nothing). @param {string} why @param {string} method */
const stoppedAnswer = (why, method) =>
  ({
    restore: { entries: [], warnings: [] },
    toolResult: {},
    beforeSettle: { entries: [] },
    waive: { recorded: false, message: `No waiver recorded: pi-native-hooks stopped in this session (${why}), so no check is enforced.`, entries: [] },
    takeStateEntries: [],
    reload: { code: "PNH_PANIC", message: `${why}; a stopped session cannot be reloaded: open a new one` },
  })[method];

/** @returns {NonNullable<typeof native>} */
const addon = () => {
  assert.ok(native, "the addon is built");
  return native;
};

for (const method of Object.keys(METHODS)) {
  test(`a panic in ${method} is answered as PNH_PANIC, and the stopped session answers every later call without the engine`, async () => {
    const root = configRoot();
    const opened = await addon().openSession({ cwd: newRepo(), configRoot: root, panicIn: /** @type {EntryPoint} */ (method) });
    assert.ok(!isBindingError(opened));
    const session = opened;
    // The calls a wave makes before this method, so the method runs on a wave in progress.
    for (const earlier of Object.keys(METHODS).slice(0, Object.keys(METHODS).indexOf(method))) {
      if (["reload", "shutdown", "initApply"].includes(earlier)) continue;
      assert.ok(!isBindingError(await METHODS[earlier](session)), earlier);
    }

    const answer = await METHODS[method](session);
    assert.ok(isBindingError(answer), `${method} answered ${JSON.stringify(answer)}`);
    assert.equal(answer.code, "PNH_PANIC");
    assert.match(answer.message, reason(method));
    assert.equal(session.panic, answer.message, "the session is stopped by this panic");
    assert.equal(session.active, false);

    const why = answer.message;
    const footerNow = session.footer();
    assert.ok(!isBindingError(footerNow));
    // The footer as last read before the panic, with the reason's marker.
    assert.match(footerNow.text, new RegExp(`^hooks: ${literal(root)} · \\d+ diagnostics · degraded \\(engine panic in ${method}\\)$`));
    assert.ok(footerNow.degraded);
    assert.equal(footerNow.panic, why);
    // The status as last read before the panic, after the reason: the getters say the same.
    const text = session.statusText();
    assert.ok(typeof text === "string" && text.startsWith(`pi-native-hooks stopped: ${why}\nThe hooks no longer run in this session`), String(text));
    assert.ok(text.includes("\nAs last read before the panic:\npi-native-hooks active\n"), text);
    assert.equal(session.panic, why);
    assert.equal(session.active, false);
    const doctor = await session.doctor();
    assert.ok(typeof doctor === "string" && doctor.startsWith(`pi-native-hooks stopped: ${why}\n`), String(doctor));

    // The panicking method too: its seam would panic again if its engine work ran.
    for (const later of Object.keys(METHODS)) {
      if (["statusText", "footer", "doctor"].includes(later)) continue;
      const got = await METHODS[later](session);
      if (["initPlan", "initApply", "shutdown"].includes(later)) {
        // They never read the session's state, so they run as before (and panic again).
        assert.equal(isBindingError(got) && got.code === "PNH_PANIC", later === method, `${later}: ${JSON.stringify(got)}`);
        continue;
      }
      assert.deepEqual(got, stoppedAnswer(why, later), later);
    }
    assert.equal(session.panic, why, "the first panic stays the reason");
  });
}

test("a panic in openSession is answered as PNH_PANIC", async () => {
  const answer = await addon().openSession({ cwd: newRepo(), configRoot: configRoot(), panicIn: "openSession" });
  assert.ok(isBindingError(answer));
  assert.equal(answer.code, "PNH_PANIC");
  assert.match(answer.message, reason("openSession"));
});

test("a panic in runCli is answered as PNH_PANIC", () => {
  const answer = addon().runCli(["--version"], { panicIn: "runCli" });
  assert.ok(isBindingError(answer), String(answer));
  assert.equal(answer.code, "PNH_PANIC");
  assert.match(answer.message, reason("runCli"));
});

test("a panic in tool_result handling mid-wave leaves each tool result as Pi made it, degrades the footer with the reason, and Pi answers the next prompt", async () => {
  const root = configRoot();
  const started = await start({
    repo: newRepo(),
    configRoot: root,
    options: { panicIn: "toolResult" },
    responses: [
      // One wave of two writes the built-in pack flags: the engine analyzes it and decides to
      // append its block, then both `toolResult` calls (each waiting inside the engine for the
      // whole wave) panic.
      toolUse(call("write", { path: "src/a.ts", content: BANG }, { id: "A" }), call("write", { path: "src/b.ts", content: BANG }, { id: "B" })),
      say("done"),
      // The next prompt: another flagged write, answered without the engine.
      toolUse(call("write", { path: "src/c.ts", content: BANG }, { id: "C" })),
      say("still here"),
    ],
  });
  await started.session.prompt("write two files");
  assert.equal(started.faux.state.callCount, 2, "Pi went on after the panic");
  assert.deepEqual(
    toolResults(started.contexts[1]),
    [
      ["A", false, "Successfully wrote to src/a.ts"],
      ["B", false, "Successfully wrote to src/b.ts"],
    ],
    "no block, no error flag: each result is Pi's",
  );
  const degraded = `hooks: ${root} · 0 diagnostics · degraded (engine panic in toolResult)`;
  assert.equal(footer(started.ui), degraded);
  const shown = problems(started);
  const notice = shown[0] ?? "";
  assert.match(notice.replace("error notice: pi-native-hooks: tool_result failed: PNH_PANIC: ", ""), reason("toolResult"));
  // Both calls were inside the engine, waiting for the whole wave, when the first panicked: each
  // reports its own panic (the footer, the same after the second, is counted once).
  const problemsSeen = [notice, `degraded footer: ${degraded}`, notice];
  expectProblems(started, problemsSeen);

  const status = (await command(started, "/hooks-status")).join("\n");
  const why = notice.replace("error notice: pi-native-hooks: tool_result failed: PNH_PANIC: ", "");
  assert.ok(status.startsWith(`pi-native-hooks stopped: ${why}\nThe hooks no longer run in this session: tool results pass unchanged`), status);

  await started.session.prompt("write another file");
  assert.equal(started.faux.state.callCount, 4, "the next prompt was answered");
  assert.deepEqual(toolResults(started.contexts[3]).at(-1), ["C", false, "Successfully wrote to src/c.ts"]);
  assert.equal(footer(started.ui), degraded, "the footer stays degraded with the reason");
  expectProblems(started, problemsSeen);
  started.session.dispose();
});

test("/reload replaces a session a panic stopped with a new one, which analyzes the next wave", async () => {
  const root = configRoot();
  const started = await start({
    repo: newRepo(),
    configRoot: root,
    options: { panicIn: "doctor" },
    responses: [toolUse(call("write", { path: "src/a.ts", content: BANG }, { id: "A" })), say("done")],
  });
  const shown = await command(started, "/hooks-doctor");
  assert.deepEqual(shown.length, 1, shown.join("\n---\n"));
  const degraded = `hooks: ${root} · 0 diagnostics · degraded (engine panic in doctor)`;
  assert.equal(footer(started.ui), degraded);
  assert.match(shown[0].replace("pi-native-hooks: /hooks-doctor failed: PNH_PANIC: ", ""), reason("doctor"));
  expectProblems(started, [`error notice: ${shown[0]}`, `degraded footer: ${degraded}`]);

  await started.session.reload();
  assert.equal(footer(started.ui), `hooks: ${root} · 0 diagnostics`, "a new session runs");
  await started.session.prompt("write a file");
  const [[id, isError, result]] = toolResults(started.contexts[1]);
  assert.deepEqual([id, isError], ["A", false]);
  assert.match(result, /^Successfully wrote to src\/a\.ts\n\[pi-native-hooks\] The `write` call succeeded; /, "the new session delivered its block");
  assert.equal(footer(started.ui), `hooks: ${root} · 1 diagnostics`);
  expectProblems(started, [`error notice: ${shown[0]}`, `degraded footer: ${degraded}`]);
  started.session.dispose();
});

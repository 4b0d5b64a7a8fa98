// The engine learns where each turn ends without a `turn_end` handler. Pi runs a `turn_end`
// handler as a boundary: before and after it Pi projects the whole session into a model context,
// work that grows with the session's length. So the extension tells the engine a turn is over at
// what follows it on the real Pi runtime: the next `turn_start`, the settle check, or `agent_end`.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { assertNoProblems, assertRealUntouched, say, start, toolUse } from "./harness.mjs";
import { bash, project, write } from "./project.mjs";
import { native } from "../extension/native.ts";

after(assertRealUntouched);

/** The engine calls that mark turns, waves and the settle, in the order the extension made them. */
const TRACED = ["turnStart", "turnEnd", "toolResult", "beforeSettle"];

/**
 * Records each call of the traced methods of every engine session while `body` runs.
 * @param {() => Promise<void>} body
 * @returns {Promise<string[]>}
 */
async function traceEngine(body) {
  assert.ok(native, "the addon is built");
  const proto = native.HookSession.prototype;
  /** @type {string[]} */
  const calls = [];
  /** @type {Record<string, Function>} */
  const originals = {};
  for (const name of TRACED) {
    const original = Reflect.get(proto, name);
    originals[name] = original;
    /** @this {unknown} @param {unknown[]} args */
    const traced = function (...args) {
      calls.push(name === "turnStart" ? `turnStart ${args[0]}` : name);
      return original.apply(this, args);
    };
    Reflect.set(proto, name, traced);
  }
  try {
    await body();
  } finally {
    for (const name of TRACED) Reflect.set(proto, name, originals[name]);
  }
  return calls;
}

test("each turn's end reaches the engine before the next turn and before the settle check, with no turn_end handler", async () => {
  const { repo, configRoot } = project();
  const calls = await traceEngine(async () => {
    // A write arms the check; the settle sends the gate message, and the run goes on to run it.
    const started = await start({ repo, configRoot, responses: [toolUse(write("A", "src/a.ts")), say("done"), toolUse(bash("B")), say("checked")] });
    assert.equal(started.session.hasExtensionHandlers("turn_end"), false, "a turn_end handler would make Pi rebuild the context twice a turn");
    await started.session.prompt("go");
    assert.equal(started.faux.state.callCount, 4);
    assertNoProblems(started);
  });
  // Each run: a turn with the write or the check, a turn with the answer, then the settle. The
  // gate's continuation is a new run of the agent: Pi counts its turns from 0 again.
  const run = ["turnStart 0", "toolResult", "turnEnd", "turnStart 1", "turnEnd", "beforeSettle"];
  assert.deepEqual(calls, [...run, ...run]);
});

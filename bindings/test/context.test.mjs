// Context hygiene on the real Pi runtime: once the checks pass, no gate message is left in what
// the model receives (the session's history keeps it), and what the hooks put in the model's
// context stays small: the gate message and a diagnostic block, counted with the o200k_base
// tokenizer (gpt-tokenizer).
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { assertNoProblems, assertRealUntouched, say, start, toolResults, toolUse } from "./harness.mjs";
import { bash, gateEntries, gateMessage, gatesIn, project, write } from "./project.mjs";

after(assertRealUntouched);

/** Two findings of two built-in rules in one file. */
const TWO_FINDINGS = "declare const user: { name?: string } | undefined;\nexport const name = user!.name;\nconsole.log(name);\n";
/** The most tokens a one-check gate message (naming a temporary directory twice) or a
 *  two-finding block may cost the model. */
const GATE_BUDGET = 160;
const BLOCK_BUDGET = 240;

test("once the checks pass no gate message is left in the model's context; both messages stay within their token budgets", async (t) => {
  const { repo, ...root } = project();
  const started = await start({
    repo,
    ...root,
    responses: [
      toolUse(write("W", "src/a.ts", TWO_FINDINGS)),
      say("done"),
      toolUse(bash("V")),
      say("verified"),
      // second prompt
      say("nothing to do"),
      say("never requested"),
    ],
  });
  await started.session.prompt("change the code");
  await started.session.prompt("anything else?");
  assertNoProblems(started);
  assert.equal(started.faux.state.callCount, 5);
  const [, afterWrite, gated, afterCheck, nextPrompt] = started.contexts;
  const gate = gateMessage(repo, "not run since the relevant change at revision 1");
  assert.deepEqual(gatesIn(gated), [gate], "while the check is outstanding the gate message is in context");
  assert.deepEqual(gatesIn(afterCheck), [], "the check passed: the gate message left the context");
  assert.deepEqual(gatesIn(nextPrompt), [], "and it stays out on the next prompt");
  assert.deepEqual(gateEntries(started.session.sessionManager), [[gate, true]], "the history keeps it");

  const [, isError, result] = toolResults(afterWrite)[0];
  assert.equal(isError, false);
  const block = result.split("\n").slice(1).join("\n");
  assert.match(block, /typescript-no-non-null-assertion-ts/);
  assert.match(block, /typescript-no-console-log-ts/);
  const tokens = { gate: countTokens(gate), block: countTokens(block) };
  t.diagnostic(`o200k_base tokens: gate message ${tokens.gate} (${gate.length} chars), two-finding block ${tokens.block} (${block.length} chars)`);
  assert.ok(tokens.gate <= GATE_BUDGET, `gate message: ${tokens.gate} tokens\n${gate}`);
  assert.ok(tokens.block <= BLOCK_BUDGET, `diagnostic block: ${tokens.block} tokens\n${block}`);
  started.session.dispose();
});

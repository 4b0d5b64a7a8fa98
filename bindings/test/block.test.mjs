// The diagnostic block on the real Pi runtime: a wave of 64 parallel writes, each file holding one
// non-null assertion, gets one block listing all 64 locations within 750 o200k_base tokens
// (counted with gpt-tokenizer); with a small `max_tokens` in settings.toml the block names what it
// left out, and a later write to a left-out file lists it.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { assertNoProblems, assertRealUntouched, call, configRoot, listedLocations, newRepo, say, start, toolResults, toolUse } from "./harness.mjs";

after(assertRealUntouched);

const BANG = "declare const user: { name?: string } | undefined;\nexport const name = user!.name;\n";
const NON_NULL = "typescript-no-non-null-assertion-ts";
/** A `write` call with id `id`. @param {string} id @param {string} path @param {string} content */
const write = (id, path, content) => call("write", { path, content }, { id });
/** The block appended to a tool result's text. @param {string} text */
const blockOf = (text) => text.split("\n").slice(1).join("\n");
/** The text of the result of call `id` in `results`. @param {[string, boolean, string][]} results @param {string} id */
const resultOf = (results, id) => {
  const found = results.find(([callId]) => callId === id);
  assert.ok(found, `no result for ${id}`);
  return found[2];
};

test("64 parallel writes get one block listing every location within 750 tokens", async (t) => {
  const repo = newRepo();
  const writes = Array.from({ length: 64 }, (_, i) => write(`W${i}`, `src/w${i}.ts`, BANG));
  const started = await start({ repo, configRoot: configRoot(), responses: [toolUse(...writes), say("done")] });
  await started.session.prompt("write 64 files");
  assertNoProblems(started);
  const results = toolResults(started.contexts[1]);
  assert.equal(results.length, 64);
  const carriers = results.filter(([, , text]) => text.includes("[pi-native-hooks]"));
  assert.deepEqual(carriers.map(([id]) => id), ["W63"], "one block on the last write");
  assert.ok(results.every(([, isError]) => isError === false), "no result flipped to an error");
  const block = blockOf(carriers[0][2]);
  assert.deepEqual(
    listedLocations(block, NON_NULL),
    Array.from({ length: 64 }, (_, i) => `src/w${i}.ts:2:21`),
    "every location, in natural order",
  );
  assert.doesNotMatch(block, /left out/, block);
  assert.equal(block.split(`${NON_NULL} (warning)`).length - 1, 1, "one header for the rule");
  const tokens = countTokens(block);
  t.diagnostic(`o200k_base tokens: 64-finding block ${tokens} (${block.length} chars)`);
  assert.ok(tokens <= 750, `${tokens} tokens\n${block}`);
  started.session.dispose();
});

test("a small max_tokens names the files it left out, and a later write to one lists it", async (t) => {
  const repo = newRepo();
  const writes = Array.from({ length: 20 }, (_, i) => write(`W${i}`, `src/w${i}.ts`, BANG));
  const started = await start({
    repo,
    configRoot: configRoot({ "settings.toml": "[diagnostic_block]\nmax_tokens = 150\n" }),
    responses: [toolUse(...writes), toolUse(write("A", "src/w19.ts", `${BANG}// again\n`)), say("done")],
  });
  await started.session.prompt("write 20 files");
  assertNoProblems(started);
  const first = blockOf(resultOf(toolResults(started.contexts[1]), "W19"));
  const tokens = countTokens(first);
  t.diagnostic(`o200k_base tokens: cut 20-finding block ${tokens} (${first.length} chars)`);
  assert.ok(tokens <= 150, `${tokens} tokens\n${first}`);
  const shown = listedLocations(first, NON_NULL);
  assert.ok(shown.length > 0 && shown.length < 20, first);
  assert.deepEqual(shown, Array.from({ length: shown.length }, (_, i) => `src/w${i}.ts:2:21`), first);
  assert.match(
    first,
    new RegExp(`\\(${20 - shown.length} more findings left out to fit the token budget, in src/w${shown.length}\\.ts, .*; they are listed again after you next change those files\\.\\)`),
  );
  const again = resultOf(toolResults(started.contexts[2]), "A");
  assert.deepEqual(listedLocations(again, NON_NULL), ["src/w19.ts:2:21"], again);
  started.session.dispose();
});

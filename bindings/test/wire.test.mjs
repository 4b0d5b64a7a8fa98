// What the extension hands the engine from Pi's events (`bindings/extension/wire.ts`): plain JSON
// passes as it is, without a copy; anything else becomes what JSON would carry, or nothing.
import test from "node:test";
import assert from "node:assert/strict";
import { jsonArguments, jsonSafe } from "../extension/wire.ts";

test("plain JSON is handed over as it is, not copied", () => {
  const args = { path: "src/a.ts", content: "x".repeat(1 << 20), lines: [1, 2.5, null, true], nested: { ok: [] } };
  assert.equal(jsonSafe(args), args);
  assert.equal(jsonArguments(args), args);
});

test("what JSON cannot hold as it is becomes what JSON carries", () => {
  assert.deepEqual(jsonSafe({ list: [1, undefined, 3], gone: undefined, f: () => 1 }), { list: [1, null, 3] });
  assert.deepEqual(jsonSafe({ small: 3n, large: 10n ** 20n }), { small: 3, large: "100000000000000000000" });
  assert.deepEqual(jsonSafe({ ratio: Number.NaN, when: new Date(0) }), { ratio: null, when: "1970-01-01T00:00:00.000Z" });
  assert.deepEqual(jsonSafe([1, , 3]), [1, null, 3]);
});

test("a cycle, or arguments that are not an object, give nothing rather than an error", () => {
  /** @type {Record<string, unknown>} */
  const cyclic = { name: "a" };
  cyclic.self = cyclic;
  assert.equal(jsonSafe(cyclic), undefined);
  assert.equal(jsonArguments(cyclic), undefined);
  assert.equal(jsonArguments(["not", "an", "object"]), undefined);
  assert.equal(jsonArguments("text"), undefined);
  assert.equal(jsonSafe(undefined), undefined);
});

test("a value nested deeper than the plain check looks still arrives whole", () => {
  /** @type {unknown} */
  let deep = "leaf";
  for (let i = 0; i < 100; i++) deep = [deep];
  assert.deepEqual(jsonSafe(deep), deep);
});

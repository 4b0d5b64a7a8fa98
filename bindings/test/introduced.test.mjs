// Introduced-only delivery on the real Pi runtime: an edit of one line in a committed file with
// five pre-existing `any`s that introduces one `.only` gets a block listing only the `.only` and
// one line counting the rest; a new untracked file gets all of its findings.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { assertNoProblems, assertRealUntouched, call, configRoot, listedLocations, newRepo, say, start, toolResults, toolUse } from "./harness.mjs";

after(assertRealUntouched);

/** A test file with five explicit `any`s and one test, focused with `it.only` when `focus`. @param {boolean} focus */
const legacy = (focus) =>
  "export function a(x: any): any { return x; }\n" +
  "export const b = (y: any) => y as any;\n" +
  "export const c: any[] = [];\n" +
  `${focus ? "it.only" : "it"}("works", () => { a(1); });\n`;

/** The locations a tool result's text lists for `rule`. */
const listed = listedLocations;

test("an edit of one line in a legacy file lists only the `.only` it introduced and counts the five `any`s", async () => {
  const repo = newRepo({ "src/x.test.ts": legacy(false) });
  const started = await start({
    repo,
    configRoot: configRoot(),
    responses: [
      toolUse(call("edit", { path: "src/x.test.ts", edits: [{ oldText: 'it("works"', newText: 'it.only("works"' }] }, { id: "E" })),
      say("done"),
    ],
  });
  await started.session.prompt("focus the test");
  assertNoProblems(started);
  const [edit] = toolResults(started.contexts[1]);
  assert.equal(edit[0], "E");
  assert.equal(edit[1], false, "the edit stays a success");
  const text = edit[2];
  assert.deepEqual(
    listed(text, "typescript-no-focused-test-ts"),
    ["src/x.test.ts:4:1"],
    text,
  );
  assert.deepEqual(listed(text, "typescript-no-explicit-any-ts"), [], text);
  assert.deepEqual(
    text.split("\n").filter((line) => line.includes("pre-existing")),
    ["+5 pre-existing findings in src/x.test.ts not shown"],
    text,
  );
  started.session.dispose();
});

test("a new untracked file gets all of its findings", async () => {
  const repo = newRepo();
  const started = await start({
    repo,
    configRoot: configRoot(),
    responses: [toolUse(call("write", { path: "src/new.test.ts", content: legacy(true) }, { id: "W" })), say("done")],
  });
  await started.session.prompt("write a test");
  assertNoProblems(started);
  const [written] = toolResults(started.contexts[1]);
  const text = written[2];
  assert.equal(listed(text, "typescript-no-explicit-any-ts").length, 5, text);
  assert.equal(listed(text, "typescript-no-focused-test-ts").length, 1, text);
  assert.doesNotMatch(text, /pre-existing/, text);
  started.session.dispose();
});

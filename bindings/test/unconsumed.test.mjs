// A rule without a policy on the real Pi runtime: one YAML rule file added to a config root (no
// Rhai) reaches the agent in a wave as the rule's message and note, beside the built-in pack's
// policy diagnostics, and `/hooks-doctor` lists it as consumed by no policy.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { assertNoProblems, assertRealUntouched, call, command, configRoot, listedLocations, newRepo, say, start, toolResults, toolUse } from "./harness.mjs";

after(assertRealUntouched);

const NO_VAR = `id: no-var
language: TypeScript
severity: warning
message: Use \`let\` or \`const\` instead of \`var\`.
note: Replace \`var\` with \`const\`, or \`let\` when the variable is reassigned.
rule:
  kind: variable_declaration
`;

test("a rule no policy consumes is delivered in a Pi wave as its message and note", async () => {
  const root = configRoot({ "ast-grep/rules/no-var.yml": NO_VAR });
  const repo = newRepo();
  const started = await start({
    repo,
    configRoot: root,
    responses: [
      toolUse(call("write", { path: "src/a.ts", content: "var x = 1;\nexport const y = x!;\n" }, { id: "W" })),
      say("done"),
    ],
  });
  await started.session.prompt("write a file");
  assertNoProblems(started);
  const [written] = toolResults(started.contexts[1]);
  assert.equal(written[0], "W");
  assert.equal(written[1], false, "the write stays a success");
  const lines = written[2].split("\n");
  const at = lines.indexOf("no-var (warning): Use `let` or `const` instead of `var`.");
  assert.ok(at >= 0, written[2]);
  assert.equal(lines[at + 1], "  src/a.ts:1:1", written[2]);
  assert.equal(
    lines[at + 2],
    "  Fix: Replace `var` with `const`, or `let` when the variable is reassigned. To keep a deliberate case, add on the line above: // ast-grep-ignore: no-var -- <reason>",
    written[2],
  );
  // The built-in policy still speaks for its own rule, with its own guidance.
  assert.deepEqual(listedLocations(written[2], "typescript-no-non-null-assertion-ts"), ["src/a.ts:2:18"], written[2]);
  assert.deepEqual(listedLocations(written[2], "no-var"), ["src/a.ts:1:1"], written[2]);
  assert.equal(lines.filter((line) => /^\S+ \((warning|info|hint)\): /.test(line)).length, 2, written[2]);

  const doctor = (await command(started, "/hooks-doctor")).join("\n");
  assert.ok(
    doctor.includes("info: no policy consumes `no-var`: its findings are delivered as the rule's message and note"),
    doctor,
  );
  assert.doesNotMatch(doctor, /no policy consumes `typescript-/, doctor);
  started.session.dispose();
});

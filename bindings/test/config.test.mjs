// Scenarios 8-9 on the real Pi runtime: a broken config root (a policy that does not compile, one
// that runs until the sandbox deadline stops it, a group-writable policy file) leaves its siblings
// working, every tool result intact, and `/hooks-doctor` naming each problem; without a config
// root the built-in pack runs exactly as `check` runs it (diagnostics, no verification, nothing
// written), and `/hooks-init` writes only after the user confirms in a UI.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { HOME, PACKAGE, ROOT, assertNoProblems, assertRealUntouched, call, command, configRoot, expectProblems, footer, listedLocations, newRepo, say, start, toolResults, toolUse } from "./harness.mjs";

after(assertRealUntouched);

const BANG = "declare const user: { name?: string } | undefined;\nexport const name = user!.name;\n";
const FINDING = /\ntypescript-no-non-null-assertion-ts \(warning\): [^\n]*\n  src\/a\.ts:2:21\n/;
/**
 * A diagnostic policy over the non-null assertion rule (the same rule as the built-in one).
 * @param {string} id
 * @param {string} body its functions
 */
const diagnosticPolicy = (id, body) => `const ID = "${id}";
const KIND = "diagnostic";
const ANALYZER = "ast-grep";
const RULES = ["typescript-no-non-null-assertion-ts"];

${body}
`;
const BROKEN = diagnosticPolicy("broken-syntax", 'fn evaluate(snapshot) {\n    snapshot.findings.map(|f| f.to_diagnostic("x")\n}');
// Few operations per iteration, each one slow: the wall-clock deadline stops it, not the
// operation budget.
const LOOPS = diagnosticPolicy("loops-forever", "fn evaluate(snapshot) {\n    loop {\n        let padded = [];\n        padded.pad(100000, 0);\n    }\n}");
const WRITABLE = diagnosticPolicy("group-writable", 'fn evaluate(snapshot) { snapshot.report("group-writable guidance") }');

test("a broken, a looping and a group-writable policy: siblings still deliver, results stay intact, /hooks-doctor names each", async () => {
  const root = configRoot({ "policies/broken-syntax.rhai": BROKEN, "policies/loops-forever.rhai": LOOPS, "policies/group-writable.rhai": WRITABLE });
  chmodSync(join(root, "policies/group-writable.rhai"), 0o620);
  const repo = newRepo();
  const started = await start({
    repo,
    configRoot: root,
    responses: [
      toolUse(
        call("write", { path: "src/a.ts", content: BANG }, { id: "A" }),
        call("bash", { command: "echo checked; exit 3" }, { id: "C" }),
        call("write", { path: "src/b.ts", content: "export const b = 1;\n" }, { id: "B" }),
      ),
      say("done"),
    ],
  });
  assert.equal(footer(started.ui), `hooks: ${root} · 0 diagnostics · degraded (/hooks-doctor)`, "the footer shows the load failures at once");
  await started.session.prompt("write and check");
  // The load failures are the only problems: degraded from the start, and no handler failed.
  expectProblems(started, [
    `degraded footer: hooks: ${root} · 0 diagnostics · degraded (/hooks-doctor)`,
    `degraded footer: hooks: ${root} · 1 diagnostics · degraded (/hooks-doctor)`,
  ]);
  assert.equal(started.faux.state.callCount, 2);

  const results = toolResults(started.contexts[1]);
  /** @type {Record<string, string>} */
  const originals = { A: "Successfully wrote to src/a.ts", B: "Successfully wrote to src/b.ts", C: "checked\n\n\nCommand exited with code 3" };
  assert.deepEqual(results.map(([id, isError]) => [id, isError]), [["A", false], ["C", true], ["B", false]], "no isError flipped");
  const carriers = results.filter(([, , body]) => body.includes("[pi-native-hooks]"));
  assert.equal(carriers.length, 1, "one carrier");
  for (const [id, , body] of results) {
    if (body.includes("[pi-native-hooks]")) assert.ok(body.startsWith(`${originals[id]}\n[pi-native-hooks] `), `the original text of ${id} comes first`);
    else assert.equal(body, originals[id], `${id} is unchanged`);
  }
  const block = carriers[0][2];
  assert.match(block, FINDING, "the sibling built-in policy still delivered its diagnostic");
  assert.doesNotMatch(block, /group-writable guidance/, "the untrusted policy was not loaded");
  assert.match(block, /this check is incomplete \(1 policy failed\)/, "the model is told the check is incomplete");
  assert.equal(footer(started.ui), `hooks: ${root} · 1 diagnostics · degraded (/hooks-doctor)`);

  const doctor = (await command(started, "/hooks-doctor")).join("\n");
  const policies = join(root, "policies");
  assert.match(doctor, new RegExp(`failed: ${policies}/broken-syntax\\.rhai:7:51: does not compile: `), "the syntax error, with file and line");
  assert.ok(
    doctor.includes(`failed: ${policies}/group-writable.rhai: mode 0620 lets group or others write it; run \`chmod go-w\` on it`),
    "the group-writable file, with the fix",
  );
  assert.ok(doctor.includes(`policy failure: ${policies}/loops-forever.rhai: \`evaluate\` failed: timed out after`), "the looping policy, stopped by the deadline");
  assert.match(doctor, /ok: typescript-no-non-null-assertion \(diagnostic\)/);

  const status = (await command(started, "/hooks-status")).join("\n");
  assert.ok(status.includes(`policy failure: ${policies}/loops-forever.rhai: \`evaluate\` failed: timed out after`), "the details the model was pointed to");
  started.session.dispose();
});

test("a policy that fails only at run time marks the footer degraded and is named in the status", async () => {
  const root = configRoot({ "policies/loops-forever.rhai": LOOPS });
  const repo = newRepo();
  const started = await start({ repo, configRoot: root, responses: [toolUse(call("write", { path: "src/a.ts", content: BANG }, { id: "A" })), say("done")] });
  assert.equal(footer(started.ui), `hooks: ${root} · 0 diagnostics`, "everything loaded");
  await started.session.prompt("write");
  const [[, isError, body]] = toolResults(started.contexts[1]);
  assert.equal(isError, false);
  assert.match(body, FINDING);
  assert.equal(footer(started.ui), `hooks: ${root} · 1 diagnostics · degraded (/hooks-doctor)`);
  expectProblems(started, [`degraded footer: hooks: ${root} · 1 diagnostics · degraded (/hooks-doctor)`]);
  const doctor = (await command(started, "/hooks-doctor")).join("\n");
  assert.ok(doctor.includes(`policy failure: ${join(root, "policies")}/loops-forever.rhai: \`evaluate\` failed: timed out after`));
  started.session.dispose();
});

let absent = 0;
/** A config root path that does not exist (nor does its parent). */
const missingRoot = () => join(ROOT, `absent-${++absent}`, "pi-native-hooks");

test("on the first run, without a config root, the built-in pack delivers as check does, with no gate and nothing written", async () => {
  // Where the personal root would be in the fake HOME: nothing is there, nothing is created.
  const config = join(HOME, ".config");
  const root = join(config, "pi-native-hooks");
  assert.equal(existsSync(config), false);
  const repo = newRepo();
  const started = await start({ repo, configRoot: root, responses: [toolUse(call("write", { path: "src/a.ts", content: BANG }, { id: "A" })), say("done")] });
  assert.equal(footer(started.ui), "hooks: built-in pack · 0 diagnostics");
  const status = (await command(started, "/hooks-status")).join("\n");
  assert.match(status, /^pi-native-hooks active\n/);
  assert.ok(status.includes(`no config root at ${root}: the built-in pack runs`), status);
  assert.ok(status.includes("\nconfig: built-in pack\n"), status);
  assert.ok(status.includes("verification: no requirement matches this project"), status);

  await started.session.prompt("write");
  assertNoProblems(started);
  assert.equal(started.faux.state.callCount, 2, "no gate: the model was called for the write and once more, never sent back");
  const [[id, isError, body]] = toolResults(started.contexts[1]);
  assert.deepEqual([id, isError], ["A", false]);
  assert.match(body, /^Successfully wrote to src\/a\.ts\n\[pi-native-hooks\] The `write` call succeeded/);
  const rules = [...body.matchAll(/^(\S+) \((?:warning|info|hint)\): /gm)].map((m) => m[1]);
  const delivered = rules.flatMap((rule) => listedLocations(body, rule).map((at) => `${at} ${rule}`));
  assert.deepEqual(delivered, ["src/a.ts:2:21 typescript-no-non-null-assertion-ts"]);
  assert.equal(footer(started.ui), "hooks: built-in pack · 1 diagnostics");
  assert.equal(started.contexts.flatMap((c) => c.messages).filter((m) => /** @type {string} */ (m.role) === "custom").length, 0, "no gate message");

  // `check` with no config root (here: the built-in pack, as it runs without one) reports the same finding.
  const check = (() => {
    try {
      return execFileSync(join(PACKAGE, "target/debug/pi-native-hooks"), ["check", "--builtin", "--format", "concise"], { cwd: repo, encoding: "utf8" });
    } catch (error) {
      // execFileSync throws on a non-zero exit with the child's status and output attached.
      const failed = /** @type {{ status?: number, stdout?: string, stderr?: string }} */ (error);
      assert.equal(failed.status, 1, failed.stderr ?? "");
      return failed.stdout ?? "";
    }
  })();
  assert.deepEqual(check.trim().split("\n").map((line) => line.split(" ").slice(0, 2).join(" ")), delivered);

  // /hooks-doctor's advice names both ways to create the root.
  const doctor = (await command(started, "/hooks-doctor")).join("\n");
  assert.match(doctor, /^in use: the built-in pack \(no config root exists; verification is off\)\n/);
  assert.ok(doctor.includes("/hooks-init in Pi or `pi-native-hooks init` in a terminal"), doctor);
  assert.equal(existsSync(config), false, "no files were created under the fake HOME's config directory");
  started.session.dispose();
});

test("/hooks-init without a UI writes nothing", async () => {
  const root = missingRoot();
  const started = await start({ repo: newRepo(), configRoot: root, ui: false });
  await started.session.prompt("/hooks-init");
  assert.equal(started.faux.state.callCount, 0, "handled as a command, without a model call");
  assertNoProblems(started);
  assert.equal(existsSync(join(root, "..")), false, "neither the root nor its parent was created");
  started.session.dispose();
});

/** Every path under `dir`, directories with a trailing slash, parents first. @param {string} dir @returns {string[]} */
function walk(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      return entry.isDirectory() ? [`${path}/`, ...walk(path)] : [path];
    });
}

test("/hooks-init with a UI lists every file, writes nothing on no, and creates the root on yes", async () => {
  const root = missingRoot();
  const repo = newRepo();
  const started = await start({ repo, configRoot: root });

  started.confirmAnswers.push(false);
  const declined = await command(started, "/hooks-init");
  assert.equal(existsSync(join(root, "..")), false, "declined: nothing written");
  assert.equal(declined.length, 1, "only the dry run was shown");
  const dryRun = declined[0].split("\n");
  assert.equal(dryRun[0], "pi-native-hooks init (dry run):");
  const entries = dryRun.slice(1, -1);
  const planned = entries.map((line) => line.replace(/^would create: /, ""));
  assert.ok(entries.every((line) => line.startsWith("would create: ")));
  assert.match(dryRun.at(-1) ?? "", /^no verification policy proposed: .*: no package\.json or Cargo\.toml at the project root;/, "a repository without a manifest gets no proposal, and says why");
  const confirms = started.ui.filter(([kind]) => kind === "confirm");
  assert.deepEqual(confirms.map(([, title, message]) => [title, message]), [["Create the pi-native-hooks config?", `${planned.length} entries under ${root}`]]);

  started.confirmAnswers.push(true);
  const accepted = await command(started, "/hooks-init");
  assert.equal(accepted[0], declined[0], "the same dry run");
  assert.equal(accepted.at(-1), `Created ${planned.length} entries under ${root}. Run /reload to activate them.`);
  // The missing parent, the root and everything below it: exactly what the dry run listed.
  const parent = join(root, "..");
  const created = [`${parent}/`, ...walk(parent)];
  assert.deepEqual([...planned].sort(), [...created].sort(), "the dry run listed every directory and file it created");
  assert.ok(planned.includes(`${root}/`) && planned.includes(join(root, "sgconfig.yml")));
  for (const path of created) {
    assert.equal(statSync(path).mode & 0o777, path.endsWith("/") ? 0o700 : 0o600, relative(ROOT, path));
  }
  assertNoProblems(started);

  // A second /hooks-init finds everything in place.
  const again = await command(started, "/hooks-init");
  assert.equal(again.at(-1), "Nothing to create: every entry exists.");

  // /reload activates the new root.
  await started.session.reload();
  assertNoProblems(started);
  assert.equal(footer(started.ui), `hooks: ${root} · 0 diagnostics`);
  started.session.dispose();
});

test("/hooks-init on a Node project proposes its verification policy in the dry run, writes it on yes, and never overwrites it", async () => {
  const root = missingRoot();
  const repo = newRepo({ "package.json": JSON.stringify({ name: "shop", scripts: { test: "node --test", lint: "eslint ." } }) });
  const started = await start({ repo, configRoot: root });
  const policy = join(root, "policies", "shop-verification.rhai");

  started.confirmAnswers.push(false);
  const [dryRun] = await command(started, "/hooks-init");
  const lines = dryRun.split("\n");
  assert.ok(lines.includes(`would create: ${policy}`), dryRun);
  assert.equal(lines.at(-1), 'proposed verification policy shop-verification.rhai for the project "shop" (package.json): npm test, npm run lint');
  assert.ok(!lines.some((line) => /pi-native-hooks-verification|node-project-verification/.test(line)), "neither this repository's policy nor the placeholder");
  assert.equal(existsSync(root), false, "declined: nothing written");

  started.confirmAnswers.push(true);
  const accepted = await command(started, "/hooks-init");
  assert.match(accepted.at(-1) ?? "", /^Created \d+ entries under /);
  const text = readFileSync(policy, "utf8");
  assert.ok(text.includes('const PROJECT = #{ manifest: "package.json", name: "shop" };'), text);
  assert.equal(statSync(policy).mode & 0o777, 0o600);

  // The user edits the proposal; a second /hooks-init keeps it.
  writeFileSync(policy, `${text}// edited\n`);
  const again = await command(started, "/hooks-init");
  assert.ok(again[0].split("\n").includes(`exists (kept): ${policy}`), again[0]);
  assert.equal(again.at(-1), "Nothing to create: every entry exists.");
  assert.ok(readFileSync(policy, "utf8").endsWith("// edited\n"));

  // After /reload the proposal is the project's gate: a relevant write arms `npm test`.
  await started.session.reload();
  const status = (await command(started, "/hooks-status")).join("\n");
  assert.ok(status.includes("shop-verification (verification)"), status);
  assertNoProblems(started);
  started.session.dispose();
});

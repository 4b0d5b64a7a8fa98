// The settings file on the real Pi runtime: a tool Pi does not ship, declared read-only in
// settings.toml, runs beside the check without invalidating it; a `bash` override that reports
// its exit code only in `details`, declared a shell tool with that place, satisfies the
// requirement. Each scenario first runs without the declaration, so the setting is what changes
// the outcome.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { Type } from "typebox";
import { assertNoProblems, assertRealUntouched, call, command, configRoot, expectProblems, footer, say, start, toolResults, toolUse } from "./harness.mjs";
import { CHECK, POLICY, bash, gatesIn, project, write } from "./project.mjs";

after(assertRealUntouched);

/** A config root with the demo verification policy and `settings` as settings.toml (if any). @param {string} [settings] */
const rootWith = (settings) =>
  configRoot({ "policies/demo-verification.rhai": POLICY, ...(settings === undefined ? {} : { "settings.toml": settings }) });

/** An extension registering `search_docs`, a read-only tool Pi does not ship. @param {import("@earendil-works/pi-coding-agent").ExtensionAPI} pi */
const searchDocs = (pi) =>
  pi.registerTool({
    name: "search_docs",
    label: "Search docs",
    description: "Search the project's documentation",
    parameters: Type.Object({ query: Type.String() }),
    async execute(_id, params) {
      return { content: [{ type: "text", text: `no match for ${params.query}` }], details: {} };
    },
  });

/**
 * An extension registering the shell tool `name` (`bash` overrides Pi's): it runs the command in
 * `cwd` and reports the exit code only as `details.exitCode` and at the end of its text, never as
 * `structuredContent.exit_code`.
 * @param {string} name
 * @param {string} cwd
 * @param {Record<string, unknown>} [extraDetails] more members of `details`
 */
const shellTool = (name, cwd, extraDetails = {}) => (/** @type {import("@earendil-works/pi-coding-agent").ExtensionAPI} */ pi) =>
  pi.registerTool({
    name,
    label: `${name} (extension)`,
    description: "Run a shell command",
    parameters: Type.Object({ command: Type.String() }),
    async execute(_id, params) {
      let output = "";
      let exitCode = 0;
      try {
        output = execFileSync("sh", ["-c", params.command], { cwd, encoding: "utf8" });
      } catch (error) {
        const failed = /** @type {{ status: number, stdout: string }} */ (error);
        output = failed.stdout;
        exitCode = failed.status;
      }
      return { content: [{ type: "text", text: `${output}exit status ${exitCode}` }], details: { exitCode, ...extraDetails } };
    },
  });

test("a tool declared read-only in settings.toml runs beside the check and the check counts", async () => {
  const responses = () => [
    toolUse(write("W", "src/a.ts")),
    say("done"),
    toolUse(bash("V"), call("search_docs", { query: "verify" }, { id: "S" })),
    say("verified"),
    toolUse(bash("V2")),
    say("verified alone"),
    say("never requested"),
  ];

  // Without the declaration the unknown tool is a mutating sibling: the run does not count.
  const { repo } = project();
  const undeclared = await start({ repo, configRoot: rootWith(), responses: responses(), extra: [searchDocs] });
  await undeclared.session.prompt("change the code");
  assertNoProblems(undeclared);
  assert.equal(undeclared.faux.state.callCount, 6, "a second continuation was needed");
  assert.match(gatesIn(undeclared.contexts[4])[0], /the run in call V did not count: `search_docs` call S ran in the same batch/);
  undeclared.session.dispose();

  const declared = await start({
    repo: project().repo,
    configRoot: rootWith('[tools]\nread_only = ["search_docs"]\n'),
    responses: responses(),
    extra: [searchDocs],
  });
  await declared.session.prompt("change the code");
  assertNoProblems(declared);
  assert.equal(declared.faux.state.callCount, 4, "the check beside the read-only tool passed: Pi settled after one continuation");
  assert.deepEqual(
    toolResults(declared.contexts[3]).slice(1).map(([id, isError]) => [id, isError]),
    [["V", false], ["S", false]],
  );
  assert.match(footer(declared.ui) ?? "", /checks: 1 passed, 0 pending$/);
  const status = (await command(declared, "/hooks-status")).join("\n");
  assert.match(status, /demo-verification\/check `sh verify\.sh`: passed/);
  assert.match(status, /\n {2}tools\.read_only = \[search_docs\]\n/);
  declared.session.dispose();
});

test("a bash override without structuredContent.exit_code, declared a shell tool with its exit-code field, satisfies the check", async () => {
  const responses = () => [toolUse(write("W", "src/a.ts")), say("done"), toolUse(bash("V")), say("verified"), toolUse(bash("V2")), say("again"), say("never requested")];

  // Without the declaration the override's success cannot be proven.
  const first = project().repo;
  const undeclared = await start({
    repo: first,
    configRoot: rootWith(),
    options: { continuationCap: 2 },
    responses: responses(),
    extra: [shellTool("bash", first)],
  });
  await undeclared.session.prompt("change the code");
  assertNoProblems(undeclared);
  assert.deepEqual(toolResults(undeclared.contexts[3]).at(-1), ["V", false, "verify: ok\nexit status 0"], "the override ran the check");
  assert.match(gatesIn(undeclared.contexts[4])[0], /the run in call V did not count: its result carried no exit code/);
  undeclared.session.dispose();

  const repo = project().repo;
  const settings = '[[tools.shell]]\nname = "bash"\nexit_code_field = "details.exitCode"\n';
  const declared = await start({ repo, configRoot: rootWith(settings), responses: responses(), extra: [shellTool("bash", repo)] });
  await declared.session.prompt("change the code");
  assertNoProblems(declared);
  assert.equal(declared.faux.state.callCount, 4, "the override's run passed the check: Pi settled");
  assert.match(footer(declared.ui) ?? "", /checks: 1 passed, 0 pending$/);
  const status = (await command(declared, "/hooks-status")).join("\n");
  assert.match(status, /demo-verification\/check `sh verify\.sh`: passed/);
  assert.match(status, /\n {2}tools\.shell: bash, exit code from field details\.exitCode\n/);
  declared.session.dispose();
});

test("a tool whose details hold what JSON cannot (undefined in an array, a BigInt) is read without a handler error", async () => {
  const repo = project().repo;
  const settings = '[[tools.shell]]\nname = "bash"\nexit_code_field = "details.exitCode"\n';
  const odd = { list: [1, undefined, 3], nested: { also: [undefined] }, size: 10n ** 20n, count: 3n };
  const responses = [toolUse(write("W", "src/a.ts")), say("done"), toolUse(bash("V")), say("verified"), say("never requested")];
  const started = await start({ repo, configRoot: rootWith(settings), responses, extra: [shellTool("bash", repo, odd)] });
  await started.session.prompt("change the code");
  // Before, the addon refused the event (`undefined cannot be represented as a serde_json::Value`):
  // an error notice, a degraded footer and the run never counted.
  assertNoProblems(started);
  assert.deepEqual(toolResults(started.contexts[3]).at(-1), ["V", false, "verify: ok\nexit status 0"], "the result is Pi's, untouched");
  assert.equal(started.faux.state.callCount, 4, "the exit code was read from details: the check passed and Pi settled");
  assert.match(footer(started.ui) ?? "", /checks: 1 passed, 0 pending$/);
  started.session.dispose();
});

test("a shell tool declared with an exit-code pattern: a failing run fails the check, a passing one passes it", async () => {
  const repo = project().repo;
  const run = (/** @type {string} */ id) => call("run_checks", { command: CHECK }, { id });
  const settings = "[[tools.shell]]\nname = \"run_checks\"\nexit_code_pattern = 'exit status (\\d+)$'\n";
  const started = await start({
    repo,
    configRoot: rootWith(settings),
    responses: [
      toolUse(write("W", "src/a.ts")),
      say("done"),
      () => (execFileSync("touch", ["FAIL"], { cwd: repo }), toolUse(run("F"))),
      say("it failed"),
      () => (execFileSync("rm", ["FAIL"], { cwd: repo }), toolUse(run("P"))),
      say("it passed"),
      say("never requested"),
    ],
    extra: [shellTool("run_checks", repo)],
  });
  await started.session.prompt("change the code");
  assertNoProblems(started);
  assert.equal(started.faux.state.callCount, 6);
  assert.match(gatesIn(started.contexts[4])[0], /`sh verify\.sh` — failed with exit code 1 at revision 1/);
  assert.match(footer(started.ui) ?? "", /checks: 1 passed, 0 pending$/);
  started.session.dispose();
});

test("a broken settings file is named in the footer, /hooks-status and /hooks-doctor; its good entries apply", async () => {
  const repo = project().repo;
  const settings = '[tools]\nread_only = ["search_docs", "bash"]\nreadonly = ["x"]\n';
  const root = rootWith(settings);
  const started = await start({
    repo,
    configRoot: root,
    responses: [toolUse(write("W", "src/a.ts")), say("done"), toolUse(bash("V")), say("ok"), say("never requested")],
  });
  await started.session.prompt("change the code");
  assert.equal(started.faux.state.callCount, 4, "the gate works as before");
  // Degraded from the start to the end, through every state of the gate; no handler failed.
  expectProblems(
    started,
    ["0 diagnostics", "0 diagnostics · checks: 0 passed, 1 pending", "0 diagnostics · checks: 1 passed, 0 pending"].map(
      (state) => `degraded footer: hooks: ${root} · ${state} · degraded (/hooks-doctor)`,
    ),
  );
  const status = (await command(started, "/hooks-status")).join("\n");
  assert.match(status, /settings problem: .*settings\.toml:2: `tools\.read_only\[1\]` "bash" changes files, so it cannot be declared read-only/);
  assert.match(status, /settings problem: .*settings\.toml:3: `tools\.readonly` is not a setting: did you mean `tools\.read_only`\?/);
  const doctor = (await command(started, "/hooks-doctor")).join("\n");
  assert.match(doctor, /\n {2}problem: .*settings\.toml:3: `tools\.readonly` is not a setting/);
  assert.match(doctor, /\n {2}tools\.read_only = \[search_docs\]/);
  started.session.dispose();
});

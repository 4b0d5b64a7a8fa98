// Type errors per wave on the real Pi runtime: the project's own TypeScript as the second analyzer,
// installed in the project as `node_modules/typescript` — the pinned `typescript` 7.0.2 (its own
// language server), and the pinned 5.9.3, served by the typescript-language-server this package
// depends on (the extension passes it, with its Node, to the engine). A write that introduces a type error gets it listed in the same block as the rule
// findings, with the file's older type error counted; an edit that changes an exported signature
// gets the unchanged caller's error in the same wave; a clean edit of a clean file adds nothing.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { symlinkSync, mkdirSync, existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { assertNoProblems, assertRealUntouched, call, command, configRoot, listedLocations, newRepo, PACKAGE, say, start, text, toolResults, toolUse } from "./harness.mjs";

after(assertRealUntouched);

/**
 * @typedef {{ name: string, version: string, modules: string, settings: Record<string, string> }} Server
 * The pinned installs, each with how long a wave waits for it: TypeScript 7 with the default wait;
 * TypeScript 5 with a patient one, because its cold start (tsserver builds the program) can
 * outlast the default on a loaded machine, and these tests are about what is found. A wave that
 * outlasts the wait is delivered with the next block; `tests/it/typescript/hostile.rs` tests that.
 */
/** @type {Server[]} */
const SERVERS = [
  { name: "TypeScript 7", version: "7.0.2", modules: process.env.PI_NATIVE_HOOKS_TS7_MODULES ?? resolve(PACKAGE, "tests/typescript-servers/ts7/node_modules"), settings: {} },
  {
    name: "TypeScript 5",
    version: "5.9.3",
    modules: process.env.PI_NATIVE_HOOKS_TS5_MODULES ?? resolve(PACKAGE, "tests/typescript-servers/ts5/node_modules"),
    settings: { "settings.toml": "[typescript]\nwait_ms = 60000\n" },
  },
];
for (const { name, modules } of SERVERS) {
  assert.ok(existsSync(join(modules, "typescript/package.json")), `${name} is not installed at ${modules}: run \`. scripts/provision.sh\``);
}

const TSCONFIG = JSON.stringify({ compilerOptions: { strict: true, target: "es2022", module: "nodenext", noEmit: true }, include: ["src"] });

for (const { name, version, modules, settings } of SERVERS) {
  /**
   * A committed TypeScript project with `files`, the pinned TypeScript installed (not committed).
   * @param {Record<string, string>} files paths and contents
   * @returns {string} the repository
   */
  function project(files) {
    const repo = newRepo({ "tsconfig.json": TSCONFIG, "package.json": '{ "type": "module" }\n', ".gitignore": "node_modules\n", ...files });
    mkdirSync(join(repo, "node_modules"));
    symlinkSync(join(modules, "typescript"), join(repo, "node_modules/typescript"));
    return repo;
  }
  const versionPattern = version.replaceAll(".", "\\.");

  test(`${name}: a write that introduces a type error lists it, and counts the file's older one`, async () => {
    const repo = project({ "src/a.ts": "export const old: string = 1;\n" });
    const started = await start({
      repo,
      configRoot: configRoot(settings),
      responses: [
        toolUse(call("write", { path: "src/a.ts", content: 'export const old: string = 1;\nconst n: number = "s";\nexport { n };\n' }, { id: "W" })),
        say("done"),
      ],
    });
    await started.session.prompt("add n");
    assertNoProblems(started);
    const [written] = toolResults(started.contexts[1]);
    assert.equal(written[1], false, "the write stays a success");
    const text = written[2];
    assert.deepEqual(listedLocations(text, "TS2322"), ["src/a.ts:2:7"], text);
    assert.match(text, /Type 'string' is not assignable to type 'number'/, text);
    // The built-in pack's type-error policy speaks for the finding, with its guidance for the code.
    assert.match(text, /Make the value match the declared type/, text);
    assert.match(text, /Do not cast to `any`/, text);
    assert.deepEqual(
      text.split("\n").filter((line) => line.includes("pre-existing")),
      ["+1 pre-existing finding in src/a.ts not shown"],
      text,
    );
    assert.doesNotMatch(text, /incomplete/, text);
    const status = (await command(started, "/hooks-status")).join("\n");
    assert.match(status, new RegExp(`type check: .*tsconfig\\.json: TypeScript ${versionPattern}, running \\(pid \\d+`), status);
    started.session.dispose();
  });

  test(`${name}: an edit that changes an exported parameter type reports the unchanged caller in the same wave`, async () => {
    const repo = project({
      "src/a.ts": "export function f(x: number): number {\n  return x;\n}\n",
      "src/b.ts": 'import { f } from "./a.js";\n\nexport const y = f(1);\n',
    });
    const started = await start({
      repo,
      configRoot: configRoot(settings),
      responses: [
        toolUse(call("edit", { path: "src/a.ts", edits: [{ oldText: "f(x: number): number {\n  return x;", newText: "f(x: string): number {\n  return x.length;" }] }, { id: "E" })),
        say("done"),
      ],
    });
    await started.session.prompt("make f take a string");
    assertNoProblems(started);
    const [edited] = toolResults(started.contexts[1]);
    const text = edited[2];
    assert.deepEqual(listedLocations(text, "TS2345"), ["src/b.ts:3:20"], text);
    assert.match(text, /Argument of type 'number' is not assignable to parameter of type 'string'/, text);
    started.session.dispose();
  });

  test(`${name}: a clean edit of a clean file adds no block and no warning`, async () => {
    const repo = project({ "src/a.ts": "export const a = 1;\n" });
    const started = await start({
      repo,
      configRoot: configRoot(settings),
      responses: [
        toolUse(call("edit", { path: "src/a.ts", edits: [{ oldText: "= 1", newText: "= 2" }] }, { id: "E" })),
        say("done"),
      ],
    });
    await started.session.prompt("bump a");
    assertNoProblems(started);
    const [edited] = toolResults(started.contexts[1]);
    assert.equal(edited[1], false);
    assert.doesNotMatch(edited[2], /\[pi-native-hooks\]/, edited[2]);
    // Checked, not skipped: the server answered within the wait and nothing is pending.
    const status = (await command(started, "/hooks-status")).join("\n");
    assert.match(status, new RegExp(`type check: .*tsconfig\\.json: TypeScript ${versionPattern}, running \\(pid \\d+, [^,]+, 1 open documents\\)`), status);
    assert.doesNotMatch(status, /pending/, status);
    started.session.dispose();
  });
}

test("a type error found after its wave's wait is sent with the settle, once, and Pi goes on", async () => {
  // `wait_ms = 0`: no wave waits for the type check, so the write's block says it is incomplete
  // and the error arrives at the settle instead.
  const [ts7] = SERVERS;
  const repo = newRepo({ "tsconfig.json": TSCONFIG, "package.json": '{ "type": "module" }\n', ".gitignore": "node_modules\n", "src/a.ts": "export const a = 1;\n" });
  mkdirSync(join(repo, "node_modules"));
  symlinkSync(join(ts7.modules, "typescript"), join(repo, "node_modules/typescript"));
  const started = await start({
    repo,
    configRoot: configRoot({ "settings.toml": "[typescript]\nwait_ms = 0\n" }),
    responses: [toolUse(call("write", { path: "src/a.ts", content: 'export const a: number = "s";\n' }, { id: "W" })), say("done"), say("fixed it later")],
  });
  await started.session.prompt("type a");
  assertNoProblems(started);
  assert.equal(started.faux.state.callCount, 3, "the settle sent the agent back once");
  const [written] = toolResults(started.contexts[1]);
  assert.match(written[2], /1 file not type-checked/, written[2]);
  assert.doesNotMatch(written[2], /TS2322/, written[2]);
  const late = started.contexts[2].messages.at(-1);
  assert.ok(late, "the continuation request has messages");
  assert.equal(late.role, "user");
  assert.match(text(late), /^\[pi-native-hooks\] These arrived after the tool results/, text(late));
  assert.deepEqual(listedLocations(text(late), "TS2322"), ["src/a.ts:1:14"], text(late));
  const entries = started.session.sessionManager.getEntries().filter((e) => e.type === "custom_message" && e.customType === "pi-native-hooks-diagnostics");
  assert.equal(entries.length, 1, "one late message in the session's history");
  started.session.dispose();
});

// The package as a Pi user gets it. `scripts/pack` writes the tarballs; a real npm registry
// (verdaccio, on 127.0.0.1 with a throw-away storage, stopped at the end) serves them; Pi's own
// CLI runs `pi install npm:pi-native-hooks` into a fake HOME with no `cargo` or `rustc` on PATH.
// Then the installed package runs on the real Pi runtime: one extension and the skill load, a
// session gets the built-in diagnostic, the installed `pi-native-hooks check` reports the same
// finding, and the skill's workflow (init, a new policy, its fixtures, the doctor) works through
// the command the skill names. Without the addon (an unsupported platform, a copy of the package
// without its platform package) the extension says so in one line and Pi keeps running.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { execFile as execFileCallback, execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir, userInfo } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { promisify } from "node:util";
import { registerPublisher, startRegistry, stopRegistry } from "../../scripts/local-registry.mjs";
import { problems, recordingUI } from "./ui.mjs";

/**
 * @typedef {import("@earendil-works/pi-ai").TranscriptContext} TranscriptContext
 * @typedef {import("@earendil-works/pi-coding-agent").ExtensionError} ExtensionError
 * @typedef {import("./no-addon-session.mjs").SessionReport} SessionReport
 * @typedef {import("../../scripts/local-registry.mjs").LocalRegistry} Registry
 * @typedef {{ code: number, stdout: string, stderr: string }} RunResult
 */

const execFile = promisify(execFileCallback);
const PACKAGE = resolve(import.meta.dirname, "../..");

// The real user's files, by the OS user record (not $HOME): nothing below may change them.
const realHome = userInfo().homedir;
const REAL_PATHS = [join(realHome, ".pi"), join(realHome, ".config", "pi-native-hooks")];
/** @param {string} path @returns {number | "absent"} */
const stamp = (path) => (existsSync(path) ? statSync(path).mtimeMs : "absent");
const realBefore = REAL_PATHS.map(stamp);

// The developer's environment (rustup finds its toolchains through HOME), for `scripts/pack`.
const DEVELOPER_ENV = { ...process.env };
const ROOT = mkdtempSync(join(tmpdir(), "pi-native-hooks-registry-"));
const HOME = join(ROOT, "home");
const AGENT_DIR = join(HOME, ".pi", "agent");
mkdirSync(HOME);
// PI_OFFLINE keeps this process's resource loading off the network; the install below unsets it.
Object.assign(process.env, { HOME, PI_CODING_AGENT_DIR: AGENT_DIR, PI_OFFLINE: "1", PI_SKIP_VERSION_CHECK: "1", PI_TELEMETRY: "0" });

const pi = await import("@earendil-works/pi-coding-agent");
const ai = await import("@earendil-works/pi-ai");

/** Directories of a PATH with node and npm on it and no Rust toolchain. */
const RUSTLESS_PATH = [dirname(process.execPath), "/usr/bin", "/bin"].join(delimiter);
/** @param {string} name @param {string} path a PATH value */
const onPath = (name, path) => path.split(delimiter).some((dir) => existsSync(join(dir, name)));
/**
 * The environment of the user's shell: the fake HOME, the local registry, no Rust.
 * @param {NodeJS.ProcessEnv} [extra]
 * @returns {NodeJS.ProcessEnv}
 */
const userEnv = (extra = {}) => {
  /** @type {NodeJS.ProcessEnv} */
  const env = { ...process.env, PATH: RUSTLESS_PATH, npm_config_cache: join(ROOT, "npm-cache"), npm_config_update_notifier: "false", ...extra };
  delete env.PI_OFFLINE;
  for (const name of Object.keys(env)) if (/^(CARGO|RUSTUP|RUSTC)/.test(name)) delete env[name];
  return env;
};

const INSTALLED = join(AGENT_DIR, "npm", "node_modules", "pi-native-hooks");
const INSTALLED_BIN = join(AGENT_DIR, "npm", "node_modules", ".bin", "pi-native-hooks");
const BANG = "declare const user: { name?: string } | undefined;\nexport const name = user!.name;\n";

// Set by `before` and the first test; every later use runs after them.
/** @type {Registry} */
let registry;
/** @type {string[]} file names scripts/pack printed */
let tarballs;
/** @type {string} e.g. linux-x64-gnu */
let platform;

/** @param {string} cwd @param {...string} args */
const git = (cwd, ...args) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
  });
let repoCount = 0;
function newRepo() {
  const dir = join(ROOT, `repo-${++repoCount}`);
  mkdirSync(dir);
  git(dir, "init", "-q", "-b", "main");
  writeFileSync(join(dir, "README.md"), "# fixture\n");
  git(dir, "add", ".");
  git(dir, "commit", "-qm", "init");
  return dir;
}

/**
 * Whether `error` is the rejection of a command that ran and exited non-zero (rather than one
 * that did not start or timed out): Node's execFile then gives the exit code and the output.
 * @param {unknown} error
 * @returns {error is RunResult}
 */
const exitedNonZero = (error) => typeof error === "object" && error !== null && "code" in error && typeof error.code === "number";

/**
 * Runs a command as the user would, resolving to { code, stdout, stderr } (never rejecting).
 * @param {string} file
 * @param {string[]} args
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv, timeout?: number }} [options]
 * @returns {Promise<RunResult>}
 */
async function run(file, args, options = {}) {
  try {
    const { stdout, stderr } = await execFile(file, args, { encoding: "utf8", timeout: 120_000, env: userEnv(), ...options });
    return { code: 0, stdout, stderr };
  } catch (error) {
    if (!exitedNonZero(error)) throw error;
    return { code: error.code, stdout: error.stdout, stderr: error.stderr };
  }
}

/** Publishes the tarballs as a user registered on the local registry. */
async function publish() {
  const npmrc = await registerPublisher(registry, ROOT);
  for (const tarball of tarballs) {
    const published = await run("npm", ["publish", join(ROOT, "packed", tarball), "--registry", registry.url], {
      env: userEnv({ npm_config_userconfig: npmrc }),
    });
    assert.equal(published.code, 0, `npm publish ${tarball}: ${published.stderr}`);
  }
}

before(async () => {
  const packed = await run(join(PACKAGE, "scripts", "pack"), [join(ROOT, "packed")], { env: DEVELOPER_ENV, timeout: 1_800_000 });
  assert.equal(packed.code, 0, `scripts/pack failed:\n${packed.stderr}`);
  tarballs = packed.stdout.trim().split("\n");
  registry = await startRegistry(join(ROOT, "registry"));
  await publish();
});

after(async () => {
  await stopRegistry(registry);
  if (!process.env.KEEP_E2E) rmSync(ROOT, { recursive: true, force: true });
  assert.deepEqual(REAL_PATHS.map(stamp), realBefore, "the real ~/.pi and config root are untouched");
});

test("scripts/pack writes the main package and this platform's package at the same version, and the main package's registry dependencies", () => {
  /** @type {{ version: string, dependencies: Record<string, string> }} */
  const main = JSON.parse(readFileSync(join(PACKAGE, "package.json"), "utf8"));
  const version = main.version;
  assert.deepEqual(
    tarballs.slice(2),
    Object.entries(main.dependencies).map(([name, pinned]) => `${name}-${pinned}.tgz`),
    "each registry dependency at its pinned version, for the local registry to serve",
  );
  assert.equal(tarballs[0], `pi-native-hooks-${version}.tgz`);
  const match = tarballs[1].match(/^pi-native-hooks-(linux-(?:x64|arm64)-(?:gnu|musl)|darwin-(?:x64|arm64))-(.+)\.tgz$/);
  assert.ok(match, `a platform package: ${tarballs[1]}`);
  assert.equal(match[2], version);
  platform = match[1];
  assert.deepEqual(readdirSync(join(ROOT, "packed")).sort(), [...tarballs].sort(), "one tarball per package, nothing else");
});

test("pi install npm:pi-native-hooks from the registry, without Rust, installs the package and its addon only", async () => {
  assert.ok(!onPath("cargo", RUSTLESS_PATH) && !onPath("rustc", RUSTLESS_PATH), "no cargo or rustc on the user's PATH");
  const cli = join(PACKAGE, "node_modules/@earendil-works/pi-coding-agent/dist/cli.js");
  const installed = await run(process.execPath, [cli, "install", "npm:pi-native-hooks"], {
    cwd: ROOT,
    env: userEnv({ npm_config_registry: registry.url }),
    timeout: 300_000,
  });
  assert.equal(installed.code, 0, `pi install failed:\n${installed.stdout}\n${installed.stderr}`);

  /** @type {{ packages: string[] }} Pi's settings file, as much as this test reads */
  const settings = JSON.parse(readFileSync(join(AGENT_DIR, "settings.json"), "utf8"));
  assert.deepEqual(settings.packages, ["npm:pi-native-hooks"]);
  const modules = readdirSync(join(AGENT_DIR, "npm", "node_modules")).filter((name) => !name.startsWith("."));
  assert.deepEqual(modules.sort(), ["pi-native-hooks", `pi-native-hooks-${platform}`, "typescript-language-server"], "the platform package and the type check's bridge, nothing else: no peer, no other platform");
  /** @type {{ version: string, optionalDependencies: Record<string, string> }} */
  const manifest = JSON.parse(readFileSync(join(INSTALLED, "package.json"), "utf8"));
  assert.equal(manifest.optionalDependencies[`pi-native-hooks-${platform}`], manifest.version, "the versions line up");
  assert.ok(!readdirSync(join(INSTALLED, "bindings", "native")).some((f) => f.endsWith(".node")), "the main package carries no addon");
  assert.ok(existsSync(INSTALLED_BIN), "npm linked the pi-native-hooks command");
});

test("Pi loads exactly one pi-native-hooks extension and the skill from the installed package", async () => {
  const repo = newRepo();
  const settingsManager = pi.SettingsManager.create(repo, AGENT_DIR, {});
  const loader = new pi.DefaultResourceLoader({ cwd: repo, agentDir: AGENT_DIR, settingsManager });
  await loader.reload();
  const { extensions, errors, warnings } = loader.getExtensions();
  assert.deepEqual([errors, warnings], [[], []]);
  assert.deepEqual(
    extensions.map((e) => [e.path, e.sourceInfo.source, e.sourceInfo.scope, e.sourceInfo.origin]),
    [[join(INSTALLED, "bindings/extension/index.js"), "npm:pi-native-hooks", "user", "package"]],
  );
  assert.deepEqual([...extensions[0].commands.keys()].sort(), ["hooks-doctor", "hooks-init", "hooks-status"]);
  const skills = loader.getSkills().skills;
  assert.deepEqual(skills.map((s) => [s.name, s.filePath]), [["native-hook-authoring", join(INSTALLED, "skills/native-hook-authoring/SKILL.md")]]);
  // Loading the extension loaded the addon, from the platform package npm installed.
  const loaded = Object.keys(createRequire(import.meta.url).cache).filter((path) => path.endsWith(".node"));
  assert.deepEqual(loaded, [join(AGENT_DIR, "npm", "node_modules", `pi-native-hooks-${platform}`, `pi-native-hooks.${platform}.node`)]);
  // The package's extension is JavaScript, which Pi imports natively: its TypeScript loader never
  // loaded Babel to transform it.
  const babel = Object.keys(createRequire(import.meta.url).cache).filter((path) => path.endsWith("/jiti/dist/babel.cjs"));
  assert.deepEqual(babel, [], "no TypeScript transform at start-up");
});

test("on the first run, with no config root, a session of the installed extension gets the built-in diagnostic, and the installed check reports the same finding", async () => {
  // No config root: where it would be in the fake HOME, nothing exists, and nothing is created.
  const root = join(HOME, ".config", "pi-native-hooks");
  assert.equal(existsSync(join(HOME, ".config")), false);
  // The personal root comes from the OS user record, which no test may read: this wrapper gives the
  // installed extension's own factory an explicit (absent) root, and Pi's loader loads it like any
  // extension.
  const wrapper = join(ROOT, "under-test", "index.mjs");
  mkdirSync(dirname(wrapper));
  writeFileSync(
    wrapper,
    `import { createPiNativeHooks } from ${JSON.stringify(join(INSTALLED, "bindings/extension/hooks.js"))};\n` +
      `export default createPiNativeHooks({ configRoot: ${JSON.stringify(root)} });\n`,
  );
  const repo = newRepo();
  const settingsManager = pi.SettingsManager.create(repo, AGENT_DIR, {});
  const resourceLoader = new pi.DefaultResourceLoader({
    cwd: repo,
    agentDir: AGENT_DIR,
    settingsManager,
    noExtensions: true,
    additionalExtensionPaths: [wrapper],
  });
  await resourceLoader.reload();
  const { extensions, errors } = resourceLoader.getExtensions();
  assert.deepEqual(errors, []);
  assert.deepEqual(extensions.map((e) => e.path), [wrapper], "exactly one pi-native-hooks extension");
  assert.deepEqual(resourceLoader.getSkills().skills.map((s) => s.name), ["native-hook-authoring"]);

  const modelRuntime = await pi.ModelRuntime.create({ credentials: new ai.InMemoryCredentialStore(), modelsPath: null });
  const faux = ai.fauxProvider();
  modelRuntime.registerNativeProvider(faux.provider);
  /** @type {TranscriptContext[]} */
  const contexts = [];
  faux.setResponses(
    [ai.fauxAssistantMessage([ai.fauxToolCall("write", { path: "src/a.ts", content: BANG }, { id: "A" })], { stopReason: "toolUse" }), ai.fauxAssistantMessage("done")].map(
      (response) => (ctx) => (contexts.push(structuredClone(ctx)), response),
    ),
  );
  const { session } = await pi.createAgentSession({
    cwd: repo,
    agentDir: AGENT_DIR,
    modelRuntime,
    model: faux.getModel(),
    settingsManager,
    resourceLoader,
    sessionManager: pi.SessionManager.inMemory(repo),
  });
  /** @type {import("./ui.mjs").UICall[]} */
  const ui = [];
  /** @type {ExtensionError[]} */
  const piErrors = [];
  await session.bindExtensions({ uiContext: recordingUI(ui), onError: (e) => piErrors.push(e) });
  await session.prompt("write a file");
  session.dispose();
  assert.deepEqual(problems({ ui, piErrors }), [], "no error notice, degraded footer or handler error");
  const [result] = contexts[1].messages.filter((m) => m.role === "toolResult");
  const body = result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
  assert.equal(result.isError, false);
  assert.match(body, /^Successfully wrote to src\/a\.ts\n\[pi-native-hooks\] The `write` call succeeded/);
  // `rule (severity): message` heads a rule; its locations follow, indented, space-separated.
  const delivered = [...body.matchAll(/^(\S+) \((?:warning|info|hint)\): .*\n {2}(\S+:\d+:\d+)$/gm)].map((m) => `${m[2]} ${m[1]}`);
  assert.deepEqual(delivered, ["src/a.ts:2:21 typescript-no-non-null-assertion-ts"]);
  assert.equal(contexts.length, 2, "no verification gate sent the model back");
  assert.equal(existsSync(join(HOME, ".config")), false, "the first run created no config");

  // The command npm linked, as the user runs it, on the same repository with the built-in pack
  // (what `check` runs without a root; the test cannot rely on the real user having none).
  const check = await run(INSTALLED_BIN, ["check", "--builtin", "--format", "concise"], { cwd: repo });
  assert.equal(check.code, 1, `check reports findings with exit 1:\n${check.stderr}`);
  const reported = check.stdout.trim().split("\n").map((line) => line.split(" ").slice(0, 2).join(" "));
  assert.deepEqual(reported, delivered, "the same finding as the session's diagnostic");
});

test("the skill's workflow through the command it names: init, a new policy from the reference, its fixtures, the doctor", async () => {
  const skill = readFileSync(join(INSTALLED, "skills/native-hook-authoring/SKILL.md"), "utf8");
  const relative = skill.match(/`(\.\.\/\.\.\/bin\/pi-native-hooks\.js)` from it/)?.[1];
  assert.ok(relative && skill.includes("node <package>/bin/pi-native-hooks.js <command>"), "the skill says how to run the command");
  const command = resolve(join(INSTALLED, "skills/native-hook-authoring"), relative);
  assert.equal(command, join(INSTALLED, "bin/pi-native-hooks.js"));
  /** @param {...string} args */
  const cli = (...args) => run(process.execPath, [command, ...args, "--config", root], { cwd: ROOT });
  const root = join(ROOT, "skill-root", "pi-native-hooks");

  const dry = await cli("init", "--dry-run");
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, /^would create: .*\/policies\/tests\/$/m, "the dry run lists what it would create");
  assert.ok(!existsSync(root), "the dry run writes nothing");
  const init = await cli("init");
  assert.equal(init.code, 0, init.stderr);

  // "Copy the closest example from the reference": its diagnostic policy and that policy's fixtures.
  const contract = readFileSync(join(INSTALLED, "skills/native-hook-authoring/references/contract.md"), "utf8");
  const policy = contract.match(/```rhai\n(const ID = "no-dynamic-import-in-src";[\s\S]*?)```/)?.[1];
  const fixture = contract.match(/```yaml\n(policy: no-dynamic-import-in-src\n[\s\S]*?)```/)?.[1];
  assert.ok(policy && fixture, "the reference holds the example policy and its fixtures");
  writeFileSync(join(root, "policies", "no-dynamic-import-in-src.rhai"), policy, { mode: 0o600 });
  writeFileSync(join(root, "policies", "tests", "no-dynamic-import-in-src.yml"), fixture, { mode: 0o600 });

  /** The lines `test` prints under the new policy's heading. @param {string} stdout */
  const section = (stdout) => {
    const lines = stdout.split("\n");
    const start = lines.findIndex((line) => line.startsWith("no-dynamic-import-in-src ("));
    assert.ok(start >= 0, `the new policy is tested:\n${stdout}`);
    const end = lines.findIndex((line, i) => i > start && !line.startsWith("  "));
    return lines.slice(start + 1, end).map((line) => line.replace(/ +/g, " ").trim());
  };
  const first = await cli("test");
  assert.equal(first.code, 1, `the new policy has no snapshot yet:\n${first.stderr}`);
  const expected = ["pass flags application code", "pass scripts are exempt"];
  assert.deepEqual(section(first.stdout), [...expected, "snapshot missing: run with --update and review it"]);
  const update = await cli("test", "--update");
  assert.equal(update.code, 0, update.stderr);
  const again = await cli("test");
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(section(again.stdout), [...expected, "snapshot matches"]);
  const doctor = await cli("doctor");
  assert.equal(doctor.code, 0, doctor.stdout + doctor.stderr);
  assert.match(doctor.stdout, /ok: no-dynamic-import-in-src \(diagnostic\)/);
});

/**
 * Runs no-addon-session.mjs on a fresh repository with `packages` in a fresh fake agent dir.
 * @param {string} name names the fake HOME
 * @param {string[]} packages the `packages` of Pi's settings
 * @param {NodeJS.ProcessEnv} [extraEnv]
 * @returns {Promise<SessionReport & { agentDir: string }>}
 */
async function sessionWithout(name, packages, extraEnv = {}) {
  const home = join(ROOT, `home-${name}`);
  const agentDir = join(home, ".pi", "agent");
  mkdirSync(agentDir, { recursive: true });
  writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ packages }));
  if (packages.includes("npm:pi-native-hooks")) cpSync(join(AGENT_DIR, "npm"), join(agentDir, "npm"), { recursive: true });
  const child = await run(process.execPath, [join(import.meta.dirname, "no-addon-session.mjs"), newRepo()], {
    cwd: PACKAGE,
    env: { ...process.env, HOME: home, PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1", ...extraEnv },
  });
  assert.equal(child.code, 0, child.stderr);
  /** @type {SessionReport} the child's one JSON line */
  const report = JSON.parse(child.stdout);
  return { agentDir, ...report };
}

const SUPPORTED = "linux-x64-gnu, linux-arm64-gnu, linux-x64-musl, linux-arm64-musl, darwin-x64, darwin-arm64";
const BUILD = "build it from source with `npm run build` in a checkout of the repository (needs Rust)";

/**
 * The extension loaded, said `line` once, stayed inactive, and the session answered.
 * @param {SessionReport} result
 * @param {string} line
 */
function assertInactive(result, line) {
  assert.deepEqual(result.loadErrors, []);
  assert.equal(result.extensions.length, 1);
  const notes = result.ui.filter(([kind]) => kind === "notify");
  assert.deepEqual(notes, [["notify", line, "warning"], ["notify", line, "info"]], "one line at session start, the same from /hooks-status");
  assert.ok(!JSON.stringify(result).includes("npm has a bug"), "never napi's npm advice");
  assert.deepEqual(result.ui.filter(([kind]) => kind === "setStatus"), [], "no footer: the extension is inactive");
  assert.deepEqual(result.reply, ["still here"], "Pi keeps running");
  assert.deepEqual(result.handlerErrors, []);
}

test("on an unsupported platform the installed extension names it, the prebuilt ones and the source build, and stays inactive", async () => {
  const result = await sessionWithout("riscv64", ["npm:pi-native-hooks"], { SIMULATE_ARCH: "riscv64" });
  const line = `pi-native-hooks is inactive: no native addon for this platform (linux-riscv64-gnu); prebuilt for ${SUPPORTED}; ${BUILD}`;
  assertInactive(result, line);
  assert.deepEqual(result.extensions, [join(result.agentDir, "npm/node_modules/pi-native-hooks/bindings/extension/index.js")]);
});

test("a copy of the package without its platform package, and its command, say the addon is not installed", async () => {
  const copy = join(ROOT, "copy", "pi-native-hooks");
  cpSync(INSTALLED, copy, { recursive: true });
  const result = await sessionWithout("copy", [copy]);
  const problem = `the addon for ${platform} is not installed (no package pi-native-hooks-${platform}); reinstall the package (\`pi install npm:pi-native-hooks\`) or ${BUILD}; prebuilt for ${SUPPORTED}`;
  assertInactive(result, `pi-native-hooks is inactive: ${problem}`);
  assert.deepEqual(result.extensions, [join(copy, "bindings/extension/index.js")]);

  const cli = await run(process.execPath, [join(copy, "bin/pi-native-hooks.js"), "check"], { cwd: ROOT });
  assert.deepEqual([cli.code, cli.stdout, cli.stderr], [2, "", `pi-native-hooks: error: ${problem}\n`]);
});

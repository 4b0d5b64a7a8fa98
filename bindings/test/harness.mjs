// Shared end-to-end harness: the real Pi 1.6 runtime (createAgentSession) with the faux provider,
// this repository installed as a Pi package into a fake HOME, and throw-away git repositories.
// Import it before anything imports Pi: it isolates HOME and PI_CODING_AGENT_DIR first.
import { after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join, resolve } from "node:path";

export const PACKAGE = resolve(import.meta.dirname, "../..");

// The real user's files, by the OS user record (not $HOME): nothing below may change them.
const realHome = userInfo().homedir;
export const REAL_PATHS = [join(realHome, ".pi"), join(realHome, ".config", "pi-native-hooks")];
const stamp = (path) => (existsSync(path) ? statSync(path).mtimeMs : "absent");
export const realBefore = REAL_PATHS.map(stamp);
export const assertRealUntouched = () => assert.deepEqual(REAL_PATHS.map(stamp), realBefore);

export const ROOT = mkdtempSync(join(tmpdir(), "pi-native-hooks-e2e-"));
export const HOME = join(ROOT, "home");
export const AGENT_DIR = join(HOME, ".pi", "agent");
mkdirSync(HOME);
Object.assign(process.env, { HOME, PI_CODING_AGENT_DIR: AGENT_DIR, PI_OFFLINE: "1", PI_SKIP_VERSION_CHECK: "1", PI_TELEMETRY: "0" });
after(() => process.env.KEEP_E2E || rmSync(ROOT, { recursive: true, force: true }));

export const pi = await import("@earendil-works/pi-coding-agent");
const ai = await import("@earendil-works/pi-ai");
export const say = ai.fauxAssistantMessage;
export const call = ai.fauxToolCall;
export const toolUse = (...calls) => say(calls, { stopReason: "toolUse" });

/** `pi install <this package>` through Pi's own CLI, writing only into the fake HOME. */
export function installPackage() {
  const cli = join(PACKAGE, "node_modules/@earendil-works/pi-coding-agent/dist/cli.js");
  return execFileSync(process.execPath, [cli, "install", PACKAGE], { cwd: ROOT, encoding: "utf8" });
}

export const git = (cwd, ...args) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
  });

let repoCount = 0;
/** A new git repository with one commit; `files` maps paths to contents. */
export function newRepo(files = { "README.md": "# fixture\n" }) {
  const dir = join(ROOT, `repo-${++repoCount}`);
  mkdirSync(dir);
  git(dir, "init", "-q", "-b", "main");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    execFileSync("sh", ["-c", 'cat > "$1"', "sh", join(dir, path)], { input: text });
  }
  git(dir, "add", ".");
  git(dir, "commit", "-qm", "init");
  return dir;
}

/** Text of a message's content. */
export const text = (m) => (typeof m.content === "string" ? m.content : m.content.map((c) => c.text ?? "").join("\n"));

const { createPiNativeHooks } = await import("../extension/hooks.ts");
export { createPiNativeHooks };
export const newModelRuntime = () => pi.ModelRuntime.create({ credentials: new ai.InMemoryCredentialStore(), modelsPath: null });

/**
 * Starts a Pi session on `repo` with this extension built for `configRoot` (the test seam) and the
 * faux provider answering `responses` in order. Returns the session, what the model received on
 * each call (`contexts`), the UI calls, and the handler errors.
 */
export async function start({ repo, configRoot, responses = [], options = {}, sessionManager, sessionStartEvent, ui: withUI = true, extra = [] }) {
  const settingsManager = pi.SettingsManager.create(repo, AGENT_DIR, {});
  const resourceLoader = new pi.DefaultResourceLoader({
    cwd: repo,
    agentDir: AGENT_DIR,
    settingsManager,
    noExtensions: true,
    extensionFactories: [createPiNativeHooks({ configRoot, ...options }), ...extra],
  });
  await resourceLoader.reload();
  const modelRuntime = await newModelRuntime();
  const faux = ai.fauxProvider();
  modelRuntime.registerNativeProvider(faux.provider);
  const contexts = [];
  faux.setResponses(responses.map((r) => (ctx) => (contexts.push(structuredClone(ctx)), typeof r === "function" ? r(ctx) : r)));
  const { session } = await pi.createAgentSession({
    cwd: repo,
    agentDir: AGENT_DIR,
    modelRuntime,
    model: faux.getModel(),
    settingsManager,
    resourceLoader,
    sessionManager: sessionManager ?? pi.SessionManager.inMemory(repo),
    sessionStartEvent,
  });
  const ui = [];
  const errors = [];
  const confirmAnswers = [];
  await session.bindExtensions({
    uiContext: withUI
      ? {
          notify: (...a) => ui.push(["notify", ...a]),
          setStatus: (...a) => ui.push(["setStatus", ...a]),
          confirm: async (...a) => (ui.push(["confirm", ...a]), confirmAnswers.shift() ?? false),
        }
      : undefined,
    onError: (e) => errors.push(e),
  });
  return { session, faux, contexts, ui, errors, confirmAnswers };
}

/** The tool results the model received on its `n`-th call, as [id, isError, text]. */
export const toolResults = (context) =>
  context.messages.filter((m) => m.role === "toolResult").map((m) => [m.toolCallId, m.isError, text(m)]);

/** Runs a slash command and returns the notifications it showed. */
export async function command(started, line) {
  const before = started.ui.length;
  await started.session.prompt(line);
  return notes(started.ui.slice(before));
}

/** Notifications shown so far. */
export const notes = (ui) => ui.filter(([kind]) => kind === "notify").map(([, message]) => message);

/** The last footer text. */
export const footer = (ui) => ui.filter(([kind, key]) => kind === "setStatus" && key === "pi-native-hooks").at(-1)?.[2];

/** A config root with the built-in pack (as `pi-native-hooks init` creates it) plus `files`. */
export function configRoot(files = {}) {
  const root = join(ROOT, `config-${++repoCount}`, "pi-native-hooks");
  // The CLI `cargo test` built; `init` is the same code path as /hooks-init.
  execFileSync(join(PACKAGE, "target/debug/pi-native-hooks"), ["init", "--config", root], { encoding: "utf8" });
  for (const [path, body] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    execFileSync("sh", ["-c", 'cat > "$1" && chmod 600 "$1"', "sh", join(root, path)], { input: body });
  }
  return root;
}

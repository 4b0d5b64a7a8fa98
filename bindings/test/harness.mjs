// Shared end-to-end harness: the real Pi 1.6 runtime (createAgentSession) with the faux provider,
// this repository installed as a Pi package into a fake HOME, and throw-away git repositories.
// Import it before anything imports Pi: it isolates HOME and PI_CODING_AGENT_DIR first.
// After every test it checks that each session the test observed showed exactly the problems the
// test declared (none unless it called `expectProblems`): a handler failure cannot pass unseen.
import { after, afterEach } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join, resolve } from "node:path";
import { problems, recordingUI } from "./ui.mjs";

/**
 * @typedef {import("@earendil-works/pi-coding-agent").AgentSession} AgentSession
 * @typedef {import("@earendil-works/pi-coding-agent").ExtensionError} ExtensionError
 * @typedef {import("@earendil-works/pi-coding-agent").ExtensionFactory} ExtensionFactory
 * @typedef {import("@earendil-works/pi-coding-agent").SessionManager} SessionManager
 * @typedef {import("@earendil-works/pi-coding-agent").SessionStartEvent} SessionStartEvent
 * @typedef {import("@earendil-works/pi-ai").AssistantMessage} AssistantMessage
 * @typedef {import("@earendil-works/pi-ai").FauxProviderHandle} FauxProviderHandle
 * @typedef {import("@earendil-works/pi-ai").ToolCall} ToolCall
 * @typedef {import("@earendil-works/pi-ai").TranscriptContext} TranscriptContext
 * @typedef {import("../extension/hooks.ts").PiNativeHooksOptions} PiNativeHooksOptions
 * @typedef {import("./ui.mjs").UICall} UICall
 */

/**
 * What the faux model answers to one request: a message, or a function run when the request
 * arrives (to change files between waves) that returns it.
 * @typedef {AssistantMessage | ((context: TranscriptContext) => AssistantMessage)} Response
 */

/**
 * Anything with a message's `content`: the model's transcript messages, a session's messages.
 * @typedef {{ content: string | ReadonlyArray<{ type: string, text?: string }> }} WithContent
 */

export const PACKAGE = resolve(import.meta.dirname, "../..");

// The real user's files, by the OS user record (not $HOME): nothing below may change them.
const realHome = userInfo().homedir;
export const REAL_PATHS = [join(realHome, ".pi"), join(realHome, ".config", "pi-native-hooks")];
/** @param {string} path @returns {number | "absent"} */
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
/** An assistant message that calls `calls` (one wave). @param {...ToolCall} calls */
export const toolUse = (...calls) => say(calls, { stopReason: "toolUse" });

/** `pi install <this package>` through Pi's own CLI, writing only into the fake HOME. */
export function installPackage() {
  const cli = join(PACKAGE, "node_modules/@earendil-works/pi-coding-agent/dist/cli.js");
  return execFileSync(process.execPath, [cli, "install", PACKAGE], { cwd: ROOT, encoding: "utf8" });
}

/** Runs git in `cwd` with a fixed identity and no user or system config. @param {string} cwd @param {...string} args */
export const git = (cwd, ...args) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
  });

let repoCount = 0;
/**
 * A new git repository with one commit; `files` maps paths to contents.
 * @param {Record<string, string>} [files]
 * @returns {string} its directory
 */
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

/** Text of a message's content. @param {WithContent} m @returns {string} */
export const text = (m) => (typeof m.content === "string" ? m.content : m.content.map((c) => c.text ?? "").join("\n"));

const { createPiNativeHooks } = await import("../extension/hooks.ts");
export { createPiNativeHooks };
export const newModelRuntime = () => pi.ModelRuntime.create({ credentials: new ai.InMemoryCredentialStore(), modelsPath: null });

/**
 * @typedef {object} StartOptions
 * @property {string} repo the session's working directory
 * @property {string} configRoot the config root the extension loads
 * @property {Response[]} [responses] the faux model's answers, in order
 * @property {Omit<PiNativeHooksOptions, "configRoot">} [options] the extension's other options
 * @property {SessionManager} [sessionManager] default: an in-memory session on `repo`
 * @property {SessionStartEvent} [sessionStartEvent] default: Pi's (a fresh start)
 * @property {boolean} [ui] bind a (recording) UI; default true
 * @property {ExtensionFactory[]} [extra] more extensions, loaded after this one
 * @property {boolean} [awaitStart] wait for the extension's start, which Pi does not wait for at
 *   its own start; default true (false: the test acts while the engine session still opens)
 */

/**
 * What a test observes of a session's extensions, and the problems it expects of them.
 * @typedef {object} Watched
 * @property {UICall[]} ui the UI calls, in order
 * @property {ExtensionError[]} piErrors what Pi's `onError` reported: exceptions that escaped a
 *   handler. The extension's guard catches its own, so a test asserts `problems` (which include
 *   these), never this list alone.
 * @property {boolean[]} confirmAnswers what the next `confirm` calls answer (false once empty)
 * @property {string[]} expectedProblems what `problems` must be at the end of the test
 */

/**
 * A started session and what the test observes of it.
 * @typedef {Watched & { session: AgentSession, faux: FauxProviderHandle, contexts: TranscriptContext[] }} Started
 * `contexts`: what the model received on each call, in order.
 */

/** @type {Watched[]} the sessions observed by the running test */
let watched = [];

/**
 * A new record of what a session's extensions do, checked after the test: bind the session with
 * {@link bindingsOf}. `start` makes one; a test that builds its own session runtime uses this.
 * @returns {Watched}
 */
export function watch() {
  /** @type {Watched} */
  const record = { ui: [], piErrors: [], confirmAnswers: [], expectedProblems: [] };
  watched.push(record);
  return record;
}

/**
 * The `bindExtensions` options that record into `record`: the recording UI (unless `withUI` is
 * false: Pi then drops notifications and footers, and only `onError` is observed) and `onError`.
 * @param {Watched} record
 * @param {boolean} [withUI]
 */
export const bindingsOf = (record, withUI = true) => ({
  uiContext: withUI ? recordingUI(record.ui, record.confirmAnswers) : undefined,
  /** @param {ExtensionError} error */
  onError: (error) => record.piErrors.push(error),
});

/**
 * Asserts that the session showed exactly `expected` so far (see `problems` in ui.mjs for their
 * form) and that nothing else appears before the test ends.
 * @param {Watched} record
 * @param {string[]} expected
 */
export function expectProblems(record, expected) {
  assert.deepEqual(problems(record), expected);
  record.expectedProblems = expected;
}

/** Asserts that the session showed no problem so far (and, after the test, none at all). @param {Watched} record */
export const assertNoProblems = (record) => expectProblems(record, []);

afterEach(() => {
  const records = watched;
  watched = [];
  for (const record of records) {
    const shown = problems(record);
    assert.deepEqual(
      shown,
      record.expectedProblems,
      `a session of this test showed problems other than the ${record.expectedProblems.length} it expects:\n` +
        `shown:\n${shown.map((p) => `  ${p}`).join("\n") || "  (none)"}\nexpected:\n${record.expectedProblems.map((p) => `  ${p}`).join("\n") || "  (none)"}`,
    );
  }
});

/**
 * Starts a Pi session on `repo` with this extension built for `configRoot` (the test seam) and the
 * faux provider answering `responses` in order. Returns the session, what the model received on
 * each call (`contexts`), and what it watches (the UI calls, Pi's `onError` reports), which the
 * harness checks after the test.
 * @param {StartOptions} options
 * @returns {Promise<Started>}
 */
export async function start({ repo, configRoot, responses = [], options = {}, sessionManager, sessionStartEvent, ui: withUI = true, extra = [], awaitStart = true }) {
  /** @type {Promise<void>[]} the extension's session starts that Pi does not wait for */
  const starts = [];
  const settingsManager = pi.SettingsManager.create(repo, AGENT_DIR, {});
  const resourceLoader = new pi.DefaultResourceLoader({
    cwd: repo,
    agentDir: AGENT_DIR,
    settingsManager,
    noExtensions: true,
    extensionFactories: [createPiNativeHooks({ configRoot, started: (s) => starts.push(s), ...options }), ...extra],
  });
  await resourceLoader.reload();
  const modelRuntime = await newModelRuntime();
  const faux = ai.fauxProvider();
  modelRuntime.registerNativeProvider(faux.provider);
  /** @type {TranscriptContext[]} */
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
  const record = watch();
  await session.bindExtensions(bindingsOf(record, withUI));
  if (awaitStart) await Promise.all(starts);
  // The record itself, so `expectProblems` on the result sets what the check after the test reads.
  return Object.assign(record, { session, faux, contexts });
}

/**
 * The tool results the model received in one request, as [id, isError, text].
 * @param {TranscriptContext} context
 * @returns {[string, boolean, string][]}
 */
export const toolResults = (context) =>
  context.messages.filter((m) => m.role === "toolResult").map((m) => [m.toolCallId, m.isError, text(m)]);

/**
 * The locations (`path:line:column`) a diagnostic block in `text` lists under the header of
 * `rule`, in the order listed: the space-separated lists and the lines with a message of their own.
 * @param {string} text
 * @param {string} rule
 * @returns {string[]}
 */
export function listedLocations(text, rule) {
  const found = [];
  let current = false;
  const lines = text.split("\n");
  const start = lines.findIndex((line) => line.startsWith("[pi-native-hooks]"));
  for (const line of start < 0 ? [] : lines.slice(start + 1)) {
    if (!line.startsWith(" ")) {
      current = line.startsWith(`${rule} (`);
      continue;
    }
    const body = line.trimStart();
    if (!current || body.startsWith("Fix:") || body.startsWith("To keep")) continue;
    const own = body.indexOf(": ");
    if (own >= 0) found.push(body.slice(0, own));
    else found.push(...body.split(" "));
  }
  return found;
}

/**
 * A session and the UI calls it made: what `command` needs.
 * @typedef {{ session: AgentSession, ui: UICall[] }} Observed
 */

/**
 * Runs a slash command and returns the notifications it showed.
 * @param {Observed} started
 * @param {string} line
 * @returns {Promise<string[]>}
 */
export async function command(started, line) {
  const before = started.ui.length;
  await started.session.prompt(line);
  return notes(started.ui.slice(before));
}

/** Notifications shown so far. @param {UICall[]} ui @returns {string[]} */
export const notes = (ui) => ui.filter(([kind]) => kind === "notify").map(([, message]) => message);

/** The last footer text. @param {UICall[]} ui @returns {string | undefined} */
export const footer = (ui) => ui.filter(([kind, key]) => kind === "setStatus" && key === "pi-native-hooks").at(-1)?.[2];

/**
 * A config root with the built-in pack (as `pi-native-hooks init` creates it) plus `files`.
 * @param {Record<string, string>} [files] paths under the root, and their contents
 * @returns {string} the root
 */
export function configRoot(files = {}) {
  const root = join(ROOT, `config-${++repoCount}`, "pi-native-hooks");
  // The CLI binary `scripts/test` builds (`cargo build -p pi-native-hooks-cli`); `init` is the same
  // code path as /hooks-init.
  execFileSync(join(PACKAGE, "target/debug/pi-native-hooks"), ["init", "--config", root], { encoding: "utf8" });
  for (const [path, body] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    execFileSync("sh", ["-c", 'cat > "$1" && chmod 600 "$1"', "sh", join(root, path)], { input: body });
  }
  return root;
}

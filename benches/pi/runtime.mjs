// What the benches on the real Pi runtime share: a throw-away fake HOME (set before Pi loads, so
// the real ~/.pi and ~/.config/pi-native-hooks are never read or written), git without the user's
// configuration, the stopwatch extension that times a wave inside Pi, and a session of the real
// runtime with the faux provider.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const PACKAGE = resolve(import.meta.dirname, "../..");

/**
 * A temporary folder for a bench named `name`, with the fake HOME and Pi's agent directory below
 * it set in this process's environment.
 * @param {string} name
 */
export function benchRoot(name) {
  const root = mkdtempSync(join(tmpdir(), `pi-native-hooks-${name}-`));
  const home = join(root, "home");
  mkdirSync(home);
  const agentDir = join(home, ".pi", "agent");
  Object.assign(process.env, { HOME: home, PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1", PI_SKIP_VERSION_CHECK: "1", PI_TELEMETRY: "0" });
  return { root, agentDir };
}

/** Runs git in `cwd` without the user's or the system's configuration. */
export const git = (cwd, ...args) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
    cwd,
    env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
  });

/**
 * Times each wave inside Pi, in every variant alike: from the assistant message that lists the
 * tool calls (message_end) to the end of the last call (tool_execution_end), which includes the
 * extension's tool_call and tool_result handlers (the result waits for the wave's analysis).
 */
export const stopwatch = { start: 0, end: 0 };
export const stopwatchExtension = (api) => {
  api.on("message_end", (event) => {
    if (event.message.role === "assistant" && event.message.content.some((c) => c.type === "toolCall")) stopwatch.start = performance.now();
  });
  api.on("tool_execution_end", () => {
    stopwatch.end = performance.now();
  });
};

/**
 * A session of the real Pi runtime in `repo` with the faux provider and the stopwatch, loading
 * `extensions` (factories) and the extension files `extensionPaths` (as Pi loads an installed
 * package's, through its TypeScript loader) and nothing else; a handler error fails the bench.
 * @param {string} repo
 * @param {string} agentDir
 * @param {Array<(api: any) => void>} extensions
 * @param {string[]} [extensionPaths]
 */
export async function openSession(repo, agentDir, extensions, extensionPaths = []) {
  const pi = await import("@earendil-works/pi-coding-agent");
  const ai = await import("@earendil-works/pi-ai");
  const settingsManager = pi.SettingsManager.create(repo, agentDir, {});
  const resourceLoader = new pi.DefaultResourceLoader({
    cwd: repo,
    agentDir,
    settingsManager,
    noExtensions: true,
    noSkills: true,
    additionalExtensionPaths: extensionPaths,
    extensionFactories: [stopwatchExtension, ...extensions],
  });
  await resourceLoader.reload();
  const modelRuntime = await pi.ModelRuntime.create({ credentials: new ai.InMemoryCredentialStore(), modelsPath: null });
  const faux = ai.fauxProvider();
  modelRuntime.registerNativeProvider(faux.provider);
  const { session } = await pi.createAgentSession({
    cwd: repo, agentDir, modelRuntime, model: faux.getModel(), settingsManager, resourceLoader,
    sessionManager: pi.SessionManager.inMemory(repo),
  });
  await session.bindExtensions({ onError: (e) => { throw new Error(`handler error: ${e.error}`); } });
  return { session, faux };
}

/** The median of `values`. @param {number[]} values */
export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

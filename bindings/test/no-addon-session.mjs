// Child process of registry.test.mjs: one Pi session (real runtime, faux provider) in the repository
// argv[2], loading the packages its fake agent directory's settings list, exactly as Pi loads them,
// with the UI calls recorded. The parent sets HOME and PI_CODING_AGENT_DIR. With SIMULATE_ARCH set,
// `process.arch` reports that architecture before anything is loaded, so napi's loader and the
// extension see an unsupported platform — a simulation only this test script makes; the package has
// no such switch. Prints one JSON line: load errors, UI calls, the reply and the handler errors.
// (ui.mjs loads nothing: importing it first, as ES modules do, leaves the simulation in force.)
import { recordingUI } from "./ui.mjs";

if (process.env.SIMULATE_ARCH) Object.defineProperty(process, "arch", { value: process.env.SIMULATE_ARCH });

/**
 * What this script prints, for registry.test.mjs.
 * @typedef {object} SessionReport
 * @property {string[]} extensions the paths of the extensions Pi loaded
 * @property {string[]} loadErrors the errors of the extensions that did not load
 * @property {import("./ui.mjs").UICall[]} ui the UI calls, in order
 * @property {string[]} reply the text of each assistant message
 * @property {string[]} handlerErrors the extension handlers' errors
 */

const [repo] = process.argv.slice(2);
const agentDir = process.env.PI_CODING_AGENT_DIR;
if (!repo || !agentDir) throw new Error("usage: PI_CODING_AGENT_DIR=<dir> node no-addon-session.mjs <repository>");
const pi = await import("@earendil-works/pi-coding-agent");
const ai = await import("@earendil-works/pi-ai");

const settingsManager = pi.SettingsManager.create(repo, agentDir, {});
const resourceLoader = new pi.DefaultResourceLoader({ cwd: repo, agentDir, settingsManager });
await resourceLoader.reload();
const { extensions, errors: loadErrors } = resourceLoader.getExtensions();

const modelRuntime = await pi.ModelRuntime.create({ credentials: new ai.InMemoryCredentialStore(), modelsPath: null });
const faux = ai.fauxProvider();
modelRuntime.registerNativeProvider(faux.provider);
faux.setResponses([ai.fauxAssistantMessage("still here")]);
const { session } = await pi.createAgentSession({
  cwd: repo,
  agentDir,
  modelRuntime,
  model: faux.getModel(),
  settingsManager,
  resourceLoader,
  sessionManager: pi.SessionManager.inMemory(repo),
});
/** @type {import("./ui.mjs").UICall[]} */
const ui = [];
/** @type {string[]} */
const handlerErrors = [];
await session.bindExtensions({
  uiContext: recordingUI(ui),
  onError: (e) => handlerErrors.push(String(e?.error ?? e)),
});
await session.prompt("hello");
const reply = session.messages.filter((m) => m.role === "assistant").map((m) => m.content.map((c) => (c.type === "text" ? c.text : "")).join(""));
await session.prompt("/hooks-status");
session.dispose();
/** @type {SessionReport} */
const report = {
  extensions: extensions.map((e) => e.path),
  loadErrors: loadErrors.map((e) => e.error),
  ui,
  reply,
  handlerErrors,
};
process.stdout.write(`${JSON.stringify(report)}\n`);

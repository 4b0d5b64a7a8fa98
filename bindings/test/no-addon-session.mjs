// Child process of registry.test.mjs: one Pi session (real runtime, faux provider) in the repository
// argv[2], loading the packages its fake agent directory's settings list, exactly as Pi loads them,
// with the UI calls recorded. The parent sets HOME and PI_CODING_AGENT_DIR. With SIMULATE_ARCH set,
// `process.arch` reports that architecture before anything is loaded, so napi's loader and the
// extension see an unsupported platform — a simulation only this test script makes; the package has
// no such switch. Prints one JSON line: load errors, UI calls, the reply and the handler errors.
if (process.env.SIMULATE_ARCH) Object.defineProperty(process, "arch", { value: process.env.SIMULATE_ARCH });

const [repo] = process.argv.slice(2);
const agentDir = process.env.PI_CODING_AGENT_DIR;
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
const ui = [];
const handlerErrors = [];
await session.bindExtensions({
  uiContext: { notify: (...a) => ui.push(["notify", ...a]), setStatus: (...a) => ui.push(["setStatus", ...a]), confirm: async () => false },
  onError: (e) => handlerErrors.push(String(e?.error ?? e)),
});
await session.prompt("hello");
const reply = session.messages.filter((m) => m.role === "assistant").map((m) => m.content.map((c) => c.text ?? "").join(""));
await session.prompt("/hooks-status");
session.dispose();
process.stdout.write(
  `${JSON.stringify({
    extensions: extensions.map((e) => e.path),
    loadErrors: loadErrors.map((e) => e.error),
    ui,
    reply,
    handlerErrors,
  })}\n`,
);

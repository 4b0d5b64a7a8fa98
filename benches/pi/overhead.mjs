// Measures, on the real Pi 1.6 runtime, the time the pi-native-hooks extension adds to a wave:
// a one-file TypeScript `write` wave and a read-only `read` wave, each against the same scenario
// without the extension, interleaved in the same run. Run from the repository root after the
// set-up (`./scripts/test` builds the addon):
//
//   . scripts/provision.sh && node benches/pi/overhead.mjs [iterations]
//
// It runs in a throw-away fake HOME and config root; the real ~/.pi and
// ~/.config/pi-native-hooks are never read or written.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const PACKAGE = resolve(import.meta.dirname, "../..");
const ITERATIONS = Number(process.argv[2] ?? 150);
const ROOT = mkdtempSync(join(tmpdir(), "pi-native-hooks-overhead-"));
const HOME = join(ROOT, "home");
const AGENT_DIR = join(HOME, ".pi", "agent");
mkdirSync(HOME);
Object.assign(process.env, { HOME, PI_CODING_AGENT_DIR: AGENT_DIR, PI_OFFLINE: "1", PI_SKIP_VERSION_CHECK: "1", PI_TELEMETRY: "0" });

const pi = await import("@earendil-works/pi-coding-agent");
const ai = await import("@earendil-works/pi-ai");
const { createPiNativeHooks } = await import("../../bindings/extension/hooks.ts");

const git = (cwd, ...args) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
    cwd,
    env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
  });

// A small repository: 40 TypeScript files and a README.
const repo = join(ROOT, "repo");
mkdirSync(join(repo, "src"), { recursive: true });
git(repo, "init", "-q", "-b", "main");
for (let i = 0; i < 40; i++) {
  writeFileSync(join(repo, "src", `m${i}.ts`), `export function f${i}(x: number): number {\n  return x + ${i};\n}\n`.repeat(20));
}
writeFileSync(join(repo, "README.md"), "# bench\n");
git(repo, "add", ".");
git(repo, "commit", "-qm", "init");

const configRoot = join(ROOT, "config", "pi-native-hooks");
execFileSync(join(PACKAGE, "target/debug/pi-native-hooks"), ["init", "--config", configRoot]);

async function open(withHooks) {
  const settingsManager = pi.SettingsManager.create(repo, AGENT_DIR, {});
  const resourceLoader = new pi.DefaultResourceLoader({
    cwd: repo,
    agentDir: AGENT_DIR,
    settingsManager,
    noExtensions: true,
    noSkills: true,
    extensionFactories: withHooks ? [createPiNativeHooks({ configRoot })] : [],
  });
  await resourceLoader.reload();
  const modelRuntime = await pi.ModelRuntime.create({ credentials: new ai.InMemoryCredentialStore(), modelsPath: null });
  const faux = ai.fauxProvider();
  modelRuntime.registerNativeProvider(faux.provider);
  const { session } = await pi.createAgentSession({
    cwd: repo, agentDir: AGENT_DIR, modelRuntime, model: faux.getModel(), settingsManager, resourceLoader,
    sessionManager: pi.SessionManager.inMemory(repo),
  });
  await session.bindExtensions({ onError: (e) => { throw new Error(`handler error: ${e.error}`); } });
  return { session, faux };
}

let counter = 0;
const waves = {
  // A one-file TS write (new content every time, so it is analyzed and snapshotted for real).
  write: () => ai.fauxToolCall("write", { path: "src/edited.ts", content: `export const v${++counter} = ${counter};\n` }),
  read: () => ai.fauxToolCall("read", { path: "README.md" }),
};

async function timeWave({ session, faux }, kind) {
  faux.setResponses([ai.fauxAssistantMessage([waves[kind]()], { stopReason: "toolUse" }), ai.fauxAssistantMessage("done")]);
  const started = process.hrtime.bigint();
  await session.prompt("go");
  return Number(process.hrtime.bigint() - started) / 1e6;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

const sessions = { with: await open(true), without: await open(false) };
const samples = { write: { with: [], without: [] }, read: { with: [], without: [] } };
for (let i = 0; i < ITERATIONS + 10; i++) {
  for (const kind of ["write", "read"]) {
    // Alternate the order so drift and warm-up hit both sides alike; the first 10 are warm-up.
    const order = i % 2 === 0 ? ["with", "without"] : ["without", "with"];
    for (const side of order) {
      const ms = await timeWave(sessions[side], kind);
      if (i >= 10) samples[kind][side].push(ms);
    }
  }
}

console.log(`pi-native-hooks overhead on the real Pi runtime (${ITERATIONS} waves each, medians, same run)`);
console.log("wave              without      with     added   target");
for (const [kind, target] of [["read", 0.5], ["write", 5]]) {
  const without = median(samples[kind].without);
  const withHooks = median(samples[kind].with);
  const added = withHooks - without;
  const verdict = added < target ? "met" : "MISSED";
  console.log(
    `${kind.padEnd(14)} ${without.toFixed(3).padStart(8)} ms ${withHooks.toFixed(3).padStart(7)} ms ${added.toFixed(3).padStart(7)} ms   < ${target} ms: ${verdict}`,
  );
}
for (const { session } of Object.values(sessions)) session.dispose();
rmSync(ROOT, { recursive: true, force: true });

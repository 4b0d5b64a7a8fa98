// Measures, on the real Pi 1.6 runtime, the time the pi-native-hooks extension adds to a wave:
// a one-file TypeScript `write` wave and a read-only `read` wave (each a whole prompt: the tool
// call, two model turns and the settle), against the same scenario without the extension and with
// an extension that subscribes the same events with empty handlers (Pi's own dispatch cost), all
// interleaved in the same run. Run from the repository root after the
// set-up (`./scripts/test` builds the addon):
//
//   . scripts/provision.sh && node benches/pi/overhead.mjs [iterations]
//
// It runs in a throw-away fake HOME and config root; the real ~/.pi and
// ~/.config/pi-native-hooks are never read or written.
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE, benchRoot, git, median, openSession, stopwatch } from "./runtime.mjs";

const ITERATIONS = Number(process.argv[2] ?? 150);
// Before Pi loads: it reads HOME when it is imported.
const { root: ROOT, agentDir: AGENT_DIR } = benchRoot("overhead");

const ai = await import("@earendil-works/pi-ai");
const { createPiNativeHooks } = await import("../../bindings/extension/hooks.ts");

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

// The same events subscribed with empty handlers: what Pi's own event dispatch costs, so the
// report can tell it apart from the engine's share.
const EVENTS = ["session_start", "session_tree", "session_shutdown", "turn_start", "agent_end", "message_end", "tool_execution_start",
  "tool_call", "tool_result", "tool_execution_end", "agent_before_settle", "context"];
const emptyHandlers = (pi) => {
  for (const event of EVENTS) pi.on(event, () => undefined);
};

const open = (variant) =>
  openSession(repo, AGENT_DIR, { with: [createPiNativeHooks({ configRoot })], empty: [emptyHandlers], without: [] }[variant]);

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
  return { prompt: Number(process.hrtime.bigint() - started) / 1e6, wave: stopwatch.end - stopwatch.start };
}

const VARIANTS = ["without", "empty", "with"];
const sessions = Object.fromEntries(await Promise.all(VARIANTS.map(async (v) => [v, await open(v)])));
const samples = {};
for (const measure of ["wave", "prompt"]) {
  for (const kind of ["write", "read"]) samples[`${kind} ${measure}`] = { with: [], empty: [], without: [] };
}
for (let i = 0; i < ITERATIONS + 10; i++) {
  for (const kind of ["write", "read"]) {
    // Rotate the order so drift and warm-up hit every variant alike; the first 10 are warm-up.
    const order = VARIANTS.map((_, k) => VARIANTS[(i + k) % VARIANTS.length]);
    for (const side of order) {
      const times = await timeWave(sessions[side], kind);
      if (i >= 10) {
        samples[`${kind} wave`][side].push(times.wave);
        samples[`${kind} prompt`][side].push(times.prompt);
      }
    }
  }
}

console.log(`pi-native-hooks overhead on the real Pi runtime (${ITERATIONS} of each, medians, same run)`);
console.log("the wave: message_end to the last tool_execution_end; the prompt: two model turns and the settle");
console.log("measure           without  empty handlers     with     added  (of which Pi's dispatch)   target");
const ms = (value) => `${value.toFixed(3).padStart(7)} ms`;
const rows = [];
for (const [name, label, target] of [
  ["read wave", "read-only wave (`read`)", 0.5],
  ["write wave", "one-file TS `write` wave", 5],
  ["read prompt", "whole prompt, `read`"],
  ["write prompt", "whole prompt, `write`"],
]) {
  const [without, empty, withHooks] = VARIANTS.map((v) => median(samples[name][v]));
  const added = withHooks - without;
  const met = added < target;
  const verdict = target === undefined ? "" : `< ${target} ms: ${met ? "met" : "MISSED"}`;
  console.log(`${name.padEnd(13)} ${ms(without)} ${ms(empty)}      ${ms(withHooks)} ${ms(added)}  (${ms(empty - without)})   ${verdict}`);
  const cell = (value) => `${value.toFixed(3)} ms`;
  const mdVerdict = target === undefined ? "—" : `< ${target} ms: ${met ? "met" : "**missed**"}`;
  rows.push(`| ${label} | ${cell(without)} | ${cell(empty)} | ${cell(withHooks)} | ${cell(added)} | ${mdVerdict} |`);
}
// scripts/bench-figures asks for the Markdown table docs/performance.md shows.
if (process.env.FIGURES_OUT) {
  const table = [
    `${ITERATIONS} of each variant, interleaved, medians:`,
    "",
    "| measure | without | empty handlers | with | added | target |",
    "| --- | ---: | ---: | ---: | ---: | --- |",
    ...rows,
    "",
  ].join("\n");
  writeFileSync(join(process.env.FIGURES_OUT, "pi-overhead.md"), table);
}
for (const { session } of Object.values(sessions)) session.dispose();
rmSync(ROOT, { recursive: true, force: true });

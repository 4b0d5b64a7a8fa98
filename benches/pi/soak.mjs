// A long session on the real Pi 1.6 runtime: one prompt of many waves (1,500 by default) over a
// 50-file repository — rotating one-file `write`s that add and remove a finding, a two-file
// parallel write every 7th wave, a `bash` call every 10th — with and without the extension, each
// run in a process of its own (so its RSS is its own), the variants interleaved. It reports how long
// a session takes to be ready, the median time between model requests early (waves 50–150) and
// late (the last 100), and the process's RSS at waves 100, 750 and the last. The time until a
// session is ready is also taken from 10 processes of each variant that only open the session.
// Run from the repository root after the set-up (`./scripts/test` builds the addon and the
// extension's JavaScript):
//
//   . scripts/provision.sh && node benches/pi/soak.mjs [waves] [runs]
//
// Each run uses a throw-away fake HOME and config root; the real ~/.pi and
// ~/.config/pi-native-hooks are never read or written.
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE, benchRoot, git, median, openSession } from "./runtime.mjs";

const [, , wavesArg, runsArg, child, readyOnly] = process.argv;
const WAVES = Number(wavesArg ?? 1500);
const RUNS = Number(runsArg ?? 6);
/** Processes of each variant that only time the session's start (the issue asks for a median of 10). */
const READY_RUNS = 10;
const FILES = 50;

if (child) {
  await runOnce(child);
} else {
  await orchestrate();
}

/** One run in this process: `variant` is `with` or `without`; prints one JSON line. With
 *  `readyOnly`, it only opens the session. */
async function runOnce(variant) {
  const { root, agentDir } = benchRoot("soak");
  const ai = await import("@earendil-works/pi-ai");
  // Pi's own modules load before the clock starts, in both variants alike.
  await import("@earendil-works/pi-coding-agent");
  const repo = join(root, "repo");
  mkdirSync(join(repo, "src"), { recursive: true });
  git(repo, "init", "-q", "-b", "main");
  for (let i = 0; i < FILES; i++) writeFileSync(join(repo, "src", `m${i}.ts`), source(i, 0));
  git(repo, "add", ".");
  git(repo, "commit", "-qm", "init");
  const configRoot = join(root, "config", "pi-native-hooks");
  execFileSync(join(PACKAGE, "target/debug/pi-native-hooks"), ["init", "--config", configRoot]);

  // The extension loads as Pi loads an installed one (the package's JavaScript through Pi's loader,
  // then the addon), from a file that gives it this run's config root.
  const extension = join(root, "extension.mjs");
  const hooks = join(PACKAGE, "bindings/extension/hooks.js");
  writeFileSync(extension, `import { createPiNativeHooks } from ${JSON.stringify(hooks)};\nexport default createPiNativeHooks({ configRoot: ${JSON.stringify(configRoot)} });\n`);
  const opening = performance.now();
  const { session, faux } = await openSession(repo, agentDir, [], variant === "with" ? [extension] : []);
  const ready = performance.now() - opening;
  if (readyOnly) {
    session.dispose();
    rmSync(root, { recursive: true, force: true });
    console.log(JSON.stringify({ variant, ready }));
    return;
  }

  const requests = [];
  const rss = {};
  const record = (wave) => {
    requests.push(performance.now());
    if (wave === 100 || wave === Math.floor(WAVES / 2) || wave === WAVES) rss[wave] = process.memoryUsage().rss;
  };
  const responses = [];
  for (let wave = 1; wave <= WAVES; wave++) {
    responses.push(() => {
      record(wave);
      return ai.fauxAssistantMessage(calls(ai, wave), { stopReason: "toolUse" });
    });
  }
  responses.push(() => {
    record(WAVES + 1);
    return ai.fauxAssistantMessage("done");
  });
  faux.setResponses(responses);
  await session.prompt("go");
  if (faux.state.callCount !== WAVES + 1) throw new Error(`${faux.state.callCount} model requests, expected ${WAVES + 1}`);
  session.dispose();
  rmSync(root, { recursive: true, force: true });
  // The time between request k and k+1 is wave k's: its tool calls and the hooks around them.
  const gaps = requests.slice(1).map((t, k) => t - requests[k]);
  console.log(JSON.stringify({ variant, ready, early: median(gaps.slice(49, 150)), late: median(gaps.slice(-100)), rss }));
}

/** A module whose second line has a non-null assertion (a finding) on odd `version`s. */
function source(i, version) {
  const value = version % 2 === 1 ? 'm.get("a")!' : 'm.get("a") ?? 0';
  return `declare const m: Map<string, number>;\nexport const v${i} = ${value};\nexport const w${i} = ${version};\n`;
}

/** The tool calls of `wave`: a bash call every 10th, two parallel writes every 7th, else one write. */
function calls(ai, wave) {
  if (wave % 10 === 0) return [ai.fauxToolCall("bash", { command: "true" })];
  const write = (i) => ai.fauxToolCall("write", { path: `src/m${i % FILES}.ts`, content: source(i % FILES, wave) });
  return wave % 7 === 0 ? [write(wave), write(wave + 25)] : [write(wave)];
}

/** Runs `RUNS` of each variant, interleaved, each in a fresh process, and reports the medians. */
async function orchestrate() {
  const results = { with: [], without: [] };
  const ready = { with: [], without: [] };
  /** @param {string} variant @param {string[]} extra */
  const child = (variant, extra) => {
    const out = execFileSync(process.execPath, [import.meta.filename, String(WAVES), String(RUNS), variant, ...extra], { encoding: "utf8", maxBuffer: 1 << 20 });
    return JSON.parse(out.trim().split("\n").at(-1) ?? "{}");
  };
  for (let run = 0; run < READY_RUNS; run++) {
    for (const variant of run % 2 === 0 ? ["without", "with"] : ["with", "without"]) ready[variant].push(child(variant, ["ready"]).ready);
  }
  for (let run = 0; run < RUNS; run++) {
    for (const variant of run % 2 === 0 ? ["without", "with"] : ["with", "without"]) results[variant].push(child(variant, []));
  }
  const mid = Math.floor(WAVES / 2);
  const mib = (bytes) => bytes / (1024 * 1024);
  /** A measure of the full runs: the median over a variant's runs of `pick`. */
  const full = (pick) => (variant) => median(results[variant].map(pick));
  const rows = [
    [`session ready (${READY_RUNS} processes each)`, (variant) => median(ready[variant]), "ms"],
    ["median between requests, waves 50–150", full((r) => r.early), "ms"],
    ["median between requests, last 100 waves", full((r) => r.late), "ms"],
    ["RSS at wave 100", full((r) => mib(r.rss[100])), "MiB"],
    [`RSS growth, wave ${mid} → ${WAVES}`, full((r) => mib(r.rss[WAVES] - r.rss[mid])), "MiB"],
  ].map(([label, value, unit]) => {
    const without = value("without");
    const withHooks = value("with");
    return { label, without, with: withHooks, added: withHooks - without, unit };
  });
  const fmt = (value, unit) => `${value.toFixed(1)} ${unit}`;
  console.log(`a ${WAVES}-wave prompt on the real Pi runtime (${RUNS} runs of each variant, each in its own process, medians)`);
  for (const row of rows) console.log(`${row.label.padEnd(42)} without ${fmt(row.without, row.unit).padStart(10)}  with ${fmt(row.with, row.unit).padStart(10)}  added ${fmt(row.added, row.unit).padStart(10)}`);
  if (process.env.FIGURES_OUT) {
    const table = [
      `${RUNS} runs of each variant, each in its own process, interleaved; medians over the runs:`,
      "",
      "| measure | without the extension | with it | added |",
      "| --- | ---: | ---: | ---: |",
      ...rows.map((row) => `| ${row.label} | ${fmt(row.without, row.unit)} | ${fmt(row.with, row.unit)} | ${fmt(row.added, row.unit)} |`),
      "",
    ].join("\n");
    writeFileSync(join(process.env.FIGURES_OUT, "pi-soak.md"), table);
  }
}

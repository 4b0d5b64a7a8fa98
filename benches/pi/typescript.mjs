// Measures, on the real Pi 1.6 runtime, what the type check adds to a one-file TypeScript `write`
// wave, with the project's own TypeScript 7 (its `tsc --lsp`) and TypeScript 5 (its tsserver,
// through the typescript-language-server the package depends on): the same wave without the
// extension, with it and the type check off (`[typescript] enabled = false`, the rules alone) and
// with it on (the default), all interleaved in the same run. The wave alternates a clean write and
// one that introduces a type error (listed in its block); a second file imports the written one,
// so each wave also re-checks a dependent. Each variant has a repository of its own. The first wave of each session (the server's cold
// start) is reported apart. Run from the repository root after the set-up (`./scripts/test`
// builds the addon):
//
//   . scripts/provision.sh && node benches/pi/typescript.mjs [iterations]
//
// It runs in a throw-away fake HOME and config root; the real ~/.pi and
// ~/.config/pi-native-hooks are never read or written.
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE, benchRoot, git, median, openSession, stopwatch } from "./runtime.mjs";

const ITERATIONS = Number(process.argv[2] ?? 60);
const WARM_UP = 5;
// Before Pi loads: it reads HOME when it is imported.
const { root: ROOT, agentDir: AGENT_DIR } = benchRoot("typescript");

const ai = await import("@earendil-works/pi-ai");
const { createPiNativeHooks } = await import("../../bindings/extension/hooks.ts");

const SERVERS = [
  { name: "TypeScript 7.0.2", modules: process.env.PI_NATIVE_HOOKS_TS7_MODULES ?? join(PACKAGE, "tests/typescript-servers/ts7/node_modules") },
  { name: "TypeScript 5.9.3", modules: process.env.PI_NATIVE_HOOKS_TS5_MODULES ?? join(PACKAGE, "tests/typescript-servers/ts5/node_modules") },
];

/** A strict project of 40 modules, `src/edited.ts` and its importer, with `modules`' TypeScript. */
function project(name, modules) {
  const repo = join(ROOT, name);
  mkdirSync(join(repo, "src"), { recursive: true });
  git(repo, "init", "-q", "-b", "main");
  writeFileSync(join(repo, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, target: "es2022", module: "nodenext", noEmit: true }, include: ["src"] }));
  writeFileSync(join(repo, "package.json"), '{ "type": "module" }\n');
  writeFileSync(join(repo, ".gitignore"), "node_modules\n");
  for (let i = 0; i < 40; i++) {
    writeFileSync(join(repo, "src", `m${i}.ts`), `export function f${i}(x: number): number {\n  return x + ${i};\n}\n`.repeat(20).replaceAll(`f${i}(`, () => `f${i}_${Math.random().toString(36).slice(2, 8)}(`));
  }
  writeFileSync(join(repo, "src", "edited.ts"), "export const v: number = 0;\n");
  writeFileSync(join(repo, "src", "consumer.ts"), 'import { v } from "./edited.js";\n\nexport const w: number = v + 1;\n');
  git(repo, "add", ".");
  git(repo, "commit", "-qm", "init");
  mkdirSync(join(repo, "node_modules"));
  symlinkSync(join(modules, "typescript"), join(repo, "node_modules", "typescript"));
  return repo;
}

/** A config root made by `init`, with `settings` as its settings file when given. */
function configRoot(name, settings) {
  const root = join(ROOT, "config", name, "pi-native-hooks");
  execFileSync(join(PACKAGE, "target/debug/pi-native-hooks"), ["init", "--config", root]);
  if (settings) writeFileSync(join(root, "settings.toml"), settings);
  return root;
}
const CONFIGS = { lint: configRoot("lint", "[typescript]\nenabled = false\n"), types: configRoot("types") };

const VARIANTS = ["without", "lint", "types"];

async function open(repo, variant) {
  const extensions = variant === "without" ? [] : [createPiNativeHooks({ configRoot: CONFIGS[variant] })];
  return { ...(await openSession(repo, AGENT_DIR, extensions)), counter: 0, blocks: 0 };
}

/** One write wave: a clean write on even counts, one that introduces a type error on odd ones. */
async function timeWave(side) {
  const n = ++side.counter;
  const content = n % 2 === 0 ? `export const v: number = ${n};\n` : `export const v: number = ${n};\nexport const bad: number = "s${n}";\n`;
  side.faux.setResponses([ai.fauxAssistantMessage([ai.fauxToolCall("write", { path: "src/edited.ts", content })], { stopReason: "toolUse" }), ai.fauxAssistantMessage("done")]);
  await side.session.prompt("go");
  const result = side.session.messages.findLast((m) => m.role === "toolResult");
  const text = result?.content?.map((c) => c.text ?? "").join("\n") ?? "";
  if (/TS2322/.test(text)) side.blocks++;
  return { kind: n % 2 === 0 ? "clean" : "error", wave: stopwatch.end - stopwatch.start };
}

const rows = [];
const ms = (value) => `${value.toFixed(1)} ms`;
console.log(`the type check on the real Pi runtime (${ITERATIONS} waves of each kind and variant after ${WARM_UP} warm-up, medians, same run)`);
for (const { name, modules } of SERVERS) {
  // A repository per variant: sessions writing the same file would see each other's writes.
  const sessions = {};
  for (const variant of VARIANTS) sessions[variant] = await open(project(`${name.replaceAll(/\W+/g, "-")}-${variant}`, modules), variant);
  const samples = { clean: { without: [], lint: [], types: [] }, error: { without: [], lint: [], types: [] } };
  const cold = {};
  for (let i = 0; i < 2 * (ITERATIONS + WARM_UP); i++) {
    // Rotate the order so drift hits every variant alike.
    const order = VARIANTS.map((_, k) => VARIANTS[(Math.floor(i / 2) + k) % VARIANTS.length]);
    for (const variant of order) {
      const { kind, wave } = await timeWave(sessions[variant]);
      if (i === 0) cold[variant] = wave;
      if (i >= 2 * WARM_UP) samples[kind][variant].push(wave);
    }
  }
  const listed = sessions.types.blocks;
  const expected = ITERATIONS + WARM_UP;
  if (listed !== expected) throw new Error(`${name}: the type error was listed in ${listed} of ${expected} waves that introduced it`);
  if (sessions.lint.blocks !== 0) throw new Error(`${name}: a type error was listed with the type check off`);
  for (const [kind, label] of [["clean", "clean write"], ["error", "write introducing TS2322"]]) {
    const [without, lint, types] = VARIANTS.map((v) => median(samples[kind][v]));
    console.log(`${name.padEnd(17)} ${label.padEnd(25)} without ${ms(without).padStart(9)}  rules only ${ms(lint).padStart(9)}  with types ${ms(types).padStart(9)}  type check adds ${ms(types - lint).padStart(9)}`);
    rows.push(`| ${name} | ${label} | ${ms(without)} | ${ms(lint)} | ${ms(types)} | ${ms(types - lint)} | ${ms(types - without)} |`);
  }
  console.log(`${name.padEnd(17)} first wave (cold start)   without ${ms(cold.without).padStart(9)}  rules only ${ms(cold.lint).padStart(9)}  with types ${ms(cold.types).padStart(9)}`);
  rows.push(`| ${name} | first wave of the session (server start) | ${ms(cold.without)} | ${ms(cold.lint)} | ${ms(cold.types)} | ${ms(cold.types - cold.lint)} | ${ms(cold.types - cold.without)} |`);
  for (const { session } of Object.values(sessions)) session.dispose();
}
// scripts/bench-figures asks for the Markdown table docs/performance.md shows.
if (process.env.FIGURES_OUT) {
  const table = [
    `${ITERATIONS} waves of each kind and variant after ${WARM_UP} warm-up, interleaved, medians (the first wave is one sample); every wave that introduced the error listed it:`,
    "",
    "| TypeScript | wave | without the extension | rules only | rules and types | the type check adds | the extension adds |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ...rows,
    "",
  ].join("\n");
  writeFileSync(join(process.env.FIGURES_OUT, "pi-typescript.md"), table);
}
rmSync(ROOT, { recursive: true, force: true });

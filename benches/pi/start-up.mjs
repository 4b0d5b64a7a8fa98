// Measures the start-up of the packaged `pi-native-hooks` command: `check --builtin` in a git
// repository with one changed TypeScript file (one finding, exit 1), run by the cargo-built
// release binary, by the npm package's `bin` script (Node + the addon's `runCli`, the command an
// npm user runs), and `node -e 0` (Node alone), interleaved in the same run. Run from the
// repository root after `cargo build --release -p pi-native-hooks-cli --bin pi-native-hooks` and
// `npm run build:addon`:
//
//   node benches/pi/start-up.mjs [runs]
//
// With FIGURES_OUT set it also writes the Markdown table docs/performance.md shows.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const PACKAGE = resolve(import.meta.dirname, "../..");
const RUNS = Number(process.argv[2] ?? 40);
const WARM_UP = 5;
const ROOT = mkdtempSync(join(tmpdir(), "pi-native-hooks-start-up-"));

const env = { ...process.env, HOME: ROOT, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
const git = (...args) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: ROOT, env });
git("init", "-q", "-b", "main");
mkdirSync(join(ROOT, "src"));
writeFileSync(join(ROOT, "src", "a.ts"), "export const a = 1;\n");
git("add", ".");
git("commit", "-qm", "init");
writeFileSync(join(ROOT, "src", "a.ts"), 'declare const m: Map<string, number>;\nexport const a = m.get("a")!;\n');

const COMMANDS = [
  ["cargo-built binary", join(PACKAGE, "target/release/pi-native-hooks"), ["check", "--builtin"], 1],
  ["npm `bin` (Node + addon `runCli`)", process.execPath, [join(PACKAGE, "bin/pi-native-hooks.js"), "check", "--builtin"], 1],
  ["`node -e 0` (Node alone)", process.execPath, ["-e", "0"], 0],
];

const samples = COMMANDS.map(() => []);
for (let i = 0; i < RUNS + WARM_UP; i++) {
  // Rotate the order so drift hits every command alike.
  for (let k = 0; k < COMMANDS.length; k++) {
    const index = (i + k) % COMMANDS.length;
    const [name, file, args, expected] = COMMANDS[index];
    const started = process.hrtime.bigint();
    const run = spawnSync(file, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"], timeout: 30_000 });
    const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
    if (run.error || run.status !== expected) {
      rmSync(ROOT, { recursive: true, force: true });
      throw new Error(`${name}: exit ${run.status} (expected ${expected}) ${run.error ?? ""}\n${run.stdout}${run.stderr}`);
    }
    if (i >= WARM_UP) samples[index].push(elapsed);
  }
}
rmSync(ROOT, { recursive: true, force: true });

const sorted = (values) => [...values].sort((a, b) => a - b);
const median = (values) => sorted(values)[Math.floor(values.length / 2)];
const base = median(samples[0]);
const rows = COMMANDS.map(([name], index) => {
  const values = samples[index];
  return `| ${name} | ${median(values).toFixed(1)} ms | ${sorted(values)[0].toFixed(1)} ms | ${(median(values) / base).toFixed(2)} |`;
});
const table = [
  `${RUNS} runs of each, interleaved, after ${WARM_UP} warm-up rounds; time from spawn to exit:`,
  "",
  "| command | median | min | relative (median) |",
  "| --- | ---: | ---: | ---: |",
  ...rows,
  "",
].join("\n");
console.log(table);
if (process.env.FIGURES_OUT) writeFileSync(join(process.env.FIGURES_OUT, "start-up.md"), table);

// The staging half of `scripts/pack` (run it instead): packs the addon built for this machine into
// its platform package and the main package with `optionalDependencies` on every platform package,
// as `napi pre-publish` writes them for a release, so a registry holding both resolves the addon;
// then each registry dependency of the main package, from the pinned install in node_modules, so a
// local registry serves it as npmjs.org would. Prints one tarball name per line, in that order.
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parseTriple, readNapiConfig } from "@napi-rs/cli";

const repo = resolve(import.meta.dirname, "..");
const out = process.argv[2];
/** @param {string} message @returns {never} */
const fail = (message) => {
  console.error(`scripts/pack: ${message}`);
  process.exit(1);
};

const { packageJson, targets, packageName, binaryName } = await readNapiConfig(join(repo, "package.json"));
const version = packageJson.version;
const host = execFileSync("rustc", ["-vV"], { encoding: "utf8" }).match(/^host: (\S+)$/m)?.[1] ?? fail("cannot read rustc's host triple");
const { platformArchABI: platform } = parseTriple(host);
if (!targets.some((t) => t.platformArchABI === platform)) fail(`${platform} (${host}) is not one of the release targets in package.json`);

const addon = join(repo, "bindings/native", `${binaryName}.${platform}.node`);
if (!existsSync(addon)) fail(`${addon} was not built`);
const platformDir = join(repo, "npm", platform);
/** @type {{ name: string, version: string, main: string }} */
const platformManifest = JSON.parse(readFileSync(join(platformDir, "package.json"), "utf8"));
if (platformManifest.name !== `${packageName}-${platform}`) fail(`npm/${platform}/package.json names ${platformManifest.name}`);
if (platformManifest.version !== version) fail(`npm/${platform} is at ${platformManifest.version}, the main package at ${version}: run \`npx napi version\``);

const stage = mkdtempSync(join(tmpdir(), "pi-native-hooks-pack-"));
/** Packs `dir` into `out`; returns the tarball's file name. @param {string} dir @returns {string} */
const pack = (dir) => {
  /** @type {{ filename: string }[]} npm's report, one entry per package */
  const [result] = JSON.parse(execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", out], { cwd: dir, encoding: "utf8" }));
  return result.filename;
};
try {
  // The platform package: its committed manifest and README, the license, the stripped addon.
  const platformStage = join(stage, "platform");
  cpSync(platformDir, platformStage, { recursive: true });
  copyFileSync(join(repo, "LICENSE"), join(platformStage, "LICENSE"));
  const staged = join(platformStage, platformManifest.main);
  copyFileSync(addon, staged);
  chmodSync(staged, 0o755);
  strip(staged);

  // The main package: the files npm would pack from the checkout, and the optional dependencies.
  const mainStage = join(stage, "main");
  /** @type {{ files: { path: string }[] }[]} */
  const [listing] = JSON.parse(execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: repo, encoding: "utf8" }));
  for (const { path } of listing.files) {
    if (path.endsWith(".node")) fail(`the main package would carry ${path}; the addon belongs in ${packageName}-${platform}`);
    mkdirSync(dirname(join(mainStage, path)), { recursive: true });
    copyFileSync(join(repo, path), join(mainStage, path));
    chmodSync(join(mainStage, path), statSync(join(repo, path)).mode & 0o777);
  }
  const manifest = { ...packageJson, optionalDependencies: Object.fromEntries(targets.map((t) => [`${packageName}-${t.platformArchABI}`, version])) };
  writeFileSync(join(mainStage, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);

  console.log(pack(mainStage));
  console.log(pack(platformStage));
  for (const [name, pinned] of Object.entries(packageJson.dependencies ?? {})) {
    const dependency = join(repo, "node_modules", name);
    /** @type {{ version: string }} */
    const installed = JSON.parse(readFileSync(join(dependency, "package.json"), "utf8"));
    if (installed.version !== pinned) fail(`node_modules/${name} is at ${installed.version}, package.json pins ${pinned}: run \`npm ci\``);
    console.log(pack(dependency));
  }
} finally {
  rmSync(stage, { recursive: true, force: true });
}

/** Drops symbols and debug info, as `napi build --strip` does for a release (89 MB → 20 MB). @param {string} file */
function strip(file) {
  const args = process.platform === "darwin" ? ["-x", file] : ["--strip-all", file];
  try {
    execFileSync("strip", args, { stdio: ["ignore", "ignore", "pipe"] });
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    console.error(`scripts/pack: warning: the addon is packed unstripped (strip failed: ${why.split("\n")[0]})`);
  }
}

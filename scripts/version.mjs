// Keeps every manifest of a release at one version: the npm package (package.json and its lock
// file), the platform packages (npm/*/package.json) and the Cargo workspace (the
// `[workspace.package]` version every crate inherits, which `--version` and SARIF's tool version
// print, and the crates' entries in Cargo.lock). A release publishes all of them at once, so a
// manifest left behind either fails the release or ships a binary that names the wrong version.
//   node scripts/version.mjs bump VERSION        moves every manifest to VERSION
//   node scripts/version.mjs sync                moves the others to package.json's version (what
//                                                `npm version` runs, after moving package.json)
//   node scripts/version.mjs check [--cargo]     exits 1, naming each manifest out of step;
//                                                `--cargo` also asks cargo (`cargo metadata
//                                                --locked`) for every workspace member's version
//   node scripts/version.mjs dist-tag [VERSION]  the npm dist-tag a release of VERSION (default:
//                                                package.json's) is published under
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** SemVer 2.0.0, the regular expression semver.org gives: npm and Cargo both require it. */
export const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

export class VersionError extends Error {}

/** @param {string} version @returns {string} the version, when it is SemVer */
function valid(version) {
  if (!SEMVER.test(version)) throw new VersionError(`${JSON.stringify(version)} is not a SemVer version (such as 1.2.3 or 1.2.3-rc.1)`);
  return version;
}

/**
 * The npm dist-tag of a release: a pre-release (`1.2.0-rc.1`) goes under `next`, so that
 * `npm install pi-native-hooks` and `pi install npm:pi-native-hooks` keep getting the last
 * release; anything else under `latest` (build metadata, `+…`, is not a pre-release).
 * @param {string} version
 * @returns {"latest" | "next"}
 */
export function distTag(version) {
  return SEMVER.exec(valid(version))?.[4] === undefined ? "latest" : "next";
}

/** @typedef {{ file: string, version: string }} ManifestVersion a manifest (relative path, with a `#` part naming the entry when a file holds several) and its version */

/** @param {string} root @param {string} file @returns {any} */
const readJson = (root, file) => JSON.parse(readFileSync(join(root, file), "utf8"));
/** npm's own layout, so a bump changes only the version lines. @param {string} root @param {string} file @param {unknown} value */
const writeJson = (root, file, value) => writeFileSync(join(root, file), `${JSON.stringify(value, null, 2)}\n`);

/** @param {string} root @returns {string[]} npm/<platform>/package.json, sorted */
function platformManifests(root) {
  return readdirSync(join(root, "npm"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(root, "npm", entry.name, "package.json")))
    .map((entry) => `npm/${entry.name}/package.json`)
    .sort();
}

// The `version = "…"` line of Cargo.toml's `[workspace.package]` table: the table's header, then
// any lines up to the key that do not start another table.
const WORKSPACE_VERSION = /^(\[workspace\.package\]\s*\n(?:(?!\[)[^\n]*\n)*?version\s*=\s*")([^"]*)(")/m;

/**
 * Cargo.lock's packages built from this workspace: the entries with no `source` (crates.io and
 * git packages have one). Each `[[package]]` table's `name` and `version` come first.
 * @param {string} lock
 * @returns {{ name: string, version: string, start: number, end: number }[]} `start`/`end`: the
 *   version's offsets in `lock`
 */
function lockedWorkspaceCrates(lock) {
  const crates = [];
  for (const table of lock.matchAll(/^\[\[package\]\]\n((?:[^[\n][^\n]*\n|\n(?!\[))*)/gm)) {
    const body = table[1];
    const entry = /^name = "([^"]+)"\nversion = "([^"]+)"\n/.exec(body);
    if (!entry || /^source = /m.test(body)) continue;
    const start = table.index + "[[package]]\n".length + entry[0].indexOf('version = "') + 'version = "'.length;
    crates.push({ name: entry[1], version: entry[2], start, end: start + entry[2].length });
  }
  return crates;
}

/**
 * Every manifest's version, in a fixed order (package.json first).
 * @param {string} root the repository (or a copy of its manifests)
 * @returns {ManifestVersion[]}
 */
export function readVersions(root) {
  /** @type {ManifestVersion[]} */
  const versions = [{ file: "package.json", version: readJson(root, "package.json").version }];
  const lock = readJson(root, "package-lock.json");
  versions.push({ file: "package-lock.json", version: lock.version }, { file: 'package-lock.json#packages[""]', version: lock.packages?.[""]?.version });
  for (const file of platformManifests(root)) versions.push({ file, version: readJson(root, file).version });
  const cargo = WORKSPACE_VERSION.exec(readFileSync(join(root, "Cargo.toml"), "utf8"));
  if (!cargo) throw new VersionError("Cargo.toml has no [workspace.package] version");
  versions.push({ file: "Cargo.toml#workspace.package", version: cargo[2] });
  const crates = lockedWorkspaceCrates(readFileSync(join(root, "Cargo.lock"), "utf8"));
  if (crates.length === 0) throw new VersionError("Cargo.lock lists no crate of this workspace");
  for (const crate of crates) versions.push({ file: `Cargo.lock#${crate.name}`, version: crate.version });
  return versions;
}

/**
 * The manifests whose version is not package.json's, one line each.
 * @param {string} root
 * @param {{ cargo?: boolean }} [options] `cargo`: also every workspace member's version as
 *   `cargo metadata --locked` reads it (a crate that sets its own version instead of inheriting
 *   the workspace's, or a Cargo.lock cargo would rewrite)
 * @returns {string[]}
 */
export function outOfStep(root, options = {}) {
  const [main, ...others] = readVersions(root);
  if (options.cargo) {
    const metadata = JSON.parse(
      execFileSync("cargo", ["metadata", "--format-version", "1", "--no-deps", "--locked", "--offline", "--manifest-path", join(root, "Cargo.toml")], { encoding: "utf8" }),
    );
    for (const crate of metadata.packages) others.push({ file: `cargo metadata#${crate.name}`, version: crate.version });
  }
  return others.filter((m) => m.version !== main.version).map((m) => `${m.file} is at ${m.version}, package.json at ${main.version}`);
}

/**
 * Moves every manifest to `version`; writes only the files whose version changes.
 * @param {string} root
 * @param {string} version
 */
export function bump(root, version) {
  valid(version);
  /** @param {string} file @param {(manifest: any) => void} edit */
  const editJson = (file, edit) => {
    const before = readFileSync(join(root, file), "utf8");
    const manifest = JSON.parse(before);
    edit(manifest);
    if (`${JSON.stringify(manifest, null, 2)}\n` !== before) writeJson(root, file, manifest);
  };
  editJson("package.json", (m) => (m.version = version));
  editJson("package-lock.json", (m) => {
    m.version = version;
    if (!m.packages?.[""]) throw new VersionError('package-lock.json has no packages[""] entry');
    m.packages[""].version = version;
  });
  for (const file of platformManifests(root)) editJson(file, (m) => (m.version = version));

  const cargoPath = join(root, "Cargo.toml");
  const cargo = readFileSync(cargoPath, "utf8");
  if (!WORKSPACE_VERSION.test(cargo)) throw new VersionError("Cargo.toml has no [workspace.package] version");
  writeFileSync(cargoPath, cargo.replace(WORKSPACE_VERSION, (_, head, _old, tail) => `${head}${version}${tail}`));

  // From the end, so each offset is still valid when it is replaced.
  const lockPath = join(root, "Cargo.lock");
  let lock = readFileSync(lockPath, "utf8");
  for (const crate of lockedWorkspaceCrates(lock).reverse()) lock = `${lock.slice(0, crate.start)}${version}${lock.slice(crate.end)}`;
  writeFileSync(lockPath, lock);
}

/** @param {string[]} args */
function main(args) {
  const root = resolve(import.meta.dirname, "..");
  const [command, ...rest] = args;
  if (command === "bump" && rest.length === 1) {
    bump(root, rest[0]);
  } else if (command === "sync" && rest.length === 0) {
    bump(root, readJson(root, "package.json").version);
  } else if (command === "check" && (rest.length === 0 || (rest.length === 1 && rest[0] === "--cargo"))) {
    const problems = outOfStep(root, { cargo: rest[0] === "--cargo" });
    for (const problem of problems) console.error(`scripts/version.mjs: ${problem}`);
    if (problems.length > 0) {
      console.error("scripts/version.mjs: move them together with `node scripts/version.mjs sync` (or `bump VERSION`)");
      return 1;
    }
  } else if (command === "dist-tag" && rest.length <= 1) {
    console.log(distTag(rest[0] ?? readJson(root, "package.json").version));
  } else {
    console.error("usage: node scripts/version.mjs bump VERSION | sync | check [--cargo] | dist-tag [VERSION]");
    return 2;
  }
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof VersionError)) throw error;
    console.error(`scripts/version.mjs: ${error.message}`);
    process.exitCode = 1;
  }
}

// The publishing half of `scripts/release-rehearsal` (run it instead): the publish job of
// .github/workflows/release.yml on a copy of the package, for this machine's platform, with a local
// registry in place of npmjs.org. The addon built here stands in for this platform's downloaded
// artifact; the other platforms' artifacts, which only their own runners build, are placeholder
// files, so `napi artifacts` and `napi pre-publish` see the complete set release.yml gives them.
// Then the release as a user gets it: `npm install -g pi-native-hooks` from that registry, and the
// smoke test release.yml runs on every platform, against the installed command.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { parseTriple, readNapiConfig } from "@napi-rs/cli";
import { registerPublisher, startRegistry, stopRegistry } from "./local-registry.mjs";
import { distTag } from "./version.mjs";

const repo = resolve(import.meta.dirname, "..");
const { packageJson, targets, packageName, binaryName } = await readNapiConfig(join(repo, "package.json"));
const version = packageJson.version;
const tag = distTag(version);
const host = /^host: (\S+)$/m.exec(execFileSync("rustc", ["-vV"], { encoding: "utf8" }))?.[1];
assert.ok(host, "rustc -vV names the host triple");
const { platformArchABI: platform } = parseTriple(host);
assert.ok(targets.some((t) => t.platformArchABI === platform), `${platform} is one of the release targets in package.json`);
const addon = join(repo, "bindings/native", `${binaryName}.${platform}.node`);
assert.ok(existsSync(addon), `${addon} is built (npm run build)`);

const ROOT = mkdtempSync(join(tmpdir(), "pi-native-hooks-release-"));
const checkout = join(ROOT, "checkout");
/** @type {import("./local-registry.mjs").LocalRegistry | undefined} */
let registry;
/** The longest any one command of the rehearsal may take (the slowest, `npm publish` of the seven
 *  packages, takes seconds). */
const COMMAND_TIMEOUT_MS = 300_000;
/** @param {string} what */
const step = (what) => console.error(`== release rehearsal: ${what}`);

/**
 * Runs a command; its output goes to stderr, or is returned when `capture` is set.
 * @param {string} file @param {string[]} args
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv, capture?: boolean }} [options]
 * @returns {string}
 */
function run(file, args, { cwd = checkout, env = process.env, capture = false } = {}) {
  // A hung command (a registry that stops answering, a lock) fails the rehearsal instead of CI's job.
  const stdout = execFileSync(file, args, {
    cwd,
    env,
    encoding: "utf8",
    stdio: ["ignore", capture ? "pipe" : process.stderr, process.stderr],
    timeout: COMMAND_TIMEOUT_MS,
    killSignal: "SIGKILL",
  });
  return capture ? stdout : "";
}

try {
  step(`stage a checkout of ${packageName} ${version} with the artifacts of the ${targets.length} release targets`);
  /** @type {{ files: { path: string }[] }[]} the files `npm publish` would pack */
  const [listing] = JSON.parse(run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: repo, capture: true }));
  // release.yml builds it before publishing (`npm run build:extension`); here `npm run build` did.
  assert.ok(listing.files.some((f) => f.path === "bindings/extension/index.js"), "the package carries the extension's JavaScript (npm run build:extension)");
  for (const path of [...listing.files.map((f) => f.path), "LICENSE"]) {
    mkdirSync(dirname(join(checkout, path)), { recursive: true });
    copyFileSync(join(repo, path), join(checkout, path));
    chmodSync(join(checkout, path), statSync(join(repo, path)).mode & 0o777);
  }
  cpSync(join(repo, "npm"), join(checkout, "npm"), { recursive: true, filter: (path) => !path.endsWith(".node") });
  // As release.yml's build job uploads them and `actions/download-artifact` lays them out.
  for (const target of targets) {
    const dir = join(checkout, "artifacts", `bindings-${target.triple}`);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${binaryName}.${target.platformArchABI}.node`);
    if (target.platformArchABI === platform) {
      copyFileSync(addon, file);
      // release.yml builds with `--strip`
      run("strip", process.platform === "darwin" ? ["-x", file] : ["--strip-all", file]);
    } else {
      writeFileSync(file, `placeholder for ${target.triple}: built only by release.yml on its runner\n`);
    }
  }
  const hostArtifact = join(checkout, "artifacts", `bindings-${host}`, `${binaryName}.${platform}.node`);
  // The publish job runs in a git checkout: `napi pre-publish` reads the last commit's message.
  const gitEnv = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "r", GIT_AUTHOR_EMAIL: "r@r", GIT_COMMITTER_NAME: "r", GIT_COMMITTER_EMAIL: "r@r" };
  run("git", ["init", "-q", "-b", "main"], { env: gitEnv });
  run("git", ["add", "."], { env: gitEnv });
  run("git", ["commit", "-qm", `v${version}`], { env: gitEnv });

  // The publish job's commands, with the repository's pinned napi CLI on PATH as `npm ci` gives it.
  /** @type {NodeJS.ProcessEnv} */
  const env = { ...process.env, PATH: [join(repo, "node_modules/.bin"), process.env.PATH].join(delimiter), npm_config_cache: join(ROOT, "npm-cache"), npm_config_update_notifier: "false" };
  delete env.GITHUB_REPOSITORY; // no GitHub release from here

  step("npm run artifacts (napi artifacts, and the license into each platform package)");
  run("npm", ["run", "--silent", "artifacts"], { env });
  for (const target of targets) {
    const dir = join(checkout, "npm", target.platformArchABI);
    assert.ok(existsSync(join(dir, "LICENSE")), `npm/${target.platformArchABI} has the license`);
    assert.ok(existsSync(join(dir, `${binaryName}.${target.platformArchABI}.node`)), `npm/${target.platformArchABI} has its addon`);
  }
  assert.deepEqual(readFileSync(join(checkout, "npm", platform, `${binaryName}.${platform}.node`)), readFileSync(hostArtifact), `npm/${platform} holds the addon built here`);

  step("napi pre-publish -t npm --dry-run");
  run("napi", ["pre-publish", "-t", "npm", "--dry-run"], { env });

  step(`npm publish --access public under the dist-tag ${tag}, to a local registry`);
  registry = await startRegistry(join(ROOT, "registry"));
  const { url } = registry;
  const npmrc = await registerPublisher(registry, ROOT);
  // As release.yml's publish step: `npm_config_tag` reaches both `npm publish` and the platform
  // packages' `npm publish` that `napi pre-publish` runs from the `prepublishOnly` script.
  const publishEnv = { ...env, npm_config_registry: url, npm_config_userconfig: npmrc, npm_config_tag: tag };
  run("npm", ["publish", "--access", "public"], { env: publishEnv });

  /**
   * The registry's record of a package at `version`, as `npm view` reads it.
   * @param {string} name
   * @returns {{ version: string, versions: string[], "dist-tags": Record<string, string>, optionalDependencies?: Record<string, string> }}
   */
  const view = (name) => JSON.parse(run("npm", ["view", "--json", `${name}@${version}`], { env: publishEnv, capture: true }));
  const platformPackages = targets.map((t) => `${packageName}-${t.platformArchABI}`);
  for (const name of [packageName, ...platformPackages]) {
    const published = view(name);
    assert.deepEqual(published.versions, [version], `${name} is published at ${version} only`);
    assert.equal(published["dist-tags"][tag], version, `${name} ${version} is under the dist-tag ${tag}`);
  }
  const main = view(packageName);
  assert.deepEqual(main.optionalDependencies, Object.fromEntries(platformPackages.map((name) => [name, version])), "the main package depends on every platform package at its version");

  step("scripts/pack.mjs writes the main package the release publishes (the registry e2e test installs its tarballs)");
  mkdirSync(join(ROOT, "packed"));
  mkdirSync(join(ROOT, "published"));
  const [packedMain, , ...dependencies] = run(process.execPath, [join(repo, "scripts/pack.mjs"), join(ROOT, "packed")], { cwd: repo, env, capture: true }).trim().split("\n");
  /** @type {{ filename: string }[]} */
  const [fetched] = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", join(ROOT, "published"), `${packageName}@${version}`], { cwd: ROOT, env: publishEnv, capture: true }));
  const publishedTarball = join(ROOT, "published", fetched.filename);
  /** @param {string} tarball */
  const contents = (tarball) => run("tar", ["-tzf", tarball], { capture: true }).trim().split("\n").sort();
  assert.deepEqual(contents(join(ROOT, "packed", packedMain)), contents(publishedTarball), "the same files");
  /** @type {{ optionalDependencies: Record<string, string> }} */
  const packedManifest = JSON.parse(run("tar", ["-xzOf", join(ROOT, "packed", packedMain), "package/package.json"], { capture: true }));
  assert.deepEqual(packedManifest.optionalDependencies, main.optionalDependencies, "the same optional dependencies");

  // The registry has no uplink: the main package's registry dependencies (typescript-language-server)
  // are published to it from their pinned install, as npmjs.org holds them.
  step(`npm publish of the main package's registry dependencies (${dependencies.join(", ")}), as npmjs.org holds them`);
  for (const tarball of dependencies) run("npm", ["publish", join(ROOT, "packed", tarball)], { env: publishEnv });

  step("npm install -g pi-native-hooks from the local registry");
  const prefix = join(ROOT, "global");
  run("npm", ["install", "-g", "--prefix", prefix, "--no-audit", "--no-fund", packageName], { cwd: ROOT, env: { ...publishEnv, PATH: process.env.PATH } });
  const installed = join(prefix, "lib", "node_modules", packageName);
  assert.deepEqual(readdirSync(join(prefix, "lib", "node_modules")), [packageName]);
  assert.deepEqual(readdirSync(join(installed, "node_modules")).filter((name) => !name.startsWith(".")).sort(), [`${packageName}-${platform}`, "typescript-language-server"], "this platform's package and the type check's bridge, nothing else: no Pi (its peers are optional), no other platform");

  step("the smoke test of release.yml, against the installed package");
  run("sh", [join(repo, ".github/workflows/smoke-test.sh"), installed], { cwd: ROOT });
  const reported = run(join(prefix, "bin", packageName), ["--version"], { cwd: ROOT, capture: true }).trim();
  assert.equal(reported, `${packageName} ${version}`, "the installed command reports the package's version");
  step(`passed: ${packageName} ${version} (${tag}) published, installed and run on ${platform}`);
} catch (error) {
  // A failed command has said why on stderr already; an assertion says what differed.
  console.error(`== release rehearsal: FAILED: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await stopRegistry(registry);
  if (process.env.KEEP_REHEARSAL) console.error(`kept ${ROOT}`);
  else rmSync(ROOT, { recursive: true, force: true });
}

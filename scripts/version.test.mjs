// Tests of scripts/version.mjs on copies of the repository's manifests: a bump moves every
// manifest and nothing else, the check names a manifest left behind, `npm version` commits and
// tags them together, and pre-releases get the `next` dist-tag. Run by scripts/release-rehearsal.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { VersionError, bump, distTag, outOfStep, readVersions } from "./version.mjs";

const repo = resolve(import.meta.dirname, "..");
const scratch = mkdtempSync(join(tmpdir(), "pi-native-hooks-version-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** The files a bump may change, from the repository's manifest list itself. */
const manifestFiles = [...new Set(readVersions(repo).map((m) => m.file.split("#")[0]))];
let copies = 0;
/** A fresh copy of the manifests (and of version.mjs, for `npm version`'s lifecycle script). */
function copy() {
  const dir = join(scratch, `copy-${++copies}`);
  for (const file of [...manifestFiles, "scripts/version.mjs"]) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    cpSync(join(repo, file), join(dir, file));
  }
  return dir;
}
const current = readVersions(repo)[0].version;

test("the repository's manifests are all at package.json's version", () => {
  assert.deepEqual(outOfStep(repo), []);
  assert.ok(manifestFiles.includes("npm/linux-x64-gnu/package.json") && manifestFiles.includes("Cargo.lock"), manifestFiles.join(", "));
});

test("bump moves every manifest to the version, changing only version lines", () => {
  const dir = copy();
  bump(dir, "7.8.9-rc.1");
  const versions = readVersions(dir);
  assert.deepEqual(versions.filter((m) => m.version !== "7.8.9-rc.1"), []);
  assert.deepEqual(outOfStep(dir), []);
  for (const file of manifestFiles) {
    const before = readFileSync(join(repo, file), "utf8").split("\n");
    const afterBump = readFileSync(join(dir, file), "utf8").split("\n");
    assert.equal(afterBump.length, before.length, file);
    const changed = before.flatMap((line, i) => (line === afterBump[i] ? [] : [[line, afterBump[i]]]));
    const entries = versions.filter((m) => m.file.split("#")[0] === file).length;
    assert.equal(changed.length, entries, `${file}: one changed line per version it holds`);
    for (const [old, now] of changed) assert.equal(now, old.replace(current, "7.8.9-rc.1"), `${file}: only the version changed`);
  }
});

test("check names each manifest left behind", () => {
  const dir = copy();
  const platform = join(dir, "npm/linux-x64-gnu/package.json");
  writeFileSync(platform, readFileSync(platform, "utf8").replace(`"version": "${current}"`, '"version": "0.0.1"'));
  const cargo = join(dir, "Cargo.toml");
  writeFileSync(cargo, readFileSync(cargo, "utf8").replace(`version = "${current}"`, 'version = "0.0.2"'));
  assert.deepEqual(outOfStep(dir), [
    `npm/linux-x64-gnu/package.json is at 0.0.1, package.json at ${current}`,
    `Cargo.toml#workspace.package is at 0.0.2, package.json at ${current}`,
  ]);
});

test("bump refuses a version that is not SemVer and writes nothing", () => {
  const dir = copy();
  for (const version of ["1.2", "v1.2.3", "1.2.3-", "01.2.3", ""]) assert.throws(() => bump(dir, version), VersionError, version);
  for (const file of manifestFiles) assert.equal(readFileSync(join(dir, file), "utf8"), readFileSync(join(repo, file), "utf8"), file);
});

test("npm version commits and tags every manifest at the new version", () => {
  const dir = copy();
  const env = {
    ...process.env,
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "t",
    GIT_AUTHOR_EMAIL: "t@t",
    GIT_COMMITTER_NAME: "t",
    GIT_COMMITTER_EMAIL: "t@t",
    npm_config_update_notifier: "false",
  };
  /** @param {string} file @param {...string} args */
  const runIn = (file, ...args) => execFileSync(file, args, { cwd: dir, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  runIn("git", "init", "-q", "-b", "main");
  runIn("git", "add", ".");
  runIn("git", "commit", "-qm", "init");
  runIn("npm", "version", "0.2.0-rc.1", "--ignore-scripts=false");
  assert.deepEqual(outOfStep(dir), []);
  assert.equal(readVersions(dir)[0].version, "0.2.0-rc.1");
  assert.deepEqual(runIn("git", "show", "--name-only", "--format=", "HEAD").trim().split("\n").sort(), [...manifestFiles].sort(), "one commit holds every manifest");
  assert.equal(runIn("git", "status", "--porcelain"), "", "nothing left uncommitted");
  assert.equal(runIn("git", "tag", "--points-at", "HEAD").trim(), "v0.2.0-rc.1");
});

test("a pre-release is published under next, a release under latest", () => {
  /** @type {[string, string][]} */
  const cases = [
    ["0.1.0", "latest"],
    ["1.0.0", "latest"],
    ["1.0.0+build.5", "latest"],
    ["1.0.0-rc.1", "next"],
    ["2.0.0-alpha", "next"],
    ["1.1.0-0", "next"],
    ["1.0.0-beta.2+exp.sha.5114f85", "next"],
  ];
  assert.deepEqual(
    cases.map(([version]) => [version, distTag(version)]),
    cases,
  );
  for (const version of ["v1.0.0", "1.0", "latest"]) assert.throws(() => distTag(version), VersionError, version);
});

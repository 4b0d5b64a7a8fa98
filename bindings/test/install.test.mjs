// Scenario 1: `pi install <package dir>` into a fake HOME loads exactly one pi-native-hooks
// extension and the native-hook-authoring skill, with no errors. Extensions are loaded but not
// bound, so the default export never resolves the (real) personal config root.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { AGENT_DIR, PACKAGE, assertRealUntouched, installPackage, newRepo, pi } from "./harness.mjs";

after(assertRealUntouched);

test("pi install loads exactly one pi-native-hooks extension and the authoring skill", async () => {
  installPackage();
  /** @type {{ packages: string[] }} Pi's settings file, as much as this test reads */
  const settings = JSON.parse(readFileSync(join(AGENT_DIR, "settings.json"), "utf8"));
  assert.deepEqual(settings.packages.map((p) => resolve(AGENT_DIR, p)), [PACKAGE]);

  const repo = newRepo();
  const settingsManager = pi.SettingsManager.create(repo, AGENT_DIR, {});
  const loader = new pi.DefaultResourceLoader({ cwd: repo, agentDir: AGENT_DIR, settingsManager });
  await loader.reload();
  const { extensions, errors, warnings } = loader.getExtensions();
  assert.deepEqual([errors, warnings], [[], []]);
  assert.deepEqual(
    extensions.map((e) => [e.path, e.sourceInfo.scope, e.sourceInfo.origin]),
    [[join(PACKAGE, "bindings/extension/index.js"), "user", "package"]],
  );
  const [extension] = extensions;
  assert.ok(extension.tools.has("pi_hooks_waive_verification"), "the waiver tool is registered");
  assert.deepEqual([...extension.commands.keys()].sort(), ["hooks-doctor", "hooks-init", "hooks-status"]);
  const skills = loader.getSkills().skills;
  assert.deepEqual(skills.map((s) => s.name), ["native-hook-authoring"]);
  assert.deepEqual(readdirSync(AGENT_DIR), ["settings.json"]);
});

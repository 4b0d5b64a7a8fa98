// `/reload` on the real Pi runtime: Pi replaces the extension's runtime, and the engine reads the
// config root again through its reload path. A verification policy that loaded before and fails
// after the reload is degraded (footer, /hooks-status, /hooks-doctor) and its armed check stays
// `unknown`; fixing the policy and reloading again brings it back, and a rerun passes it.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { assertNoProblems, assertRealUntouched, command, expectProblems, footer, say, start, toolUse } from "./harness.mjs";
import { POLICY, bash, project, write } from "./project.mjs";

after(assertRealUntouched);

const checkLine = (/** @type {string} */ status) => status.match(/demo-verification\/check `sh verify\.sh`: .*/)?.[0];

test("/reload after breaking an armed policy: degraded, the check unknown; fixed and reloaded, a rerun passes it", async () => {
  const { repo, ...root } = project();
  const policy = join(root.configRoot, "policies/demo-verification.rhai");
  const started = await start({
    repo,
    ...root,
    responses: [
      toolUse(write("W", "src/a.ts")),
      toolUse(bash("V")),
      say("verified"),
      // after the fix
      toolUse(bash("R")),
      say("verified again"),
      say("never requested"),
    ],
  });
  await started.session.prompt("change the code");
  assert.equal(footer(started.ui), `hooks: ${root.configRoot} · 0 diagnostics · checks: 1 passed, 0 pending`);

  writeFileSync(policy, "const ID = ;\n");
  await started.session.reload();
  // The broken policy's degraded footer is the session's one problem, to its end.
  const degraded = [`degraded footer: hooks: ${root.configRoot} · 0 diagnostics · checks: 0 passed, 1 pending · degraded (/hooks-doctor)`];
  expectProblems(started, degraded);
  assert.equal(footer(started.ui), `hooks: ${root.configRoot} · 0 diagnostics · checks: 0 passed, 1 pending · degraded (/hooks-doctor)`);
  const status = (await command(started, "/hooks-status")).join("\n");
  assert.equal(checkLine(status), "demo-verification/check `sh verify.sh`: unknown (required revision 1)");
  assert.ok(status.includes(`\n  degraded: policy "demo-verification" degraded: ${policy}`), status);
  assert.ok(status.includes("\n    detached: policy `demo-verification` failed to load: "), status);
  const doctor = (await command(started, "/hooks-doctor")).join("\n");
  assert.ok(doctor.includes(`degraded since the last /reload (its checks stay unknown until it loads): policy "demo-verification" degraded: ${policy}`), doctor);

  writeFileSync(policy, POLICY);
  await started.session.reload();
  expectProblems(started, degraded);
  assert.equal(footer(started.ui), `hooks: ${root.configRoot} · 0 diagnostics · checks: 0 passed, 1 pending`, "no longer degraded; unproven until rerun");
  const fixed = (await command(started, "/hooks-status")).join("\n");
  assert.equal(checkLine(fixed), "demo-verification/check `sh verify.sh`: unknown (required revision 1)");
  assert.match(fixed, new RegExp(`\\n  demo-verification \\(verification\\) ${policy.replaceAll(".", "\\.")}: loaded, digest [0-9a-f]{64}\\n`));
  assert.doesNotMatch(fixed, /degraded|detached/);

  await started.session.prompt("verify again");
  expectProblems(started, degraded);
  assert.equal(started.faux.state.callCount, 5, "the rerun passed it and Pi settled");
  assert.equal(footer(started.ui), `hooks: ${root.configRoot} · 0 diagnostics · checks: 1 passed, 0 pending`);
  started.session.dispose();
});

test("/reload re-reads settings.toml: the reloaded continuation cap bounds the gate; a broken file keeps it", async () => {
  const { repo, ...root } = project();
  const settings = join(root.configRoot, "settings.toml");
  const started = await start({
    repo,
    ...root,
    responses: [
      say("nothing to do"),
      // after the reload: a relevant change, then the agent tries to stop twice
      toolUse(write("W", "src/a.ts")),
      say("done"),
      say("still done"),
      say("never requested"),
    ],
  });
  await started.session.prompt("hello");
  writeFileSync(settings, "[verification]\ncontinuation_cap = 1\n");
  await started.session.reload();
  assertNoProblems(started);
  const status = (await command(started, "/hooks-status")).join("\n");
  assert.ok(status.includes("\n  verification.continuation_cap = 1, "), status);

  await started.session.prompt("change the code");
  assertNoProblems(started);
  assert.equal(started.faux.state.callCount, 4, "one continuation, then the reloaded cap of 1 stops forcing");
  assert.equal(footer(started.ui), `hooks: ${root.configRoot} · 0 diagnostics · checks: 0 passed, 1 pending · gate exhausted`);

  writeFileSync(settings, "[verification\n");
  await started.session.reload();
  expectProblems(started, [`degraded footer: hooks: ${root.configRoot} · 0 diagnostics · checks: 0 passed, 1 pending · gate exhausted · degraded (/hooks-doctor)`]);
  const kept = (await command(started, "/hooks-status")).join("\n");
  assert.ok(kept.includes(`settings: ${settings} (failed to load at /reload; the settings in force before /reload are kept)`), kept);
  assert.ok(kept.includes("\n  verification.continuation_cap = 1, "), kept);
  assert.match(kept, /settings problem: .*settings\.toml:1: not valid TOML: .*\(the settings in force before \/reload are kept\)/);
  assert.match(footer(started.ui) ?? "", /degraded \(\/hooks-doctor\)$/);
  started.session.dispose();
});

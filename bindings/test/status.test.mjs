// `/hooks-status` answers why a check is in its state, on the real Pi runtime: after a run that
// did not count it names the call, the revision, when, and the reason; after a pass, the last
// success; and every policy with its file, load state and digest.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertNoProblems, assertRealUntouched, command, say, start, toolUse } from "./harness.mjs";
import { CHECK, bash, project, write } from "./project.mjs";

after(assertRealUntouched);

const WHEN = "\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2} UTC";
/** `text` as a regular expression matching itself. @param {string} text */
const literal = (text) => text.replace(/[.*+?^${}()|[\]\\`]/g, "\\$&");

test("/hooks-status after a run racing a sibling write names the rejected run and why, and then the success", async () => {
  const { repo, ...root } = project();
  const started = await start({
    repo,
    ...root,
    responses: [
      toolUse(write("W", "src/a.ts")),
      say("done"),
      toolUse(bash("V"), write("S", "src/a.ts")),
      say("done, verified"),
      toolUse(bash("P")),
      say("verified alone"),
      say("never requested"),
    ],
  });
  await started.session.prompt("change the code");
  assertNoProblems(started);
  assert.equal(started.faux.state.callCount, 6);
  const status = (await command(started, "/hooks-status")).join("\n");
  const expected = [
    `  demo-verification/check \`${CHECK}\`: passed \\(required revision 2\\)`,
    `    project ${literal(`\`demo-app\` (package.json at ${repo}), run in ${repo}`)}`,
    `    last success: call P at revision 2 \\(required 2\\), ${WHEN}`,
    `    last rejected run: call V at revision 1, ${WHEN}: \`write\` call S ran in the same batch and may have changed files while it ran`,
  ].join("\n");
  assert.match(status, new RegExp(`\\n${expected}\\n`));
  const policy = join(root.configRoot, "policies/demo-verification.rhai");
  assert.match(status, new RegExp(`\\n  demo-verification \\(verification\\) ${literal(policy)}: loaded, digest [0-9a-f]{64}\\n`));
  started.session.dispose();
});

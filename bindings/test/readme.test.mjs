// The README's "For Pi users" section shows what a first run prints, copied from
// `benches/pi/readme-sample.mjs`. This runs the same first run on the real Pi runtime and checks
// that the README still shows exactly the tool-result block and the footer it produces.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE, ROOT, assertNoProblems, assertRealUntouched, call, footer, newRepo, say, start, toolResults, toolUse } from "./harness.mjs";

after(assertRealUntouched);

/** The `text` code blocks of the README's "For Pi users" section, in order. */
function sampleBlocks() {
  const readme = readFileSync(join(PACKAGE, "README.md"), "utf8");
  const section = readme.split("\n## For Pi users\n")[1]?.split("\n## ")[0] ?? "";
  return [...section.matchAll(/```text\n([\s\S]*?)\n```/g)].map((match) => match[1]);
}

test("the README's first-run sample is what a first run on the built-in pack prints", async () => {
  const repo = newRepo({ "package.json": JSON.stringify({ name: "shop", scripts: { test: "exit 0" } }, null, 2) + "\n" });
  const started = await start({
    repo,
    configRoot: join(ROOT, "readme", "pi-native-hooks"),
    responses: [
      toolUse(call("write", { path: "src/user.ts", content: "declare const user: { name?: string } | undefined;\nexport const name = user!.name;\n" }, { id: "W1" })),
      say("done"),
    ],
  });
  await started.session.prompt("add the user's name");
  assertNoProblems(started);
  const [[, , block]] = toolResults(started.contexts[1]);
  const [shownBlock, shownFooter] = sampleBlocks();
  assert.ok(shownBlock?.includes("typescript-no-non-null-assertion-ts"), "the README shows the block");
  assert.equal(block, shownBlock);
  assert.equal(footer(started.ui), shownFooter);
  started.session.dispose();
});

// Prints what a Pi user sees, from a real run: the real Pi runtime with the faux provider, this
// package's extension, a fresh Node project and a config root made by `pi-native-hooks init` (with
// the verification policy it proposes). The README's first section is copied from this output.
//
//   . scripts/provision.sh && npm run build && cargo build -p pi-native-hooks-cli
//   node benches/pi/readme-sample.mjs
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { PACKAGE, ROOT, call, footer, newRepo, say, start, text, toolResults, toolUse } from "../../bindings/test/harness.mjs";

const repo = newRepo({ "package.json": JSON.stringify({ name: "shop", scripts: { test: "exit 0" } }, null, 2) + "\n" });
const root = join(ROOT, "config", "pi-native-hooks");
const cli = join(PACKAGE, "target/debug/pi-native-hooks");

const firstRun = await start({
  repo,
  configRoot: root,
  responses: [toolUse(call("write", { path: "src/user.ts", content: "declare const user: { name?: string } | undefined;\nexport const name = user!.name;\n" }, { id: "W1" })), say("done")],
});
await firstRun.session.prompt("add the user's name");
const [[, , block]] = toolResults(firstRun.contexts[1]);
console.log("== first run, no config root: the tool result the model receives ==");
console.log(block);
console.log("== footer ==");
console.log(footer(firstRun.ui));
firstRun.session.dispose();

console.log("== pi-native-hooks init (dry run, last lines) ==");
const dry = execFileSync(cli, ["init", "--dry-run", "--config", root], { cwd: repo, encoding: "utf8" }).trim().split("\n");
console.log(dry.slice(-2).join("\n"));
execFileSync(cli, ["init", "--config", root], { cwd: repo });

const gated = await start({
  repo,
  configRoot: root,
  responses: [
    toolUse(call("write", { path: "src/total.ts", content: "export const total = (xs: number[]) => xs.reduce((a, b) => a + b, 0);\n" }, { id: "W2" })),
    say("done"),
    toolUse(call("bash", { command: "npm test" }, { id: "T" })),
    say("tests pass"),
  ],
});
await gated.session.prompt("add a total");
const continuation = gated.contexts[2].messages.at(-1);
console.log("== with the root: the gate's continuation message ==");
console.log(text(continuation));
console.log("== footer after the check passed ==");
console.log(footer(gated.ui).replace(root, "~/.config/pi-native-hooks"));
gated.session.dispose();

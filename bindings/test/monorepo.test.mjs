// Scenario on the real Pi runtime: a workspace with two packages whose checks differ. Pi starts in
// packages/a; the agent changes packages/b. Only b's check is armed, the continuation names b's
// command, its directory and the one form that runs it from elsewhere (`cd <dir> && <command>`),
// and running that form passes it while a's check stays inactive.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { assertNoProblems, assertRealUntouched, call, command, configRoot, footer, newRepo, say, start, toolUse } from "./harness.mjs";
import { gatesIn } from "./project.mjs";

after(assertRealUntouched);

/** A verification policy for `packages/<pkg>`: `command` after a change under its `src/`. @param {string} pkg @param {string} check */
const policy = (pkg, check) => `const ID = "${pkg}-tests";
const KIND = "verification";
const PROJECT = #{ dir: "packages/${pkg}", manifest: "package.json", name: "${pkg}" };
const REQUIREMENTS = [ #{ id: "test", command: "${check}", affects: "code" } ];

fn code(path) { path.starts_with("src/") }
`;

/**
 * Starts Pi in `packages/a` of `repo`; the agent writes `packages/b/src/b.ts`, is sent back once,
 * runs `runB` and settles. Asserts that course and returns the session and its one gate message.
 * @param {string} repo @param {string} root @param {string} runB
 */
async function changeBFromA(repo, root, runB) {
  const started = await start({
    repo: join(repo, "packages/a"),
    configRoot: root,
    responses: [
      toolUse(call("write", { path: "../b/src/b.ts", content: "export const b = 2;\n" }, { id: "W" })),
      say("done"),
      toolUse(call("bash", { command: runB }, { id: "V" })),
      say("verified"),
      say("never requested"),
    ],
  });
  await started.session.prompt("change package b");
  assertNoProblems(started);
  assert.equal(started.faux.state.callCount, 4, "one continuation, then settled after b's check ran");
  const [gate, ...more] = gatesIn(started.contexts[2]);
  assert.deepEqual(more, [], "one gate message");
  return { started, gate };
}

/** The `/hooks-status` text and its lines, trimmed. @param {any} started */
async function statusLines(started) {
  const status = (await command(started, "/hooks-status")).join("\n");
  return { status, lines: status.split("\n").map((line) => line.trim()) };
}

test("in a workspace, a change in packages/b arms only b's check, and b's command run from b passes it", async () => {
  const repo = newRepo({
    "package.json": '{ "name": "workspace", "private": true }\n',
    "packages/a/package.json": '{ "name": "a" }\n',
    "packages/a/test-a.sh": 'echo "a: ok"\n',
    "packages/a/src/a.ts": "export const a = 1;\n",
    "packages/b/package.json": '{ "name": "b" }\n',
    // Runs only from packages/b: the script checks where it is.
    "packages/b/test-b.sh": '[ -f test-b.sh ] || exit 3\necho "b: ok"\n',
    "packages/b/src/b.ts": "export const b = 1;\n",
  });
  const root = configRoot({
    "policies/a-tests.rhai": policy("a", "sh test-a.sh"),
    "policies/b-tests.rhai": policy("b", "sh test-b.sh"),
  });
  const b = realpathSync(join(repo, "packages/b"));
  const runB = `cd ${b} && sh test-b.sh`;
  const { started, gate } = await changeBFromA(repo, root, runB);
  assert.ok(gate?.includes(`- \`sh test-b.sh\` in \`packages/b\`: run \`${runB}\``), gate);
  assert.ok(!gate?.includes("sh test-a.sh"), `a's check is not armed: ${gate}`);

  const { status, lines } = await statusLines(started);
  assert.ok(
    lines.some((line) => line.startsWith("b-tests/test `sh test-b.sh`: passed")),
    status,
  );
  assert.ok(!lines.some((line) => line.startsWith("a-tests/test") && /passed|not run|stale|unknown/.test(line)), status);
  const shown = footer(started.ui) ?? "";
  assert.ok(shown.endsWith("0 pending"), shown);
  started.session.dispose();
});

test("one policy over packages/*/package.json: b's change arms only b's instance, named by its directory, and its run passes it", async () => {
  const repo = newRepo({
    "package.json": '{ "name": "workspace", "private": true }\n',
    "packages/a/package.json": '{ "name": "a" }\n',
    "packages/a/test.sh": '[ -f a.marker ] || exit 3\necho "a: ok"\n',
    "packages/a/a.marker": "",
    "packages/a/src/a.ts": "export const a = 1;\n",
    "packages/b/package.json": '{ "name": "b" }\n',
    "packages/b/test.sh": '[ -f b.marker ] || exit 3\necho "b: ok"\n',
    "packages/b/b.marker": "",
    "packages/b/src/b.ts": "export const b = 1;\n",
  });
  const root = configRoot({
    "policies/pkg-tests.rhai": `const ID = "pkg-tests";
const KIND = "verification";
const PROJECT = #{ manifests: "packages/*/package.json" };
const REQUIREMENTS = [ #{ id: "test", command: "sh test.sh", affects: "code" } ];

fn code(path) { path.starts_with("src/") }
`,
  });
  const b = realpathSync(join(repo, "packages/b"));
  const runB = `cd ${b} && sh test.sh`;
  const { started, gate } = await changeBFromA(repo, root, runB);
  assert.ok(gate?.includes("Outstanding for project `b`"), gate);
  assert.ok(gate?.includes(`- \`sh test.sh\` in \`packages/b\`: run \`${runB}\``), gate);
  assert.ok(!gate?.includes("`a`"), `a's instance is not armed: ${gate}`);

  const { status, lines } = await statusLines(started);
  assert.ok(lines.some((line) => line.startsWith("pkg-tests/test@packages/b `sh test.sh`: passed")), status);
  assert.ok(lines.some((line) => line.startsWith("pkg-tests/test@packages/a `sh test.sh`: inactive")), status);
  assert.match(footer(started.ui) ?? "", /checks: 1 passed, 0 pending$/);
  started.session.dispose();
});

// Hostile and unlucky input on the real Pi runtime: a FIFO (or a symlink to one) named `*.ts`
// never hangs the prompt and is reported as not analyzed; a pass goes stale when a file changes
// outside any tool call, even when the next wave only runs `git status`.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { closeSync, constants, existsSync, lstatSync, openSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { assertNoProblems, assertRealUntouched, call, command, configRoot, newRepo, say, start, text, toolResults, toolUse } from "./harness.mjs";
import { bash, footers, gatesIn, project, write } from "./project.mjs";

after(assertRealUntouched);

/** The wave timeout of these sessions: every wait of the hooks ends after it. */
const WAVE_TIMEOUT_MS = 1500;
/** How long a prompt may take before the test calls it hung (several wave timeouts). */
const HUNG_MS = 30_000;

/**
 * Resolves like `promise`, or rejects once `ms` have passed: a hang fails the test.
 * @template T
 * @param {number} ms
 * @param {Promise<T>} promise
 * @param {string} what named in the error
 * @returns {Promise<T>}
 */
async function within(ms, promise, what) {
  let timer;
  const expired = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not return within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** Releases every reader blocked opening the FIFO `path` and puts an empty regular file in its
 *  place, so nothing the test started stays blocked (a regression must fail, not hang the run).
 *  @param {string} path */
function release(path) {
  if (!existsSync(path) || !lstatSync(path).isFIFO()) return;
  // Opening a FIFO for reading and writing never blocks; a writer releases the blocked readers.
  const fd = openSync(path, constants.O_RDWR);
  writeFileSync(`${path}.regular`, "");
  renameSync(`${path}.regular`, path);
  closeSync(fd);
}

for (const [name, commandLine, fifo, reported] of [
  ["a symlink `src/x.ts` to a FIFO", "mkfifo pipe && ln -s ../pipe src/x.ts", "pipe", "src/x.ts"],
  ["a FIFO named `src/pipe.ts`", "mkfifo src/pipe.ts", "src/pipe.ts", "src/pipe.ts"],
]) {
  test(`${name}, made by one bash call, never hangs the prompt and is reported as not analyzed`, async () => {
    const repo = newRepo({ "src/ok.ts": "export const ok = 1;\n" });
    const started = await start({
      repo,
      configRoot: configRoot(),
      options: { waveTimeoutMs: WAVE_TIMEOUT_MS },
      responses: [toolUse(call("bash", { command: commandLine }, { id: "F" })), say("done"), say("never requested")],
    });
    const prompt = started.session.prompt("make a pipe");
    try {
      await within(HUNG_MS, prompt, "session.prompt()");
    } finally {
      release(join(repo, fifo));
      await within(HUNG_MS, prompt.catch(() => {}), "the prompt after releasing the FIFO");
    }
    assertNoProblems(started);
    assert.equal(started.faux.state.callCount, 2, "the model was called again after the bash call, then Pi settled");
    const [result] = toolResults(started.contexts[1]);
    assert.equal(result[0], "F");
    assert.equal(result[1], false, "the call's own result stands");
    assert.match(
      result[2],
      /\nWarning: this check is incomplete \(1 file not fully analyzed\); missing diagnostics do not mean clean code\./,
      "the block says the check was incomplete",
    );
    const status = (await command(started, "/hooks-status")).join("\n");
    assert.match(status, new RegExp(`\\n  not analyzed: ${reported.replace(".", "\\.")}: .+\\n`), status);
    started.session.dispose();
  });
}

test("a pass goes stale when a file changes outside any tool call and the next wave only runs `git status`", async () => {
  const { repo, ...root } = project();
  const started = await start({
    repo,
    ...root,
    responses: [
      toolUse(write("W", "src/a.ts")),
      toolUse(bash("V")),
      // Between two waves, outside any tool call: the user's editor changes the file.
      () => (writeFileSync(join(repo, "src/a.ts"), "export const a = 2; // edited outside\n"), toolUse(bash("G", "git status --short"))),
      say("done"),
      toolUse(bash("V2")),
      say("verified"),
      say("never requested"),
    ],
  });
  await within(HUNG_MS, started.session.prompt("change the code"), "session.prompt()");
  assertNoProblems(started);
  assert.deepEqual(
    toolResults(started.contexts[3]).map(([id, isError]) => [id, isError]),
    [
      ["W", false],
      ["V", false],
      ["G", false],
    ],
  );
  assert.equal(started.faux.state.callCount, 6, "Pi continued with the gate message instead of settling, then settled after the rerun");
  const [gate] = gatesIn(started.contexts[4]);
  assert.match(gate ?? "", /\n- `sh verify\.sh` — stale: files it depends on changed at revision \d+, after its last run or waiver\n/, gate);
  assert.equal(footers(started.ui).at(-1), `hooks: ${root.configRoot} · 0 diagnostics · checks: 1 passed, 0 pending`);
  const rerun = started.contexts[5].messages.at(-1);
  assert.ok(rerun && text(rerun).includes("verify: ok"), "the rerun passed it");
  started.session.dispose();
});

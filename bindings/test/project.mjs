// A fixture project for the verification scenarios: a git repository whose package.json names
// `demo-app`, a check script that really runs in bash, and a config root whose verification
// policy requires `sh verify.sh` after any change under src/.
import { call, configRoot, newRepo, text } from "./harness.mjs";

/**
 * @typedef {import("@earendil-works/pi-coding-agent").SessionManager} SessionManager
 * @typedef {import("@earendil-works/pi-ai").TranscriptContext} TranscriptContext
 * @typedef {import("./ui.mjs").UICall} UICall
 */

export const GATE = "pi-native-hooks-verification";
export const WAIVER = "pi_hooks_waive_verification";
export const CHECK = "sh verify.sh";

export const POLICY = `const ID = "demo-verification";
const KIND = "verification";
const PROJECT = #{ manifest: "package.json", name: "demo-app" };
const REQUIREMENTS = [
    #{ id: "check", command: "${CHECK}", affects: "affects_src" },
];

fn affects_src(path) { path.starts_with("src/") }
`;
// Fails while the (git-ignored) file FAIL exists.
const VERIFY = 'if [ -e FAIL ]; then echo "verify: failing"; exit 1; fi\necho "verify: ok"\n';

/**
 * A new fixture repository and a config root holding the built-in pack plus the policy.
 * @param {Record<string, string>} [files] more files to commit, by path
 * @returns {{ repo: string, configRoot: string }}
 */
export function project(files = {}) {
  const repo = newRepo({
    "package.json": '{ "name": "demo-app", "private": true }\n',
    "verify.sh": VERIFY,
    ".gitignore": "FAIL\n",
    "README.md": "# demo\n",
    ...files,
  });
  return { repo, configRoot: configRoot({ "policies/demo-verification.rhai": POLICY }) };
}

/** A `write` call with id `id`. @param {string} id @param {string} path @param {string} [content] */
export const write = (id, path, content = `export const ${id.toLowerCase()} = 1;\n`) => call("write", { path, content }, { id });
/** A `bash` call with id `id`, running the check by default. @param {string} id @param {string} [commandLine] */
export const bash = (id, commandLine = CHECK) => call("bash", { command: commandLine }, { id });
/** A call of the waiver tool with id `id`. @param {string} id @param {string} reason */
export const waive = (id, reason) => call(WAIVER, { reason }, { id });

/**
 * The gate message listing `details` (one per outstanding run of the check) for `repo`.
 * @param {string} repo
 * @param {...string} details
 * @returns {string}
 */
export const gateMessage = (repo, ...details) =>
  [
    "Verification required before you finish.",
    `Outstanding for project \`demo-app\` (package.json at ${repo}):`,
    ...details.map((detail) => `- \`${CHECK}\` — ${detail}`),
    `Run each command exactly as written with the bash tool, from ${repo}, as its own call: no extra arguments, \`&&\`, pipes or \`cd\`, and no file changes in the same batch. If a check cannot be run, call \`${WAIVER}\` with the reason instead; the user sees the waiver and it never counts as a pass.`,
  ].join("\n");

/**
 * The gate messages the model received in one request (it sees them as user messages).
 * @param {TranscriptContext} context
 * @returns {string[]}
 */
export const gatesIn = (context) =>
  context.messages.filter((m) => m.role === "user" && text(m).startsWith("Verification required")).map(text);

/**
 * The gate messages persisted in a session, as [content, display].
 * @param {SessionManager} sessionManager
 */
export const gateEntries = (sessionManager) =>
  sessionManager.getEntries().flatMap((e) => (e.type === "custom_message" && e.customType === GATE ? [[e.content, e.display]] : []));

/** The distinct consecutive footers shown, in order. @param {UICall[]} ui @returns {(string | undefined)[]} */
export const footers = (ui) =>
  ui
    .filter(([kind, key]) => kind === "setStatus" && key === "pi-native-hooks")
    .map(([, , value]) => value)
    .filter((value, i, all) => value !== all[i - 1]);

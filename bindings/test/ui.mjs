// The UI the end-to-end sessions bind: it records the calls the extension makes, in order, and
// answers `confirm` from a queue. No side effects on import, so the child script
// `no-addon-session.mjs` can use it without the harness (which isolates HOME on import).

/**
 * @typedef {import("@earendil-works/pi-coding-agent").ExtensionError} ExtensionError
 * @typedef {import("@earendil-works/pi-coding-agent").ExtensionUIContext} ExtensionUIContext
 * @typedef {import("@earendil-works/pi-coding-agent").ExtensionUIDialogOptions} ExtensionUIDialogOptions
 */

/**
 * One recorded UI call: the method's name, then its arguments.
 * @typedef {["notify", string, ("info" | "warning" | "error")?]
 *   | ["setStatus", string, string | undefined]
 *   | ["confirm", string, string, ExtensionUIDialogOptions?]} UICall
 */

/**
 * A UI context that pushes every `notify`, `setStatus` and `confirm` call onto `calls`; `confirm`
 * resolves to the next of `answers` (false once they run out).
 * @param {UICall[]} calls
 * @param {boolean[]} [answers]
 * @returns {ExtensionUIContext}
 */
export function recordingUI(calls, answers = []) {
  /** @type {Partial<ExtensionUIContext>} */
  const ui = {
    notify: (...args) => calls.push(["notify", ...args]),
    setStatus: (...args) => calls.push(["setStatus", ...args]),
    confirm: async (...args) => (calls.push(["confirm", ...args]), answers.shift() ?? false),
  };
  // Pi's interface declares some thirty members (dialogs, widgets, the editor, the theme); the
  // extension under test uses these three. The one cast: any other member Pi reaches for is
  // missing and fails loudly with a TypeError naming it, which is what a test should see.
  return /** @type {ExtensionUIContext} */ (ui);
}

/** The footer's status key. */
const STATUS_KEY = "pi-native-hooks";

/**
 * Every failure a session showed, in a form a test compares exactly: what Pi's `onError` reported
 * (`handler error (<event>): <message>`), then, in the order shown, each error-level notification
 * (`error notice: <message>`) and each footer that says `degraded`, once per change of the footer
 * (`degraded footer: <text>`). The extension's handlers catch their own exceptions and report them
 * through the notification and the footer, so Pi's `onError` alone never sees them. Warnings and
 * info notifications are not failures: tests assert those themselves.
 * @param {{ ui: UICall[], piErrors: ExtensionError[] }} observed
 * @returns {string[]}
 */
export function problems({ ui, piErrors }) {
  /** @type {string[]} */
  const found = piErrors.map((e) => `handler error (${e.event}): ${e.error}`);
  /** @type {string | undefined} */
  let shown;
  for (const call of ui) {
    if (call[0] === "notify" && call[2] === "error") found.push(`error notice: ${call[1]}`);
    if (call[0] !== "setStatus" || call[1] !== STATUS_KEY || call[2] === shown) continue;
    shown = call[2];
    if (shown?.includes("degraded")) found.push(`degraded footer: ${shown}`);
  }
  return found;
}

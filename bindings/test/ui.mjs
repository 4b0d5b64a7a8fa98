// The UI the end-to-end sessions bind: it records the calls the extension makes, in order, and
// answers `confirm` from a queue. No side effects on import, so the child script
// `no-addon-session.mjs` can use it without the harness (which isolates HOME on import).

/**
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

// Loads the engine's Node addon: from the platform package npm installed next to this package
// (`pi-native-hooks-linux-x64-gnu`, …), or from `bindings/native/` in a checkout built with
// `npm run build`. Without one, `native` is undefined and `addonProblem` says why in one line.
import { createRequire } from "node:module";
import type * as Native from "../native/index.js";

const require = createRequire(import.meta.url);
const addonLoader: { loadAddon(): { addon?: typeof Native; problem?: string }; tsserverBridge(): Native.TsserverBridge | undefined } = require("./addon.cjs");
const loaded = addonLoader.loadAddon();
/** The typescript-language-server this package brings, for projects with a TypeScript before 7. */
export const tsserverBridge: Native.TsserverBridge | undefined = addonLoader.tsserverBridge();

export const native: typeof Native | undefined = loaded.addon;
/** Why the addon is not available (platform, prebuilt platforms, how to build), when it is not. */
export const addonProblem: string | undefined = loaded.problem;
export type HookSession = Native.HookSession;
export type PersistedEntry = Native.PersistedEntry;
export type BindingError = Native.BindingError;
export type ResultDecision = Native.ResultDecision;
export type ToolResultEvent = Native.ToolResultEvent;
export type EntryPoint = Native.EntryPoint;

/** An engine error as a JS error: `code` is the `PNH_*` code, the message starts with it. */
export class HooksError extends Error {
  readonly code: Native.ErrorCode;
  constructor(error: BindingError) {
    super(`${error.code}: ${error.message}`);
    this.name = "HooksError";
    this.code = error.code;
  }
}

/** True for an engine error returned as data (a plain object with a `PNH_*` code). */
export const isBindingError = (value: unknown): value is BindingError =>
  typeof value === "object" &&
  value !== null &&
  !Array.isArray(value) &&
  typeof (value as { code?: unknown }).code === "string" &&
  (value as { code: string }).code.startsWith("PNH_");

/** The value, or throws the engine error it is as a {@link HooksError}. */
export const unwrap = <T>(value: T | BindingError): T => {
  if (isBindingError(value)) throw new HooksError(value);
  return value;
};

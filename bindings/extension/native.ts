// Loads the engine's Node addon: from the platform package npm installed next to this package
// (`pi-native-hooks-linux-x64-gnu`, …), or from `bindings/native/` in a checkout built with
// `npm run build:addon`. Without one, `native` is undefined and `addonProblem` says why in one line.
import { createRequire } from "node:module";
import type * as Native from "../native/index.js";

const require = createRequire(import.meta.url);
const loaded: { addon?: typeof Native; problem?: string } = require("./addon.cjs").loadAddon();

export const native: typeof Native | undefined = loaded.addon;
/** Why the addon is not available (platform, prebuilt platforms, how to build), when it is not. */
export const addonProblem: string | undefined = loaded.problem;
export type HookSession = Native.HookSession;
export type PersistedEntry = Native.PersistedEntry;

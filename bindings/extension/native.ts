// Loads the engine's Node addon from this package (built by `npm run build:addon`; Pi does not
// install a local package's dependencies, so the package carries the addon and its loader).
import { createRequire } from "node:module";
import type * as Native from "../native/index.js";

const require = createRequire(import.meta.url);

export const native: typeof Native = require("../native/index.js");
export type HookSession = Native.HookSession;
export type PersistedEntry = Native.PersistedEntry;

// Loads the engine's Node addon through napi's generated loader (`../native/index.js`), which picks
// the platform package (`pi-native-hooks-linux-x64-gnu`, …) or a locally built `.node` file. When
// there is none, it says so in one line — the platform, the prebuilt ones and how to build from
// source — instead of the loader's advice about an npm bug, which is wrong here. Shared by the Pi
// extension (`native.ts`) and the package's `bin`; plain CommonJS so both can require it. Also
// finds the typescript-language-server the package brings, for the engine's type check.
"use strict";

const { napi } = require("../../package.json");

/** @type {Record<string, string | undefined>} */
const ARCH = { x86_64: "x64", aarch64: "arm64" };
/** @type {Record<string, string[] | undefined>} */
const OS = { "unknown-linux-gnu": ["linux", "gnu"], "unknown-linux-musl": ["linux", "musl"], "apple-darwin": ["darwin"] };

/**
 * napi's platform name of a Rust target triple (`aarch64-unknown-linux-musl` → `linux-arm64-musl`).
 * @param {string} triple
 * @returns {string}
 */
function platformName(triple) {
  const [arch, ...rest] = triple.split("-");
  const [os, abi] = OS[rest.join("-")] ?? [rest.join("-")];
  return [os, ARCH[arch] ?? arch, abi].filter(Boolean).join("-");
}

/** The platforms with a prebuilt addon, from `napi.targets` of package.json. */
const SUPPORTED = napi.targets.map(platformName);

function isMusl() {
  // Node declares the report as a bare `object`; its header is documented (`process.report`).
  const report = /** @type {{ header?: { glibcVersionRuntime?: string } } | undefined} */ (process.report?.getReport?.());
  return !report?.header?.glibcVersionRuntime;
}

/** This process's platform, named as the platform packages are. */
function hostPlatform() {
  const abi = process.platform === "linux" ? (isMusl() ? "musl" : "gnu") : undefined;
  return [process.platform, process.arch, abi].filter(Boolean).join("-");
}

/**
 * The messages of an error and its `cause` chain (the loader chains every attempt it made).
 * @param {unknown} error
 * @returns {string[]}
 */
function messages(error) {
  const all = [];
  for (let e = error; e && all.length < 64; e = typeof e === "object" && "cause" in e ? e.cause : undefined) {
    all.push(String(typeof e === "object" && "message" in e ? (e.message ?? e) : e));
  }
  return all;
}

/** @param {string} text */
const firstLine = (text) => {
  const line = text.split("\n", 1)[0].trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
};

/**
 * One line explaining why the addon is not available.
 * @param {unknown} error what loading the addon threw
 */
function explain(error) {
  const platform = hostPlatform();
  const prebuilt = `prebuilt for ${SUPPORTED.join(", ")}`;
  const build = "build it from source with `npm run build` in a checkout of the repository (needs Rust)";
  if (!SUPPORTED.includes(platform)) {
    return `no native addon for this platform (${platform}); ${prebuilt}; ${build}`;
  }
  // A supported platform: the platform package is missing, or its addon failed to load.
  const failure = messages(error).find((m) => !/Cannot find module|Cannot find native binding|WASI|wasi/.test(m));
  const why = failure
    ? `the addon for ${platform} failed to load: ${firstLine(failure)}`
    : `the addon for ${platform} is not installed (no package pi-native-hooks-${platform})`;
  return `${why}; reinstall the package (\`pi install npm:pi-native-hooks\`) or ${build}; ${prebuilt}`;
}

/** @typedef {{ addon?: typeof import("../native/index.js"), problem?: string }} Loaded */

/** @type {Loaded | undefined} */
let loaded;

/** `{ addon }`, or `{ problem }`: one line naming the platform, the prebuilt ones and the way to
 *  build from source. Loads once per process.
 *  @returns {Loaded} */
function loadAddon() {
  if (!loaded) {
    try {
      loaded = { addon: require("../native/index.js") };
    } catch (error) {
      loaded = { problem: explain(error) };
    }
  }
  return loaded;
}

/**
 * typescript-language-server, which the engine runs for projects with a TypeScript before 7 (7 and
 * later are their own language server): the one this package depends on, run by this process's
 * Node. Undefined when it is not installed; the engine then looks for one beside the project.
 * @returns {{ node: string, cli: string } | undefined}
 */
function tsserverBridge() {
  try {
    return { node: process.execPath, cli: require.resolve("typescript-language-server/lib/cli.mjs") };
  } catch {
    return undefined;
  }
}

module.exports = { loadAddon, platformName, tsserverBridge, SUPPORTED };

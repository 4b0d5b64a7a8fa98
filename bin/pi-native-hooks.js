#!/usr/bin/env node
// The `pi-native-hooks` command of the npm package: the engine's command line (`check`, `test`,
// `init`, `doctor`) run in this process through the prebuilt addon, so it needs no Rust. Output and
// exit codes are the cargo-built binary's.
"use strict";

const { loadAddon, tsserverBridge } = require("../bindings/extension/addon.cjs");

const { addon, problem } = loadAddon();
if (addon) {
  const status = addon.runCli(process.argv.slice(2), { tsserverBridge: tsserverBridge() });
  if (typeof status === "number") {
    process.exitCode = status;
  } else {
    // The engine panicked (a defect): the addon caught it. 101 is the exit code of the cargo-built
    // binary's panic.
    process.stderr.write(`pi-native-hooks: error: ${status.code}: ${status.message}\n`);
    process.exitCode = 101;
  }
} else {
  process.stderr.write(`pi-native-hooks: error: ${problem}\n`);
  process.exitCode = 2;
}

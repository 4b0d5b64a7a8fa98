#!/usr/bin/env node
// The `pi-native-hooks` command of the npm package: the engine's command line (`check`, `test`,
// `init`, `doctor`) run in this process through the prebuilt addon, so it needs no Rust. Output and
// exit codes are the cargo-built binary's.
"use strict";

const { loadAddon } = require("../bindings/extension/addon.cjs");

const { addon, problem } = loadAddon();
if (addon) {
  process.exitCode = addon.runCli(process.argv.slice(2));
} else {
  process.stderr.write(`pi-native-hooks: error: ${problem}\n`);
  process.exitCode = 2;
}

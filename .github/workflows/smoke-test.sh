#!/bin/sh
# Runs the packaged command over the addon in bindings/native on this platform: `check` must load
# the addon through napi's loader and report the one finding of a TS file with a non-null
# assertion (exit 1). Used by release.yml on every release target (POSIX sh: Alpine has no bash).
set -eu
mkdir -p smoke
printf 'declare const m: Map<string, number>;\nexport const a = m.get("a")!;\n' > smoke/a.ts
set +e
out="$(node bin/pi-native-hooks.js check --builtin smoke/a.ts)"
code=$?
set -e
printf '%s\n' "$out"
test "$code" -eq 1
test "$out" = 'smoke/a.ts:2:18 typescript-no-non-null-assertion-ts Non-null assertion `!` hides a possibly null or undefined value.'

#!/bin/sh
# Runs the packaged command on this platform: `check` must load the addon through napi's loader and
# report the one finding of a TS file with a non-null assertion (exit 1). It asks for the concise
# format, the one it compares, so a change of the default format cannot break it.
#   smoke-test.sh [PACKAGE_DIR]
# PACKAGE_DIR is the package whose command runs: by default this checkout, whose bindings/native
# holds the addon a release job downloaded; scripts/release-rehearsal passes the package it
# installed from its local registry. Used by release.yml on every release target and by the
# rehearsal in ./scripts/test (POSIX sh: Alpine has no bash).
set -eu
package="$(cd "${1:-$(dirname "$0")/../..}" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
mkdir smoke
printf 'declare const m: Map<string, number>;\nexport const a = m.get("a")!;\n' > smoke/a.ts
set +e
out="$(node "$package/bin/pi-native-hooks.js" check --builtin --format concise smoke/a.ts)"
code=$?
set -e
printf '%s\n' "$out"
expected='smoke/a.ts:2:18 typescript-no-non-null-assertion-ts Non-null assertion `!` hides a possibly null or undefined value.'
if [ "$code" -ne 1 ] || [ "$out" != "$expected" ]; then
  printf 'smoke test: expected exit 1 and the line\n%s\ngot exit %s\n' "$expected" "$code" >&2
  exit 1
fi

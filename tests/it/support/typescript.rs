//! A TypeScript project on disk with a pinned TypeScript installed the way a project installs it
//! (`node_modules/typescript`, a symlink to the installs `scripts/provision.sh` makes from
//! `tests/typescript-servers`), for the tests that start the real language servers: TypeScript 7
//! (`tsc --lsp`) and TypeScript 5 (tsserver, served by the pinned typescript-language-server).

pub use pi_native_hooks_test_support::typescript::Ts;
use pi_native_hooks_test_support::typescript::pinned_modules;
pub use pi_native_hooks_test_support::write;
use pi_native_hooks_typescript::TsserverBridge;
use std::path::{Path, PathBuf};

/// The `node_modules` folder holding a pinned server (see
/// [`pi_native_hooks_test_support::typescript::pinned_modules`]). Panics with what to run when it
/// is not installed: a missing server is a failure, never a skipped test.
pub fn ts_modules(ts: Ts) -> PathBuf {
    pinned_modules(ts).unwrap_or_else(|why| panic!("{why}"))
}

/// The pinned typescript-language-server, run by the `node` on `PATH` (`scripts/provision.sh`
/// puts a Node >= 22.19 first), as the npm package's host passes its own.
pub fn tsserver_bridge() -> TsserverBridge {
    let node = std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|d| d.join("node"))
        .find(|p| p.is_file())
        .expect("a `node` on PATH: run `. scripts/provision.sh`");
    TsserverBridge {
        node,
        cli: ts_modules(Ts::V5).join("typescript-language-server/lib/cli.mjs"),
    }
}

/// Makes `root` a strict TypeScript project over `src/` with TypeScript 7 installed.
pub fn ts7_project(root: &Path) {
    ts_project(root, Ts::V7);
}

/// Makes `root` a strict TypeScript project over `src/` with the pinned TypeScript `ts` installed.
pub fn ts_project(root: &Path, ts: Ts) {
    write(
        root,
        "tsconfig.json",
        r#"{ "compilerOptions": { "strict": true, "target": "es2022", "module": "nodenext", "noEmit": true }, "include": ["src"] }
"#,
    );
    write(root, "package.json", "{ \"type\": \"module\" }\n");
    std::fs::create_dir_all(root.join("node_modules")).expect("node_modules");
    std::os::unix::fs::symlink(
        ts_modules(ts).join("typescript"),
        root.join("node_modules/typescript"),
    )
    .expect("link typescript");
}

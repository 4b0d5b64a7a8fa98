//! A TypeScript project on disk with a pinned TypeScript installed the way a project installs it
//! (`node_modules/typescript`, a symlink to the installs `scripts/provision.sh` makes from
//! `tests/typescript-servers`), for the tests that start the real language servers: TypeScript 7
//! (`tsc --lsp`) and TypeScript 5 (tsserver, served by the pinned typescript-language-server).

use pi_native_hooks_typescript::TsserverBridge;
use std::path::{Path, PathBuf};

/// Which pinned TypeScript a test project has installed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ts {
    /// TypeScript 7: the native compiler is the language server.
    V7,
    /// TypeScript 5: its tsserver, served by typescript-language-server.
    V5,
}

/// The `node_modules` folder holding a pinned server: `PI_NATIVE_HOOKS_TS7_MODULES` or
/// `PI_NATIVE_HOOKS_TS5_MODULES` when set (by `scripts/provision.sh`), else the install beside the
/// tests. Panics with what to run when neither exists: a missing server is a failure, never a
/// skipped test.
pub fn ts_modules(ts: Ts) -> PathBuf {
    let (variable, folder) = match ts {
        Ts::V7 => ("PI_NATIVE_HOOKS_TS7_MODULES", "ts7"),
        Ts::V5 => ("PI_NATIVE_HOOKS_TS5_MODULES", "ts5"),
    };
    let modules = std::env::var_os(variable).map_or_else(
        || {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("typescript-servers")
                .join(folder)
                .join("node_modules")
        },
        PathBuf::from,
    );
    assert!(
        modules.join("typescript/package.json").is_file(),
        "the pinned TypeScript is not installed at {}: run `. scripts/provision.sh` (it runs \
         `npm ci` in tests/typescript-servers/{folder})",
        modules.display()
    );
    modules
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

/// Writes `text` to `root/path`, creating folders.
pub fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("create folder");
    }
    std::fs::write(path, text).expect("write file");
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

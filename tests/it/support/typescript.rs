//! A TypeScript project on disk with the pinned TypeScript 7 installed the way a project installs
//! it (`node_modules/typescript`, a symlink to the install `scripts/provision.sh` makes from
//! `tests/typescript-servers/ts7`), for the tests that start the real language server.

use std::path::{Path, PathBuf};

/// The `node_modules` folder holding the pinned TypeScript 7: `PI_NATIVE_HOOKS_TS7_MODULES` when
/// set (by `scripts/provision.sh`), else the install beside the tests. Panics with what to run
/// when neither exists: a missing server is a failure, never a skipped test.
pub fn ts7_modules() -> PathBuf {
    let modules = std::env::var_os("PI_NATIVE_HOOKS_TS7_MODULES").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("typescript-servers/ts7/node_modules"),
        PathBuf::from,
    );
    assert!(
        modules.join("typescript/package.json").is_file(),
        "TypeScript 7 is not installed at {}: run `. scripts/provision.sh` (it runs `npm ci` in \
         tests/typescript-servers/ts7)",
        modules.display()
    );
    modules
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
    write(
        root,
        "tsconfig.json",
        r#"{ "compilerOptions": { "strict": true, "target": "es2022", "module": "nodenext", "noEmit": true }, "include": ["src"] }
"#,
    );
    write(root, "package.json", "{ \"type\": \"module\" }\n");
    std::fs::create_dir_all(root.join("node_modules")).expect("node_modules");
    std::os::unix::fs::symlink(
        ts7_modules().join("typescript"),
        root.join("node_modules/typescript"),
    )
    .expect("link typescript");
}

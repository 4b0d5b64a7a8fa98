//! The pinned TypeScript installs (`tests/typescript-servers`, installed by `scripts/provision.sh`)
//! that the TypeScript analyzer's tests and benches run.

use crate::checkout;
use std::path::PathBuf;

/// Which pinned TypeScript.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ts {
    /// TypeScript 7: the native compiler is the language server.
    V7,
    /// TypeScript 5: its tsserver, served by typescript-language-server.
    V5,
}

/// The `node_modules` folder holding a pinned TypeScript: `PI_NATIVE_HOOKS_TS7_MODULES` or
/// `PI_NATIVE_HOOKS_TS5_MODULES` when set (by `scripts/provision.sh`), else the install in
/// `tests/typescript-servers`. The error, when TypeScript is not installed there, says what to
/// run.
pub fn pinned_modules(ts: Ts) -> Result<PathBuf, String> {
    let (variable, folder) = match ts {
        Ts::V7 => ("PI_NATIVE_HOOKS_TS7_MODULES", "ts7"),
        Ts::V5 => ("PI_NATIVE_HOOKS_TS5_MODULES", "ts5"),
    };
    let modules = std::env::var_os(variable).map_or_else(
        || {
            checkout()
                .join("tests/typescript-servers")
                .join(folder)
                .join("node_modules")
        },
        PathBuf::from,
    );
    if modules.join("typescript/package.json").is_file() {
        Ok(modules)
    } else {
        Err(format!(
            "the pinned TypeScript is not installed at {}: run `. scripts/provision.sh` (it runs \
             `npm ci` in tests/typescript-servers/{folder})",
            modules.display()
        ))
    }
}

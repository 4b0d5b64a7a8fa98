//! Where things are: this repository's checkout, and the public TypeScript corpora kept beside it.

use std::path::{Path, PathBuf};

/// This repository's checkout, the workspace root two folders above this crate (`tests/support`):
/// the shipped rules and policies, the docs, the test data.
///
/// # Panics
///
/// Never for a crate built where the workspace puts it.
pub fn checkout() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("the test-support crate is `tests/support` in the workspace")
}

/// The folder of public TypeScript code (zod, shadcn-ui, ...) some benches and on-demand tests
/// read, kept outside the repository: `$CORPORA` when set (relative to the checkout), else the
/// nearest `shared/corpora` beside the checkout or above it (a worktree may sit a level further
/// down). When there is none, `shared/corpora` beside the checkout, for the caller to name as
/// missing.
pub fn corpora() -> PathBuf {
    if let Some(dir) = std::env::var_os("CORPORA") {
        return checkout().join(dir);
    }
    let beside = checkout().parent().unwrap_or_else(|| checkout());
    beside
        .ancestors()
        .map(|dir| dir.join("shared").join("corpora"))
        .find(|dir| dir.is_dir())
        .unwrap_or_else(|| beside.join("shared").join("corpora"))
}

//! What the areas share: [`TestRepo`] (a temporary git repository) and [`ConfigRoot`] (a private
//! config root), each with a builder; running the CLI (`cli`); snapshots of rendered text
//! (`snapshot`); the git status comparison (`porcelain`); the wave coordinator's fakes and event
//! driver (`wave`); the gate driver playing a session (`gate`) and the monorepo with its gate
//! (`monorepo`); ast-grep's `CombinedScan`, the reference the analyzer's findings are checked
//! against (`combined_scan`); the generated corpus and the ast-grep CLI lookup (`corpus`, `ast_grep`, also
//! included by the benches).

pub mod ast_grep;
pub mod cli;
pub mod combined_scan;
pub mod config_root;
pub mod corpus;
pub mod gate;
pub mod monorepo;
pub mod porcelain;
pub mod repo;
pub mod snapshot;
pub mod typescript;
pub mod wave;

pub use config_root::ConfigRoot;
pub use repo::{TestRepo, git, git_cmd, symlink, write};

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// This repository's checkout, the workspace root above `tests/`: the shipped rules and
/// policies, the docs, the extension.
pub fn checkout() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests package is inside the workspace")
}

/// `relative` in the test data of this package, `tests/`: `fixtures/`, `real-corpus/` and
/// `snapshots/`.
pub fn test_data(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

/// An owned set (of paths, or of ids) from string literals.
pub fn set<T: for<'a> From<&'a str> + Ord>(items: &[&str]) -> BTreeSet<T> {
    items.iter().map(|item| T::from(item)).collect()
}

//! What the areas share: [`TestRepo`] (a temporary git repository) and [`ConfigRoot`] (a private
//! config root), each with a builder; running the CLI (`cli`); snapshots of rendered text
//! (`snapshot`); the git status comparison (`porcelain`); the wave coordinator's fakes and event
//! driver (`wave`); the gate driver playing a session (`gate`) and the monorepo with its gate
//! (`monorepo`). What the benches use too comes from the test-support crate
//! (`pi-native-hooks-test-support`, `tests/support/`) and is re-exported here: the generated
//! corpus and the ast-grep CLI lookup (`corpus`, `ast_grep`), ast-grep's `CombinedScan`, the
//! reference the analyzer's findings are checked against (`combined_scan`), the checkout and the
//! shared corpora beside it, and git and file writers (through `repo`).

pub mod cli;
pub mod config_root;
pub mod gate;
pub mod monorepo;
pub mod porcelain;
pub mod repo;
pub mod snapshot;
pub mod typescript;
pub mod wave;

pub use config_root::ConfigRoot;
pub use pi_native_hooks_test_support::{ast_grep, checkout, corpora, corpus};
pub use repo::{TestRepo, git, git_cmd, symlink, write};

/// ast-grep's own `CombinedScan` over every applicable rule, without pre-filters: the independent
/// reference the incremental property and suppression tests compare the engine's matcher with.
pub use pi_native_hooks_test_support::reference as combined_scan;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// `relative` in the test data of this package, `tests/`: `fixtures/`, `real-corpus/` and
/// `snapshots/`.
pub fn test_data(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

/// An owned set (of paths, or of ids) from string literals.
pub fn set<T: for<'a> From<&'a str> + Ord>(items: &[&str]) -> BTreeSet<T> {
    items.iter().map(|item| T::from(item)).collect()
}

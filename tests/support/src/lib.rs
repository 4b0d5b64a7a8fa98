//! What the engine's integration tests (`tests/it`) and the benchmarks (`benches/`) share, so
//! that neither includes the other's files:
//!
//! - `corpus`: the generated TypeScript corpus, the same bytes for the same file count and seed,
//!   which the CLI parity and suppression tests, the scan benches and the precision figures read;
//! - `ast_grep`: the ast-grep CLI, where its binary is and a config root it reads as the engine
//!   does;
//! - `reference`: ast-grep's own `CombinedScan` over every applicable rule, the reference the
//!   analyzer's matcher is checked against by the tests and by the fuzz targets' differential
//!   checks (`crates/fuzz`);
//! - `findings`: a finding as the tests of its consumers build one;
//! - `typescript`: the pinned TypeScript installs the TypeScript analyzer's tests and benches run;
//! - the checkout and the public corpora beside it ([`checkout`], [`corpora`]), a file written
//!   below a folder ([`write`]) and git without the machine's configuration ([`git_cmd`],
//!   [`git`]).
//!
//! It is support code: a function that cannot do its job panics, saying why.

mod checkout;
mod findings;
mod scratch;

pub mod ast_grep;
pub mod corpus;
pub mod reference;
pub mod typescript;

pub use checkout::{checkout, corpora};
pub use findings::finding;
pub use scratch::{git, git_cmd, write};

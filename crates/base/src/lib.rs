//! The base every layer of pi-native-hooks builds on. It depends on no other crate of the engine.
//!
//! Files: `paths` (`RepoPath`, a file's path relative to a repository or scan root, `/`-separated
//! and validated once: never empty, absolute, `..` or NUL; `relative_to`, the one way a
//! file-system path becomes one; a `Finding` keeps the `String` path the scan was given), `ids`
//! (`PolicyId`, `RuleId`, `CallId`: opaque named identities serialized as the plain string),
//! `hash` (`ContentHash`, xxh3-128 of a file's bytes, keyed on by the workspace fingerprint and
//! the analysis cache), `bounded_map` and `store_use` (the per-session stores with a bound and
//! how full they are), `safe_open` (the one way the engine opens a path it did not create: a
//! regular file never through a final symlink and never blocking; directories opened relative to
//! their parent without following a symlink, `walk`, with the owner and mode `Policy` a walk can
//! require; the walk that follows symlinks itself, `follow`, staying inside the repository root
//! in `Beneath` or from `/` with the trust checks; the atomic write, `atomic`), `task/` (`cancel`:
//! `CancelToken`, the one cancellation flag, checked by workspace captures between files and by
//! policy calls on every progress check; `blocking`: `run_blocking`, the one way async code runs
//! blocking work, with `TaskFailed` when it panicked or was dropped; `panic`: a caught panic's
//! text), `sync` (the lock that survives a panic), `text` (escaping untrusted text: control,
//! separator and bidirectional characters), `text_edit` (the edit between two texts: their common
//! prefix and suffix), `byte_size` (a size for a person), `suggest` (did-you-mean by normalised
//! Damerau-Levenshtein similarity).

// What is not re-exported from this root is `pub(crate)`: the curated list below is the API.
#![warn(unreachable_pub)]

mod bounded_map;
mod byte_size;
mod hash;
mod ids;
mod paths;
pub mod safe_open;
mod store_use;
mod suggest;
mod sync;
mod task;
mod text;
mod text_edit;

pub use bounded_map::BoundedMap;
pub use byte_size::byte_size;
pub use hash::ContentHash;
pub use ids::{CallId, PolicyId, RuleId, SharedText};
pub use paths::{RepoPath, RepoPathError, relative_to};
pub use store_use::StoreUse;
pub use suggest::{MIN_SIMILARITY, closest, did_you_mean};
pub use sync::lock;
pub use task::blocking::{TaskFailed, run_blocking};
pub use task::cancel::CancelToken;
pub use task::panic::{panic_message, panic_text};
pub use text::{Escaped, escape, escape_lines, is_escaped};
pub use text_edit::{TextEdit, diff_edit};

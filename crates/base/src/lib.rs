//! The base every layer of pi-native-hooks builds on: identities (repository paths, ids, content
//! hashes), escaping untrusted text, the change between two texts, the cancellation flag, running
//! blocking work from async code and reading its panics, a lock that survives a panic, did-you-mean
//! suggestions and the one way the engine opens a path it did not create
//! (`safe_open`: walks that refuse symlinks or stay beneath a directory, owner and mode checks,
//! descriptor-relative opens and the atomic write).
//! It depends on no other crate of the engine.

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

//! The base every layer of pi-native-hooks builds on: identities (repository paths, ids, content
//! hashes), escaping untrusted text, the cancellation flag, running blocking work from async
//! code, did-you-mean suggestions and the one way the engine opens a path it did not create
//! (`safe_open`: walks that refuse symlinks or stay beneath a directory, owner and mode checks,
//! descriptor-relative opens and the atomic write).
//! It depends on no other crate of the engine.

// What is not re-exported from this root is `pub(crate)`: the curated list below is the API.
#![warn(unreachable_pub)]

pub mod hash;
pub mod ids;
pub mod paths;
pub mod safe_open;
pub mod suggest;
mod task;
pub mod text;

pub use task::{blocking, cancel};

//! The base every layer of pi-native-hooks builds on: identities (repository paths, ids, content
//! hashes), escaping untrusted text, the cancellation flag, running blocking work from async
//! code, did-you-mean suggestions and the one way a repository's file is opened for reading.
//! It depends on no other crate of the engine.

// What is not re-exported from this root is `pub(crate)`: the curated list below is the API.
#![warn(unreachable_pub)]

pub mod blocking;
pub mod cancel;
pub mod hash;
pub mod ids;
pub mod paths;
pub mod safe_open;
pub mod suggest;
pub mod text;

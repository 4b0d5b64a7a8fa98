//! How pi-native-hooks runs a language server, whatever the server: its process (a process group
//! of its own, the tail of its standard error, its resident memory on Linux and macOS, its end),
//! the LSP session over async-lsp on the engine's tokio runtime (`initialize`, documents kept in
//! step with UTF-16 incremental edits, diagnostics pulled or pushed, any other request, the
//! output budget), the deadline a caller puts on a request, and a bounded pool of servers (one
//! per key, started lazily, restarted once, least recently used stopped first, memory-bounded).
//!
//! An analyzer built on a language server keeps only what is its own (finding the install, the
//! server's own dialect, turning diagnostics into findings); everything here is shared.
//!
//! Files: `launch` (what starting a server takes), `process` (the process and its group),
//! `memory` (resident memory of a process tree), `output` (the output budget), `edit` (one
//! incremental change), `client` (what the client answers the server), `push` (pushed
//! diagnostics), `shared` (what a session, its requests and its process share), `connection` (the session: [`LanguageServer`], [`within`]), `pool`
//! ([`ServerPool`]), `error` ([`ServerError`]).

// What is not re-exported from this root is `pub(crate)`: the curated list below is the API.
#![warn(unreachable_pub)]

mod client;
mod connection;
mod edit;
mod error;
mod launch;
mod memory;
mod output;
mod pool;
mod process;
mod push;
mod shared;

pub use connection::{LanguageServer, within};
pub use error::ServerError;
pub use launch::{DiagnosticMode, Launch, language_id};
pub use memory::resident_bytes;
pub use pool::{NoServer, PoolLimits, PooledServer, ServerPool, ServerState};

// The protocol's own types, as the callers speak them.
pub use lsp_types;

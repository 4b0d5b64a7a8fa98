//! Owns what one session with a server, its requests and its process share: why the connection
//! ended, the last bytes the server wrote to its standard error (to say why it stopped), and the
//! diagnostics it pushed.

use crate::error::ServerError;
use crate::push::Pushes;
use pi_native_hooks_base::lock;
use std::collections::VecDeque;
use std::sync::Mutex;

/// What the session, its requests and its process share: why the connection ended, the last
/// bytes the server wrote to its standard error, and what it pushed.
#[derive(Debug, Default)]
pub(crate) struct Shared {
    /// Set when the main loop ends: why the connection is gone.
    ended: Mutex<Option<String>>,
    pub(crate) stderr_tail: Mutex<VecDeque<u8>>,
    pub(crate) pushes: Pushes,
}

impl Shared {
    /// `reason`, with the last line the server wrote to its standard error.
    pub(crate) fn with_stderr(&self, reason: String) -> String {
        let tail: Vec<u8> = lock(&self.stderr_tail).iter().copied().collect();
        let text = String::from_utf8_lossy(&tail);
        match text.lines().rev().find(|l| !l.trim().is_empty()) {
            Some(line) => format!("{reason}; it last wrote: {}", line.trim()),
            None => reason,
        }
    }

    /// Why the connection ended, if it has.
    pub(crate) fn ended(&self) -> Option<String> {
        lock(&self.ended).clone()
    }

    /// The server is gone: why the connection ended (or, not yet known, `error`), with what the
    /// server last wrote.
    pub(crate) fn stopped(&self, error: &async_lsp::Error) -> ServerError {
        let reason = self.ended().unwrap_or_else(|| error.to_string());
        ServerError::Stopped(self.with_stderr(reason))
    }

    pub(crate) fn end(&self, reason: String) {
        *lock(&self.ended) = Some(reason);
        self.pushes.wake();
    }
}

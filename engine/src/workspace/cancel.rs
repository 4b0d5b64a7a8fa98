//! Owns [`CancelToken`], the shared flag that stops a capture early; gix's status machinery polls
//! the same flag as its `should_interrupt`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A cloneable cancellation flag shared between the caller and a running capture.
///
/// Cancelling makes the capture stop at its next check and return
/// [`WorkspaceError::Cancelled`](crate::workspace::WorkspaceError::Cancelled).
#[derive(Debug, Clone, Default)]
pub struct CancelToken {
    flag: Arc<AtomicBool>,
}

impl CancelToken {
    /// A fresh, not-cancelled token.
    pub fn new() -> Self {
        Self::default()
    }

    /// Request cancellation of every capture using this token (or a clone of it).
    pub fn cancel(&self) {
        self.flag.store(true, Ordering::SeqCst);
    }

    /// `true` once [`cancel`](Self::cancel) was called.
    pub fn is_cancelled(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }

    /// The underlying flag, as gix's `should_interrupt` expects it.
    pub(crate) fn flag(&self) -> &Arc<AtomicBool> {
        &self.flag
    }
}

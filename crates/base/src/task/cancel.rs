//! Owns [`CancelToken`], the one cancellation flag of the engine: workspace captures check it
//! between files (gix's status machinery polls the same flag as its `should_interrupt`) and policy
//! calls check it on every progress callback.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A cloneable cancellation flag shared between the caller and running work.
///
/// Cancelling makes a capture stop at its next check and return
/// the workspace's `WorkspaceError::Cancelled`, and a policy call
/// stop at its next progress check with the policy layer's `RunError::Cancelled`.
#[derive(Debug, Clone, Default)]
pub struct CancelToken {
    flag: Arc<AtomicBool>,
}

impl CancelToken {
    /// A fresh, not-cancelled token.
    pub fn new() -> Self {
        Self::default()
    }

    /// Request cancellation of everything watching this token (or a clone of it).
    pub fn cancel(&self) {
        self.flag.store(true, Ordering::SeqCst);
    }

    /// `true` once [`cancel`](Self::cancel) was called.
    pub fn is_cancelled(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }

    /// The underlying flag, as gix's `should_interrupt` expects it.
    pub fn flag(&self) -> &Arc<AtomicBool> {
        &self.flag
    }
}

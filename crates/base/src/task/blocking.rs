//! Owns [`run_blocking`], the one way async code hands blocking work (git snapshots, analyses,
//! the doctor) to tokio's blocking pool, and [`TaskFailed`], why such work did not return.

use serde::{Serialize, Serializer};

/// Blocking work that did not return: it panicked, or the runtime aborted it while shutting down.
///
/// Keeps tokio's description of the join error as its text, so the message a user sees is
/// unchanged.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct TaskFailed {
    /// True when the work panicked, false when the runtime cancelled it.
    pub panicked: bool,
    message: String,
}

impl From<tokio::task::JoinError> for TaskFailed {
    fn from(error: tokio::task::JoinError) -> Self {
        Self {
            panicked: error.is_panic(),
            message: error.to_string(),
        }
    }
}

/// Serialized as its text, as the join error's description was before it had a type.
impl Serialize for TaskFailed {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// Runs `work` on tokio's blocking pool and waits for it. Must be called within a tokio runtime.
///
/// # Errors
///
/// [`TaskFailed`] when `work` panicked or the runtime dropped it before it ran.
pub async fn run_blocking<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, TaskFailed> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(TaskFailed::from)
}

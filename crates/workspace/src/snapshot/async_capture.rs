//! Owns the async entry points: run a capture on tokio's blocking pool
//! ([`pi_native_hooks_base::run_blocking`]), cancellable through a [`CancelToken`].

use std::path::PathBuf;

use crate::error::WorkspaceError;
use crate::snapshot::{WorkspaceSnapshot, capture_paths_with_cancel, capture_with_cancel};
use pi_native_hooks_base::CancelToken;
use pi_native_hooks_base::run_blocking;

/// [`capture`](crate::capture) on the blocking pool.
///
/// Cancelling `cancel` makes gix's status stop at its next interrupt check; the call then returns
/// [`WorkspaceError::Cancelled`]. Must be called within a tokio runtime.
pub async fn capture_async(
    dir: impl Into<PathBuf>,
    cancel: CancelToken,
) -> Result<WorkspaceSnapshot, WorkspaceError> {
    let dir = dir.into();
    on_pool(dir.clone(), move || capture_with_cancel(&dir, &cancel)).await
}

/// [`capture_paths`](crate::capture_paths) on the blocking pool, cancellable like
/// [`capture_async`].
pub async fn capture_paths_async(
    dir: impl Into<PathBuf>,
    paths: Vec<PathBuf>,
    cancel: CancelToken,
) -> Result<WorkspaceSnapshot, WorkspaceError> {
    let dir = dir.into();
    on_pool(dir.clone(), move || {
        capture_paths_with_cancel(&dir, &paths, &cancel)
    })
    .await
}

async fn on_pool(
    dir: PathBuf,
    work: impl FnOnce() -> Result<WorkspaceSnapshot, WorkspaceError> + Send + 'static,
) -> Result<WorkspaceSnapshot, WorkspaceError> {
    run_blocking(work)
        .await
        .unwrap_or_else(|source| Err(WorkspaceError::TaskFailed { path: dir, source }))
}

//! Owns [`WatchOptions`]: the bounds of one workspace watcher.

use std::time::Duration;

/// Bounds of a [`WatchedWorkspace`](super::WatchedWorkspace).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WatchOptions {
    /// How long a synchronisation waits for its cookie's event before the snapshot falls back.
    pub cookie_timeout: Duration,
    /// Directories watched at most; a worktree with more is never watched (every snapshot is a
    /// full one and the status says why). inotify's own limit (`max_user_watches`) may be lower.
    pub max_watches: usize,
    /// Changed paths remembered between two synchronisations; past it the snapshot falls back.
    pub max_pending_paths: usize,
}

impl Default for WatchOptions {
    fn default() -> Self {
        Self {
            cookie_timeout: Duration::from_secs(2),
            max_watches: 65_536,
            max_pending_paths: 10_000,
        }
    }
}

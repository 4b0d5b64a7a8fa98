//! The workspace watcher's part of the status as JS sees it: whether whole-worktree (`bash`)
//! snapshots come from its events, how many did and how many were taken in full, and why. A
//! fallback crosses as a stable `code` (the engine's own tag for it, `cookie-timeout`,
//! `overflow`, …) and the message the status shows.

use napi_derive::napi;
use pi_native_hooks_workspace::{FallbackReason, WatchState, WatchStatus};

/// What the status says about the session's workspace watcher.
#[napi(object)]
pub struct WatcherStatus {
    /// Whether it is watching now (`unarmed`: it re-arms at the next whole-worktree snapshot;
    /// `unavailable`: never in this session, see `unavailable`).
    #[napi(ts_type = "'watching' | 'unarmed' | 'unavailable'")]
    pub state: String,
    /// Directories watched, while watching.
    pub directories: Option<f64>,
    /// Why it cannot watch in this session, when `state` is `unavailable`.
    pub unavailable: Option<WatchFallback>,
    /// Whole-worktree snapshots updated from the watcher's events.
    pub watched: f64,
    /// Whole-worktree snapshots taken in full (the first one included).
    pub full: f64,
    /// Why the latest full snapshot was taken.
    pub last_fallback: Option<WatchFallback>,
}

/// Why a whole-worktree snapshot was taken in full.
#[napi(object)]
pub struct WatchFallback {
    /// A stable code: `baseline`, `overflow`, `too-many-paths`, `watch-limit`, `watcher-error`,
    /// `cookie-timeout`, `head-or-index`, `rules`, `unsupported`, `busy`, `non-utf8-name` or
    /// `staged-rename`.
    pub code: String,
    /// What the status shows.
    pub message: String,
}

impl From<&FallbackReason> for WatchFallback {
    fn from(reason: &FallbackReason) -> Self {
        WatchFallback {
            code: reason.code().to_owned(),
            message: reason.to_string(),
        }
    }
}

impl From<WatchStatus> for WatcherStatus {
    fn from(status: WatchStatus) -> Self {
        #[expect(clippy::cast_precision_loss, reason = "counts far below 2^53")]
        let num = |n: u64| n as f64;
        let (state, directories, unavailable) = match &status.state {
            WatchState::Watching { directories } => (
                "watching",
                Some(num(u64::try_from(*directories).unwrap_or(u64::MAX))),
                None,
            ),
            WatchState::Unarmed => ("unarmed", None, None),
            WatchState::Unavailable { reason } => ("unavailable", None, Some(reason.into())),
        };
        WatcherStatus {
            state: state.to_owned(),
            directories,
            unavailable,
            watched: num(status.watched),
            full: num(status.full),
            last_fallback: status.last_fallback.as_ref().map(Into::into),
        }
    }
}

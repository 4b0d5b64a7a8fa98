//! A file-system watcher per session that lets a whole-worktree snapshot skip the worktree walk.
//!
//! [`WatchedWorkspace`] keeps a `notify` watcher (inotify on Linux, `FSEvents` on macOS) over every
//! directory of the worktree that git does not ignore, and the last whole-worktree snapshot. To
//! take the next one it synchronises with the watcher the way watchman does — it writes a cookie
//! file into the git directory and waits (bounded) for its event, so every change made before
//! that moment has been delivered — and then updates the last snapshot with a path-limited status
//! of just the paths the watcher reported. Whenever the watcher cannot vouch for completeness
//! (queue overflow, a watch limit, a watcher error, the cookie not seen in time, too many pending
//! paths, `HEAD`, the index's entries, the repository's config or ignore rules changed) the
//! snapshot is a full one, the reason is counted in [`WatchStatus`], and the watcher re-arms.
//!
//! Files: `options` (bounds and switches), `status` (the fallback reasons and counts), `dirs`
//! (which directories are watched: not ignored, not inside nested repositories), `filesystem`
//! (which file systems are refused), `sync/` (one synchronisation: `events`, the notify handler
//! and the bounded set of pending paths; `cookie`, the synchronisation itself; `guard`, `HEAD`,
//! the index and the config files a sync compares; `update`, the previous snapshot plus a
//! path-limited status), `watched` (the orchestration).

mod dirs;
mod filesystem;
mod options;
mod status;
mod sync;
mod watched;

pub use options::WatchOptions;
pub use status::{FallbackReason, WatchState, WatchStatus};
pub use watched::{CaptureKind, WatchedCapture, WatchedWorkspace};

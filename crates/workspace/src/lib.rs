//! Git workspace snapshots read in process with `gix`, and the changed paths between two of them.
//!
//! * [`capture`] / [`capture_paths`] take a [`WorkspaceSnapshot`]: `HEAD`, the dirty entries
//!   (staged, worktree, untracked, conflicted) and a content fingerprint. Nothing writes the index.
//! * [`WorkspaceSnapshot::changed_paths`] diffs two snapshots, including the paths a `HEAD` move
//!   changed.
//! * [`capture_async`] / [`capture_paths_async`] run a capture on tokio's blocking pool with a
//!   [`CancelToken`].
//! * Outside git, [`ChangeSet`] and [`changeset_without_git`] say which paths a wave touched, or
//!   that no safe path set exists.
//!
//! Files: `repo` (discovery, `HEAD`, path normalization), `git_status` (git's status of the
//! worktree → entries: the whole-worktree run with its stat pass and its `HEAD` ↔ index diff, the
//! path-limited run), `snapshot/` (the snapshot type and sync API; `entry`, the data model;
//! `fingerprint`, content hashing; `index_cache`, decoded indexes reused between snapshots;
//! `diff`, changed paths; `changeset`, the non-git fallback; `async_capture`), `revision/` (a
//! revision's tree and blobs; `staged`, the index's blobs), `watch` (the per-session watcher that
//! updates whole-worktree snapshots from file-system events), `error`.

// What is not re-exported from this root is `pub(crate)`: the curated list below is the API.
#![warn(unreachable_pub)]

mod error;
mod git_status;
mod repo;
mod revision;
mod snapshot;
mod watch;

pub use error::WorkspaceError;
pub use repo::{Head, normalize_lexically};
pub use revision::staged::StagedBlobs;
pub use revision::{RevisionBlob, RevisionTree, Unjudged};
pub use snapshot::async_capture::{capture_async, capture_paths_async};
pub use snapshot::changeset::{
    ChangeSet, MutatingCall, WorkspaceKind, changeset_without_git, probe,
};
pub use snapshot::entry::{
    ConflictKind, Content, ContentHash, DirtyEntry, FileStamp, StagedChange, StatTime,
    SubmoduleChange, WorktreeChange,
};
pub use snapshot::fingerprint::MAX_HASHED_BYTES;
pub use snapshot::{
    Scope, WorkspaceSnapshot, capture, capture_paths, capture_paths_with_cancel,
    capture_with_cancel,
};
pub use watch::{
    CaptureKind, FallbackReason, WatchOptions, WatchState, WatchStatus, WatchedCapture,
    WatchedWorkspace,
};

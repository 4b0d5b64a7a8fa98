//! Owns the wave's view of the workspace: the [`SnapshotSource`] seam (real git snapshots through
//! [`pi_native_hooks_workspace`], or a fake in tests), the snapshot scope of a wave, why a snapshot failed
//! ([`SnapshotFailure`]), and turning absolute target paths into worktree-relative ones.

use pi_native_hooks_base::CancelToken;
use pi_native_hooks_base::TaskFailed;
use pi_native_hooks_workspace::{
    self as workspace, RevisionBlob, RevisionTree, WatchOptions, WatchStatus, WatchedWorkspace,
    WorkspaceError, WorkspaceKind, WorkspaceSnapshot, capture_paths_with_cancel,
    capture_with_cancel,
};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Why a baseline or post-wave snapshot (or the diff of two) was not taken.
#[derive(Clone, Debug, thiserror::Error)]
pub enum SnapshotFailure {
    /// The coordinator was shutting down, or the wave's baseline was abandoned.
    #[error("cancelled")]
    Cancelled,
    /// The capture or the diff failed.
    #[error(transparent)]
    Workspace(Arc<WorkspaceError>),
    /// The blocking task running the capture did not return.
    #[error("the snapshot task failed: {0}")]
    Task(TaskFailed),
}

impl From<WorkspaceError> for SnapshotFailure {
    fn from(error: WorkspaceError) -> Self {
        Self::Workspace(Arc::new(error))
    }
}

/// What a snapshot looks at.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SnapshotScope {
    /// The whole worktree (a `bash` or unknown tool may change anything).
    Full,
    /// Only these files (absolute paths inside the worktree): the targets of `write`/`edit`.
    Paths(Vec<PathBuf>),
}

/// Where a wave's snapshots come from. Captures run on tokio's blocking pool.
pub trait SnapshotSource: Send + Sync + 'static {
    /// One observation of the workspace.
    type Snapshot: Send + Sync + 'static;

    /// The session's working directory: relative tool paths resolve against it, and outside git
    /// analysis paths are relative to it.
    fn cwd(&self) -> &Path;

    /// The worktree root, or `None` outside git (the wave then falls back to explicit targets).
    fn git_root(&self) -> Option<&Path>;

    /// Takes a snapshot of `scope`, stopping early once `cancel` is cancelled.
    fn capture(
        &self,
        scope: &SnapshotScope,
        cancel: &CancelToken,
    ) -> Result<Self::Snapshot, WorkspaceError>;

    /// The state of the watcher behind whole-worktree snapshots, if there is one.
    fn watch_status(&self) -> Option<WatchStatus> {
        None
    }

    /// The worktree-relative paths that differ between two snapshots of the same scope.
    fn changed_paths(
        &self,
        before: &Self::Snapshot,
        after: &Self::Snapshot,
    ) -> Result<BTreeSet<String>, WorkspaceError>;

    /// What each of `paths` (worktree-relative) held at `HEAD`, each blob read only when it is
    /// at most `limit` bytes: for a path `after` records as a staged rename or copy, the blob of
    /// its source. Without a `HEAD` to read (outside git, in fakes) every path is absent, so
    /// everything found in it counts as new.
    fn head_blobs(
        &self,
        paths: &[String],
        after: Option<&Self::Snapshot>,
        limit: u64,
    ) -> Vec<RevisionBlob> {
        let _ = (after, limit);
        vec![RevisionBlob::Absent; paths.len()]
    }
}

/// The real workspace: git snapshots with `gix` when the session's directory is in a worktree;
/// whole-worktree snapshots come from a [`WatchedWorkspace`] (updated from file-system events,
/// a full snapshot whenever the watcher cannot vouch for them) unless it is turned off.
#[derive(Clone, Debug)]
pub struct GitWorkspace {
    cwd: PathBuf,
    root: Option<PathBuf>,
    watched: Option<Arc<WatchedWorkspace>>,
}

impl GitWorkspace {
    /// Finds out whether `cwd` is inside a git worktree, with a watcher with the default bounds
    /// behind its whole-worktree snapshots. Errors are real failures (unreadable or bare
    /// repository), not "not a repository".
    pub fn probe(cwd: impl Into<PathBuf>) -> Result<Self, WorkspaceError> {
        Self::probe_with(cwd, Some(WatchOptions::default()))
    }

    /// [`GitWorkspace::probe`] with the watcher's bounds, or no watcher (`None`: every
    /// whole-worktree snapshot walks the worktree).
    pub fn probe_with(
        cwd: impl Into<PathBuf>,
        watch: Option<WatchOptions>,
    ) -> Result<Self, WorkspaceError> {
        let cwd = cwd.into();
        let root = match workspace::probe(&cwd)? {
            WorkspaceKind::Git { worktree_root } => Some(worktree_root),
            WorkspaceKind::NotGit { .. } => None,
        };
        let watched = root
            .as_ref()
            .zip(watch)
            .map(|(_, options)| Arc::new(WatchedWorkspace::new(cwd.clone(), options)));
        Ok(Self { cwd, root, watched })
    }
}

impl SnapshotSource for GitWorkspace {
    type Snapshot = WorkspaceSnapshot;

    fn cwd(&self) -> &Path {
        &self.cwd
    }

    fn git_root(&self) -> Option<&Path> {
        self.root.as_deref()
    }

    fn capture(
        &self,
        scope: &SnapshotScope,
        cancel: &CancelToken,
    ) -> Result<WorkspaceSnapshot, WorkspaceError> {
        match scope {
            SnapshotScope::Full => match &self.watched {
                Some(watched) => watched.capture(cancel).map(|capture| capture.snapshot),
                None => capture_with_cancel(&self.cwd, cancel),
            },
            SnapshotScope::Paths(paths) => capture_paths_with_cancel(&self.cwd, paths, cancel),
        }
    }

    fn watch_status(&self) -> Option<WatchStatus> {
        self.watched.as_ref().map(|watched| watched.status())
    }

    fn changed_paths(
        &self,
        before: &WorkspaceSnapshot,
        after: &WorkspaceSnapshot,
    ) -> Result<BTreeSet<String>, WorkspaceError> {
        WorkspaceSnapshot::changed_paths(before, after)
    }

    fn head_blobs(
        &self,
        paths: &[String],
        after: Option<&WorkspaceSnapshot>,
        limit: u64,
    ) -> Vec<RevisionBlob> {
        let Some(root) = &self.root else {
            return vec![RevisionBlob::Absent; paths.len()];
        };
        let head = match RevisionTree::head(root) {
            Ok(head) => head,
            Err(error) => return vec![RevisionBlob::Unreadable(error.to_string()); paths.len()],
        };
        paths
            .iter()
            .map(|path| {
                let source = after
                    .and_then(|snapshot| snapshot.entry(path))
                    .and_then(|entry| entry.source_path())
                    .unwrap_or(path);
                head.read(source, limit)
            })
            .collect()
    }
}

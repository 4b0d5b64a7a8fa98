//! Owns [`ChangeSet`] — the set of paths a wave of tool calls may have changed, or the statement
//! that no safe set exists — and the non-git fallback that derives it from explicit targets.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::error::WorkspaceError;
use crate::repo::{self, normalize_lexically};
use crate::snapshot::WorkspaceSnapshot;
use pi_native_hooks_base::RepoPath;

/// The paths a wave changed, when they can be known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChangeSet {
    /// Exactly these paths may have changed (repo-relative in a git worktree; relative to the
    /// workspace directory otherwise, or absolute for targets outside it).
    Paths(BTreeSet<String>),
    /// No safe path set exists (e.g. `bash` ran outside a git repository); `reason` says why.
    Unknown {
        /// Human-readable explanation, naming the directory and the tool responsible.
        reason: String,
    },
}

impl ChangeSet {
    /// The changed paths between two snapshots of a git worktree
    /// (see [`WorkspaceSnapshot::changed_paths`]).
    pub fn between(
        before: &WorkspaceSnapshot,
        after: &WorkspaceSnapshot,
    ) -> Result<Self, WorkspaceError> {
        WorkspaceSnapshot::changed_paths(before, after).map(ChangeSet::Paths)
    }

    /// The paths, if known.
    pub fn paths(&self) -> Option<&BTreeSet<String>> {
        match self {
            ChangeSet::Paths(paths) => Some(paths),
            ChangeSet::Unknown { .. } => None,
        }
    }
}

/// One mutating tool call of a wave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MutatingCall {
    /// A call whose only effect is writing `path` (`write`, `edit`).
    Targeted {
        /// The tool's name, for messages.
        tool: String,
        /// The written path, absolute or relative to the workspace directory.
        path: PathBuf,
    },
    /// A call that may change anything (`bash`, unknown tools).
    Untargeted {
        /// The tool's name, for messages.
        tool: String,
    },
}

/// Whether a directory is inside a git worktree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkspaceKind {
    /// Inside a git worktree rooted at `worktree_root`: snapshots work.
    Git {
        /// The root of the worktree that contains the probed directory.
        worktree_root: PathBuf,
    },
    /// Not inside any git repository: use [`changeset_without_git`].
    NotGit {
        /// The directory that was probed.
        dir: PathBuf,
    },
}

/// Find out whether `dir` is inside a git worktree, without taking a snapshot.
///
/// Errors are real failures (unreadable repository, bare repository), not "not a repository".
pub fn probe(dir: impl AsRef<Path>) -> Result<WorkspaceKind, WorkspaceError> {
    let dir = dir.as_ref();
    match repo::open(dir) {
        Ok(open) => Ok(WorkspaceKind::Git {
            worktree_root: open.workdir,
        }),
        Err(WorkspaceError::NotARepository { path }) => Ok(WorkspaceKind::NotGit { dir: path }),
        Err(err) => Err(err),
    }
}

/// The change set of a wave in a directory that is not a git worktree, from its calls alone.
///
/// If every call is [`MutatingCall::Targeted`], the result is their (lexically normalized) paths,
/// relative to `dir` when inside it. Any [`MutatingCall::Untargeted`] call makes it
/// [`ChangeSet::Unknown`], since nothing records what it touched.
pub fn changeset_without_git(dir: impl AsRef<Path>, calls: &[MutatingCall]) -> ChangeSet {
    let dir = dir.as_ref();
    let untargeted: Vec<&str> = calls
        .iter()
        .filter_map(|call| match call {
            MutatingCall::Untargeted { tool } => Some(tool.as_str()),
            MutatingCall::Targeted { .. } => None,
        })
        .collect();
    if !untargeted.is_empty() {
        return ChangeSet::Unknown {
            reason: format!(
                "{} is not a git repository, so the files changed by `{}` cannot be determined; \
                 run `git init` there to enable workspace snapshots",
                dir.display(),
                untargeted.join("`, `"),
            ),
        };
    }
    let base = normalize_lexically(&std::path::absolute(dir).unwrap_or_else(|_| dir.to_owned()));
    let paths = calls
        .iter()
        .filter_map(|call| match call {
            MutatingCall::Targeted { path, .. } => Some(path),
            MutatingCall::Untargeted { .. } => None,
        })
        .map(|path| {
            let absolute = normalize_lexically(&base.join(path));
            match absolute.strip_prefix(&base) {
                Ok(rel) => RepoPath::from_relative(rel)
                    .map(RepoPath::into_string)
                    .unwrap_or_default(),
                Err(_) => absolute.to_string_lossy().into_owned(),
            }
        })
        .collect();
    ChangeSet::Paths(paths)
}

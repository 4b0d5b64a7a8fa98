//! Owns [`WorkspaceError`]: every way a workspace snapshot can fail, each naming the repository
//! (or directory) involved and what the caller or user can do about it.

use pi_native_hooks_base::TaskFailed;
use std::path::PathBuf;

/// Why a workspace snapshot or comparison could not be produced.
///
/// Every variant names the directory or repository it concerns; the `Display` text ends with what
/// to do about it, so it can be shown to a user as is.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WorkspaceError {
    /// The directory is not inside a git repository (no `.git` found walking upwards).
    ///
    /// This is not a failure of the machinery: callers fall back to explicit write/edit targets
    /// (see [`crate::changeset_without_git`]).
    #[error(
        "{} is not inside a git repository; fall back to the explicit write/edit targets, or run `git init` to enable workspace snapshots",
        path.display()
    )]
    NotARepository {
        /// The directory the snapshot was requested for.
        path: PathBuf,
    },

    /// Opening or discovering the repository failed for another reason (permissions, corrupt config, …).
    #[error(
        "could not open the git repository containing {}: {source}; check that `git status` works there",
        path.display()
    )]
    Open {
        /// The directory the snapshot was requested for.
        path: PathBuf,
        /// Also the error's `source()`.
        #[source]
        source: gix::Error,
    },

    /// The repository is bare: there is no worktree to snapshot.
    #[error(
        "the git repository at {} is bare and has no worktree; run the hook from a checked-out worktree",
        git_dir.display()
    )]
    BareRepository {
        /// The repository's git directory.
        git_dir: PathBuf,
    },

    /// A requested path lies outside the repository's worktree.
    #[error(
        "{} is outside the worktree {}; pass paths inside the worktree (or relative to it)",
        path.display(),
        repo.display()
    )]
    PathOutsideWorktree {
        /// Worktree root of the repository.
        repo: PathBuf,
        /// The offending path as given.
        path: PathBuf,
    },

    /// Reading git data (HEAD, refs, objects, index, status machinery) failed.
    #[error("{what} failed in the git repository at {}: {source}; {hint}", repo.display())]
    Git {
        /// Worktree root of the repository.
        repo: PathBuf,
        /// Which step failed, e.g. "reading HEAD".
        what: &'static str,
        /// What the user can do about it.
        hint: &'static str,
        /// Also the error's `source()`.
        #[source]
        source: gix::Error,
    },

    /// A revision named by the user does not resolve to a commit or tree.
    #[error(
        "`{rev}` does not name a revision in the git repository at {}: {message}; pass a branch, tag or commit id (e.g. `HEAD`, `origin/main`)",
        repo.display()
    )]
    UnknownRevision {
        /// Worktree root of the repository.
        repo: PathBuf,
        /// The revision as given.
        rev: String,
        /// What gix reported.
        message: String,
    },

    /// Reading a worktree file for hashing failed (other than it being absent).
    #[error(
        "could not read {} in the worktree {}: {source}; check the file's permissions",
        path.display(),
        repo.display()
    )]
    Io {
        /// Worktree root of the repository.
        repo: PathBuf,
        /// The file that could not be read.
        path: PathBuf,
        /// Also the error's `source()`.
        #[source]
        source: std::io::Error,
    },

    /// Submodules are nested deeper than a snapshot follows them.
    #[error(
        "{} is a dirty submodule more than {limit} submodules deep; snapshots do not look that deep, so flatten the nesting or commit inside it",
        path.display()
    )]
    SubmodulesTooDeep {
        /// The submodule's worktree.
        path: PathBuf,
        /// How many levels of submodules a snapshot follows.
        limit: usize,
    },

    /// The capture was cancelled through its [`pi_native_hooks_base::CancelToken`].
    #[error("workspace snapshot of {} was cancelled; retry if the result is still needed", path.display())]
    Cancelled {
        /// The directory the snapshot was requested for.
        path: PathBuf,
    },

    /// The blocking capture task panicked or was aborted by the runtime.
    #[error(
        "the workspace snapshot task for {} did not complete: {source}; this is a bug, please report it",
        path.display()
    )]
    TaskFailed {
        /// The directory the snapshot was requested for.
        path: PathBuf,
        /// Why the task did not return.
        source: TaskFailed,
    },
}

impl WorkspaceError {
    /// `true` if the directory simply is not inside a git repository, so callers should fall back
    /// to explicit targets instead of treating this as a failure.
    pub fn is_not_a_repository(&self) -> bool {
        matches!(self, WorkspaceError::NotARepository { .. })
    }

    /// `true` if the capture stopped because it was cancelled.
    pub fn is_cancelled(&self) -> bool {
        matches!(self, WorkspaceError::Cancelled { .. })
    }

    /// A constructor for [`WorkspaceError::Git`], for use with `map_err`.
    pub(crate) fn git(
        repo: &std::path::Path,
        what: &'static str,
        hint: &'static str,
    ) -> impl FnOnce(gix::Error) -> WorkspaceError + use<> {
        let repo = repo.to_owned();
        move |source| WorkspaceError::Git {
            repo,
            what,
            hint,
            source,
        }
    }
}

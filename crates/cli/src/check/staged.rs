//! `check --staged`: the staged content of the staged files, as a pre-commit hook needs. A file
//! counts as staged when the index differs from `HEAD` there (added, modified, renamed, copied or
//! type-changed); its content is the index's blob, never the worktree's, so a staged finding
//! fixed only in the worktree is still reported and an unstaged one is not.

use crate::check::targets::NAME_NOT_UTF8;
use pi_native_hooks_analysis::{SkipReason, SkippedFile, language_of};
use pi_native_hooks_workspace::{
    self as workspace, RevisionBlob, Scope, StagedBlobs, StagedChange, WorkspaceError,
    normalize_lexically,
};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The staged files of a `check --staged`.
pub(crate) struct Staged {
    /// The repository's worktree root, which the paths are relative to.
    pub(crate) root: PathBuf,
    /// Each staged TS/TSX file's path and staged bytes.
    pub(crate) files: Vec<(String, Vec<u8>)>,
    /// Staged symlinks: like a walk, `--staged` does not follow them (the index holds the link,
    /// not a file).
    pub(crate) unfollowed: Vec<String>,
    /// Staged TS/TSX paths whose staged content cannot be analyzed, with the reason.
    pub(crate) not_analyzed: Vec<SkippedFile>,
}

/// Why `--staged` cannot run.
#[derive(Debug, thiserror::Error)]
pub(crate) enum StagedError {
    /// The current directory is not in a repository.
    #[error("{} is not inside a git repository; --staged needs one", .0.display())]
    NotARepository(PathBuf),
    /// The repository could not be read.
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
    /// A path given with `--staged` is outside the repository.
    #[error("{}: outside {}", path.display(), root.display())]
    Outside {
        /// The path as given.
        path: PathBuf,
        root: PathBuf,
    },
}

/// The staged TS/TSX files of the repository around `cwd`, limited to `paths` (files or
/// directories relative to `cwd`) when any are given; blobs over `limit` bytes are not read.
pub(crate) fn staged(cwd: &Path, paths: &[PathBuf], limit: u64) -> Result<Staged, StagedError> {
    let snapshot = workspace::capture(cwd).map_err(|error| {
        if error.is_not_a_repository() {
            StagedError::NotARepository(cwd.to_path_buf())
        } else {
            error.into()
        }
    })?;
    let root = snapshot.worktree_root().to_path_buf();
    let mut scope = BTreeSet::new();
    for path in paths {
        let absolute = normalize_lexically(&cwd.join(path));
        let relative = absolute
            .strip_prefix(&root)
            .map_err(|_| StagedError::Outside {
                path: path.clone(),
                root: root.clone(),
            })?;
        scope.insert(
            relative
                .to_string_lossy()
                .replace(std::path::MAIN_SEPARATOR, "/"),
        );
    }
    // No paths: every staged file.
    let scope = if scope.is_empty() {
        Scope::Full
    } else {
        Scope::Paths(scope)
    };
    let blobs = StagedBlobs::open(&root)?;
    let mut staged = Staged {
        root: root.clone(),
        files: Vec::new(),
        unfollowed: Vec::new(),
        not_analyzed: Vec::new(),
    };
    for entry in snapshot.entries().values() {
        let path = &entry.path;
        if language_of(path).is_none() || !scope.contains(path) {
            continue;
        }
        let skip = |reason: String| SkippedFile {
            path: path.clone(),
            reason: SkipReason::Unreadable { error: reason },
        };
        if let Some(conflict) = entry.conflict {
            staged.not_analyzed.push(skip(format!(
                "unmerged ({}): no staged content to analyze",
                conflict.code()
            )));
            continue;
        }
        let is_staged = matches!(
            entry.staged,
            Some(
                StagedChange::Added
                    | StagedChange::Modified
                    | StagedChange::Renamed { .. }
                    | StagedChange::Copied { .. }
                    | StagedChange::TypeChanged
            )
        );
        if !is_staged {
            continue;
        }
        match blobs.read(path, limit) {
            RevisionBlob::Bytes(bytes) => staged.files.push((path.clone(), bytes)),
            RevisionBlob::NotAFile => staged.unfollowed.push(path.clone()),
            RevisionBlob::TooLarge { bytes, limit } => staged.not_analyzed.push(SkippedFile {
                path: path.clone(),
                reason: SkipReason::TooLarge { bytes, limit },
            }),
            RevisionBlob::Absent if path.contains(char::REPLACEMENT_CHARACTER) => {
                staged.not_analyzed.push(skip(NAME_NOT_UTF8.to_owned()));
            }
            RevisionBlob::Absent => staged
                .not_analyzed
                .push(skip("not in the index any more".to_owned())),
            RevisionBlob::Unreadable(error) => staged
                .not_analyzed
                .push(skip(format!("cannot read the staged blob: {error}"))),
        }
    }
    Ok(staged)
}

//! Owns which directories are watched: every directory of the worktree that git does not ignore
//! (an ignored one still is when the index tracks files below it), never a `.git` directory, and
//! never the inside of a nested repository or submodule — those are checked by a status of their
//! root at every synchronisation instead, since a commit inside them changes no file they hold.

use crate::repo::{OpenRepo, worktree_excludes};
use gix::index::entry::Mode;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The directories a walk found.
#[derive(Debug, Default)]
pub(super) struct Found {
    /// Worktree-relative directories to watch (the root is the empty path).
    pub(super) watch: Vec<PathBuf>,
    /// Worktree-relative roots of nested repositories and submodules.
    pub(super) nested: Vec<PathBuf>,
    /// Worktree-relative files (anything but a directory) in the watched directories, when asked.
    pub(super) files: Vec<PathBuf>,
}

/// Why a walk stopped.
#[derive(Debug)]
pub(super) enum WalkError {
    /// More than `limit` directories to watch.
    TooMany,
    /// The ignore rules could not be read.
    Rules(String),
}

/// Walks the directories below `start` (worktree-relative, itself included), at most `budget`
/// directories to watch. Symlinks are never followed; unreadable or vanished directories are
/// watched but not entered (git cannot list them either).
pub(super) fn walk(
    open: &OpenRepo,
    index: &gix::index::State,
    start: &Path,
    budget: usize,
    list_files: bool,
) -> Result<Found, WalkError> {
    let mut excludes =
        worktree_excludes(open).map_err(|error| WalkError::Rules(error.to_string()))?;
    let mut found = Found::default();
    let mut queue = vec![start.to_owned()];
    while let Some(rel) = queue.pop() {
        let abs = open.workdir.join(&rel);
        if !rel.as_os_str().is_empty() && std::fs::symlink_metadata(abs.join(".git")).is_ok() {
            found.nested.push(rel);
            continue;
        }
        if found.watch.len() >= budget {
            return Err(WalkError::TooMany);
        }
        found.watch.push(rel.clone());
        let Ok(entries) = std::fs::read_dir(&abs) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            if name == ".git" {
                continue;
            }
            let child = rel.join(&name);
            // Reading a FIFO where git expects ignore rules would block the walk.
            if name == ".gitignore" && !entry.file_type().is_ok_and(|kind| kind.is_file()) {
                return Err(WalkError::Rules(format!(
                    "{} is not a regular file",
                    child.display()
                )));
            }
            if !entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                if list_files {
                    found.files.push(child);
                }
                continue;
            }
            let excluded = excludes
                .at_path(&child, Some(Mode::DIR))
                .map_err(|error| WalkError::Rules(error.to_string()))?
                .is_excluded();
            // A name git cannot store holds no tracked file; still watched, to be safe.
            let untracked = gix::path::into_bstr(child.as_path())
                .is_ok_and(|name| !index.path_is_directory(name.as_ref()));
            if excluded && untracked {
                continue;
            }
            queue.push(child);
        }
    }
    Ok(found)
}

/// Removes `rel` and everything below it from `set`.
pub(super) fn forget_below(set: &mut BTreeSet<PathBuf>, rel: &Path) {
    set.retain(|path| !path.starts_with(rel));
}

/// The deepest member of `nested` that is `rel` or an ancestor of it.
pub(super) fn nested_root<'a>(nested: &'a BTreeSet<PathBuf>, rel: &Path) -> Option<&'a PathBuf> {
    rel.ancestors().find_map(|ancestor| nested.get(ancestor))
}

//! Owns the path-limited status: the state of a handful of known paths (the targets of
//! `write`/`edit` calls) without walking the worktree or checking every index entry.
//!
//! For each requested file it looks up the `HEAD` tree entry and the index entries by path, runs
//! gix's index ↔ worktree check (stat, racy-git, filters, submodules) on an in-memory index that
//! holds only those entries, and asks the exclude stack whether an untracked path is ignored.
//! The index is read as `index_cache` reads it for every snapshot: without verifying its trailing
//! checksum, and reusing its decoded form while the file is unchanged.
//!
//! Renames cannot be detected here (their other half is outside the requested set), so a staged
//! rename shows as an addition and/or deletion of whichever side was requested. Paths inside a
//! submodule or a nested repository get no entry (git reports those through the submodule or the
//! repository directory); their content is still observed, so edits to them are still detected.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use gix::bstr::BStr;
use gix::index::entry::{Flags, Mode, Stage};

use super::entries::{EntryMap, staged_modification};
use super::full::{checked_flags, index_worktree};
use super::head_lookup::head_tree;
use crate::error::WorkspaceError;
use crate::repo::{OpenRepo, worktree_excludes, worktree_path};
use crate::snapshot::entry::{DirtyEntry, StagedChange, WorktreeChange};
use crate::snapshot::index_cache;
use pi_native_hooks_base::CancelToken;

/// Outcome of [`limited_status`]: either the entries for the requested paths, or a note that a
/// requested path needs the general (pathspec-limited full) status.
pub(crate) enum Limited {
    Entries(BTreeMap<String, DirtyEntry>),
    NeedsPathspecStatus,
}

/// The state of exactly `paths` (repo-relative files).
pub(crate) fn limited_status(
    open: &OpenRepo,
    paths: &BTreeSet<String>,
    cancel: &CancelToken,
) -> Result<Limited, WorkspaceError> {
    let workdir = open.workdir.as_path();
    let index = index_cache::load(open)?;
    if index.is_sparse() || paths.iter().any(|path| is_directory(workdir, &index, path)) {
        return Ok(Limited::NeedsPathspecStatus);
    }

    let mut map = EntryMap::default();
    let head_tree = head_tree(open)?;
    let mut subset = gix::index::State::new(open.repo.object_hash());
    let mut untracked_candidates = Vec::new();
    for path in paths {
        let rela = BStr::new(path.as_bytes());
        let range = index.entry_range(rela);
        let entries = range
            .map(|range| &index.entries()[range])
            .unwrap_or_default();
        for entry in entries {
            let flags = checked_flags(workdir, entry.flags, rela);
            subset.dangerously_push_entry(entry.stat, entry.id, flags, entry.mode, rela);
        }
        let staged_entry = entries
            .iter()
            .find(|e| e.stage() == Stage::Unconflicted && !e.flags.contains(Flags::INTENT_TO_ADD));
        let conflicted = entries.iter().any(|e| e.stage() != Stage::Unconflicted);
        let nested = entries.is_empty() && inside_nested_repository(workdir, &index, path);
        let tree_entry = match &head_tree {
            // `HEAD` has no tree below a submodule's gitlink to look in.
            Some(_) if nested => None,
            Some(tree) => tree.entry(path)?,
            None => None,
        };
        let staged = match (tree_entry, staged_entry) {
            (None, Some(_)) => Some(StagedChange::Added),
            (Some(_), None) if !conflicted => Some(StagedChange::Deleted),
            (Some((tree_mode, tree_id)), Some(entry)) => {
                let index_mode = normalize_mode(entry.mode.bits());
                let tree_mode = normalize_mode(tree_mode);
                (tree_id != entry.id || tree_mode != index_mode)
                    .then(|| staged_modification(tree_mode, index_mode))
            }
            _ => None,
        };
        if staged.is_some() {
            map.entry(rela).staged = staged;
        }
        if entries.is_empty() && !nested {
            untracked_candidates.push(path);
        }
    }
    subset.sort_entries();
    subset.set_timestamp(index.timestamp());

    if !subset.entries().is_empty() {
        for item in index_worktree(open, &subset, cancel)? {
            map.apply_index_worktree(item);
        }
    }
    if !untracked_candidates.is_empty() {
        mark_untracked(open, &untracked_candidates, &mut map)?;
    }
    if cancel.is_cancelled() {
        return Err(WorkspaceError::Cancelled {
            path: open.workdir.clone(),
        });
    }
    Ok(Limited::Entries(map.finish()))
}

/// A requested path that is a directory on disk, or a directory of tracked files in the index.
fn is_directory(workdir: &Path, index: &gix::index::State, path: &str) -> bool {
    if path.is_empty() {
        return true;
    }
    let on_disk = std::fs::symlink_metadata(worktree_path(workdir, path)).is_ok_and(|m| m.is_dir());
    let is_gitlink = index
        .entry_by_path(BStr::new(path.as_bytes()))
        .is_some_and(|e| e.mode == Mode::COMMIT);
    (on_disk && !is_gitlink) || index.path_is_directory(BStr::new(path.as_bytes()))
}

/// `true` if an ancestor directory of `path` is a submodule (a gitlink in the index) or another
/// repository's worktree: git reports such paths through the submodule or as the nested
/// repository directory, never as untracked files of this repository.
fn inside_nested_repository(workdir: &Path, index: &gix::index::State, path: &str) -> bool {
    path.match_indices('/').any(|(end, _)| {
        let ancestor = &path[..end];
        index
            .entry_by_path(BStr::new(ancestor.as_bytes()))
            .is_some_and(|e| e.mode == Mode::COMMIT)
            || worktree_path(workdir, ancestor).join(".git").exists()
    })
}

/// Regular files keep only the executable distinction, like git does.
fn normalize_mode(mode: u32) -> u32 {
    const TYPE_MASK: u32 = 0o170000;
    if mode & TYPE_MASK == 0o100000 {
        if mode & 0o111 != 0 {
            0o100755
        } else {
            0o100644
        }
    } else {
        mode & TYPE_MASK
    }
}

/// Mark the existing, not-ignored paths among `candidates` (which have no index entry) untracked.
fn mark_untracked(
    open: &OpenRepo,
    candidates: &[&String],
    map: &mut EntryMap,
) -> Result<(), WorkspaceError> {
    let err = || {
        WorkspaceError::git(
            &open.workdir,
            "evaluating .gitignore rules",
            "check the .gitignore files and core.excludesFile for syntax errors",
        )
    };
    let mut excludes = worktree_excludes(open).map_err(err())?;
    for path in candidates {
        let Ok(meta) = std::fs::symlink_metadata(worktree_path(&open.workdir, path)) else {
            continue;
        };
        let mode = if meta.file_type().is_symlink() {
            Mode::SYMLINK
        } else {
            Mode::FILE
        };
        let mut ignored = false;
        let mut prefix = String::new();
        let components: Vec<&str> = path.split('/').collect();
        for (i, component) in components.iter().enumerate() {
            if !prefix.is_empty() {
                prefix.push('/');
            }
            prefix.push_str(component);
            let is_last = i + 1 == components.len();
            let component_mode = if is_last { mode } else { Mode::DIR };
            if excludes
                .at_path(Path::new(&prefix), Some(component_mode))
                .map_err(err())?
                .is_excluded()
            {
                ignored = true;
                break;
            }
        }
        if !ignored {
            map.entry(BStr::new(path.as_bytes())).worktree = Some(WorktreeChange::Untracked);
        }
    }
    Ok(())
}

//! Owns the watched snapshot: the previous whole-worktree snapshot with the entries of the paths
//! the watcher reported replaced by a path-limited status of those paths (a directory path covers
//! everything below it, so a new untracked directory is walked and a deleted one drops its
//! entries), and of every path the previous snapshot listed in the scope. `HEAD` and the index
//! are unchanged since the previous snapshot (the guard checked), so no other path's status can
//! have changed.

use super::super::status::FallbackReason;
use crate::error::WorkspaceError;
use crate::snapshot::fingerprint::fingerprint;
use crate::snapshot::{Scope, WorkspaceSnapshot, capture_paths_with_cancel};
use pi_native_hooks_base::CancelToken;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// What the watcher's events say changed: `scope` (worktree-relative paths, a directory covering everything below it)
/// replaces the previous entries it contains with the status of `files` (absolute; everything in
/// the scope that is or was a file, taken with the path-limited status that checks each file on
/// its own) and of `nested` (absolute roots of nested repositories, taken with the
/// pathspec-limited status that reports them as git does).
pub(crate) struct ChangeScope {
    pub(crate) scope: Scope,
    pub(crate) files: Vec<PathBuf>,
    pub(crate) nested: Vec<PathBuf>,
}

/// `previous` updated with the status of what `changed` names; `Err` when a path is part of a
/// staged rename or copy, which a path-limited status cannot pair.
pub(crate) fn update(
    previous: &WorkspaceSnapshot,
    changed: &ChangeScope,
    cancel: &CancelToken,
) -> Result<Result<WorkspaceSnapshot, FallbackReason>, WorkspaceError> {
    let scope = &changed.scope;
    for entry in previous.entries.values() {
        if let Some(source) = entry.source_path()
            && (scope.contains(&entry.path) || scope.contains(source))
        {
            return Ok(Err(FallbackReason::StagedRename {
                path: entry.path.clone(),
            }));
        }
    }
    // What the previous snapshot listed in the scope is looked at again, though the events may
    // not name it: a staged deletion is in neither the index nor the worktree, so nothing else
    // brings it back once its directory is recreated or moved.
    let mut files = changed.files.clone();
    let known: BTreeSet<&PathBuf> = changed.files.iter().chain(&changed.nested).collect();
    let listed: Vec<PathBuf> = previous
        .entries
        .keys()
        .filter(|path| scope.contains(path))
        .map(|path| previous.worktree_root.join(path))
        .filter(|path| !known.contains(path))
        .collect();
    files.extend(listed);
    if files.is_empty() && changed.nested.is_empty() {
        return Ok(Ok(previous.clone()));
    }
    let mut entries = previous.entries.clone();
    entries.retain(|path, _| !scope.contains(path));
    let mut head = previous.head.clone();
    for paths in [&files, &changed.nested] {
        if paths.is_empty() {
            continue;
        }
        let limited = capture_paths_with_cancel(&previous.worktree_root, paths, cancel)?;
        head = limited.head;
        entries.extend(limited.entries);
    }
    let mut sources = BTreeMap::new();
    for source in entries.values().filter_map(|entry| entry.source_path()) {
        if !entries.contains_key(source)
            && let Some(content) = previous.sources.get(source)
        {
            sources.insert(source.to_owned(), content.clone());
        }
    }
    let fingerprint = fingerprint(&head, &entries, &BTreeMap::new(), &sources);
    Ok(Ok(WorkspaceSnapshot {
        worktree_root: previous.worktree_root.clone(),
        head,
        entries,
        scope: Scope::Full,
        observed: BTreeMap::new(),
        sources,
        fingerprint,
    }))
}

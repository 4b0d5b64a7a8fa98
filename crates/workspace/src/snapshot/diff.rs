//! Owns [`WorkspaceSnapshot::changed_paths`]: the paths whose dirty status or content differs
//! between two snapshots, plus — when `HEAD` moved — the paths changed between the two `HEAD`
//! commits (a gix tree diff).

use std::collections::BTreeSet;

use crate::error::WorkspaceError;
use crate::repo;
use crate::snapshot::entry::{Content, DirtyEntry, WorktreeChange};
use crate::snapshot::{Scope, WorkspaceSnapshot};

/// Everything a snapshot knows about one path, for comparison.
#[derive(PartialEq)]
enum PathState<'a> {
    /// A dirty entry: compared by status, rename source, submodule detail and content.
    Dirty(&'a DirtyEntry),
    /// The source of a staged rename/copy recorded in another entry.
    RenameSource(&'a Content),
    /// Not dirty; the content is known only for paths a path-limited snapshot observed.
    Clean(Option<&'a Content>),
}

fn state<'a>(snapshot: &'a WorkspaceSnapshot, path: &str) -> PathState<'a> {
    if let Some(entry) = snapshot.entries.get(path) {
        return PathState::Dirty(entry);
    }
    if let Some(content) = snapshot.sources.get(path) {
        return PathState::RenameSource(content);
    }
    PathState::Clean(snapshot.observed.get(path))
}

fn differs(before: &PathState<'_>, after: &PathState<'_>) -> bool {
    match (before, after) {
        (PathState::Dirty(a), PathState::Dirty(b)) => {
            a.xy() != b.xy()
                || a.source_path() != b.source_path()
                || a.content != b.content
                || submodule_detail(a) != submodule_detail(b)
        }
        (PathState::RenameSource(a), PathState::RenameSource(b)) => a != b,
        (PathState::Clean(a), PathState::Clean(b)) => match (a, b) {
            (Some(a), Some(b)) => a != b,
            _ => false,
        },
        _ => true,
    }
}

fn submodule_detail(entry: &DirtyEntry) -> Option<crate::snapshot::entry::SubmoduleChange> {
    match &entry.worktree {
        Some(WorktreeChange::Submodule(change)) => Some(*change),
        _ => None,
    }
}

fn known_paths(snapshot: &WorkspaceSnapshot) -> impl Iterator<Item = &String> {
    snapshot
        .entries
        .keys()
        .chain(snapshot.sources.keys())
        .chain(snapshot.observed.keys())
}

impl WorkspaceSnapshot {
    /// The repo-relative paths that changed between `before` and `after`:
    ///
    /// * paths dirty in one snapshot but not the other, or dirty in both with a different status
    ///   or content (so a second edit of an already-dirty file is reported);
    /// * when `HEAD` moved (commit, checkout, reset), every path that differs between the two
    ///   `HEAD` trees — e.g. the files a commit just made clean.
    ///
    /// Scopes: two path-limited snapshots are compared on the union of their paths (a path only
    /// one of them observed counts as changed); a full and a path-limited snapshot are compared on
    /// the path-limited one's paths only.
    ///
    /// Fails only when `HEAD` moved and the tree diff cannot be computed.
    pub fn changed_paths(before: &Self, after: &Self) -> Result<BTreeSet<String>, WorkspaceError> {
        let both_limited = matches!(
            (&before.scope, &after.scope),
            (Scope::Paths(_), Scope::Paths(_))
        );
        let candidates: BTreeSet<&String> = known_paths(before).chain(known_paths(after)).collect();
        let mut changed = BTreeSet::new();
        for path in candidates {
            let (in_before, in_after) = (before.scope.contains(path), after.scope.contains(path));
            let is_changed = match (in_before, in_after) {
                (true, true) => differs(&state(before, path), &state(after, path)),
                (false, false) => false,
                _ => both_limited,
            };
            if is_changed {
                changed.insert(path.clone());
            }
        }
        if before.head.id != after.head.id {
            changed.extend(head_move_paths(
                after,
                before.head.id.as_deref(),
                after.head.id.as_deref(),
            )?);
        }
        Ok(changed)
    }
}

/// Paths (files, symlinks, gitlinks; not directories) that differ between two commits of the
/// repository at `snapshot`'s worktree. `None` stands for an unborn `HEAD` (the empty tree).
fn head_move_paths(
    snapshot: &WorkspaceSnapshot,
    old: Option<&str>,
    new: Option<&str>,
) -> Result<BTreeSet<String>, WorkspaceError> {
    let root = &snapshot.worktree_root;
    let err = || {
        WorkspaceError::git(
            root,
            "diffing the old and new HEAD trees",
            "check that both commits are still present (`git cat-file -t <id>`)",
        )
    };
    let open = repo::open(root)?;
    let tree_of = |id: Option<&str>| -> Result<gix::Tree<'_>, WorkspaceError> {
        let Some(id) = id else {
            return Ok(open.repo.empty_tree());
        };
        let id =
            gix::ObjectId::from_hex(id.as_bytes()).map_err(|e| err()(gix::Error::from_error(e)))?;
        open.repo
            .find_commit(id)
            .map_err(|e| err()(gix::Error::from_error(e)))?
            .tree()
            .map_err(err())
    };
    let (old_tree, new_tree) = (tree_of(old)?, tree_of(new)?);
    let changes = open
        .repo
        .diff_tree_to_tree(
            Some(&old_tree),
            Some(&new_tree),
            gix::diff::Options::default(),
        )
        .map_err(err())?;
    let mut paths = BTreeSet::new();
    for change in changes {
        if change.entry_mode().is_tree() {
            continue;
        }
        paths.insert(change.location().to_string());
        paths.insert(change.source_location().to_string());
    }
    Ok(paths)
}

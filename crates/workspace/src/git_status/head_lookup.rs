//! Owns looking up the requested paths in the `HEAD` commit's tree for the path-limited status,
//! and the process-wide memory of what those lookups found.
//!
//! A wave takes two path-limited snapshots of the same paths, and a session writes the same files
//! again and again; each lookup read the `HEAD` commit and every tree on the way to the path from
//! the object database (inflating each loose object), about a tenth of a snapshot's time. Objects
//! are named by their content, so a commit's tree and a tree's entry at a path never change: the
//! memory needs no invalidation, only a bound. The exception is git's object replacement
//! (`refs/replace/`), which makes an id stand for another object: while a repository has a
//! replacement, nothing is remembered or reused for it.

use pi_native_hooks_base::lock;
use std::collections::HashMap;
use std::path::Path;
use std::sync::{LazyLock, Mutex};

use gix::ObjectId;

use crate::error::WorkspaceError;
use crate::repo::OpenRepo;

/// The mode and id of a tree entry.
pub(crate) type TreeEntry = (u32, ObjectId);

/// How many commits' trees, and how many entries, are remembered; the memory starts over when
/// full (a session touches far fewer paths than this between commits).
const COMMITS: usize = 64;
const ENTRIES: usize = 1024;

#[derive(Default)]
struct Memory {
    /// A commit's root tree.
    trees: HashMap<ObjectId, ObjectId>,
    /// A tree's entry at a path, or `None` when the path is not there.
    entries: HashMap<(ObjectId, String), Option<TreeEntry>>,
}

static MEMORY: LazyLock<Mutex<Memory>> = LazyLock::new(Mutex::default);

fn memory() -> std::sync::MutexGuard<'static, Memory> {
    lock(&MEMORY)
}

/// The root tree of the commit `HEAD` points to, to look paths up in.
pub(crate) struct HeadTree<'repo> {
    open: &'repo OpenRepo,
    tree: ObjectId,
    /// False while the repository replaces objects: its lookups are neither remembered nor reused.
    remember: bool,
}

/// The tree of `HEAD`'s commit, `None` on an unborn branch.
pub(crate) fn head_tree(open: &OpenRepo) -> Result<Option<HeadTree<'_>>, WorkspaceError> {
    let err = || {
        WorkspaceError::git(
            &open.workdir,
            "reading the HEAD tree",
            "check that the HEAD commit's objects are present (`git fsck`)",
        )
    };
    let mut head = open.repo.head().map_err(err())?;
    let Some(commit) = head.try_peel_to_id().map_err(err())? else {
        return Ok(None);
    };
    let commit = commit.detach();
    let objects = &open.repo.objects;
    let remember =
        objects.ignore_replacements || objects.store_ref().replacements().next().is_none();
    let known = if remember {
        memory().trees.get(&commit).copied()
    } else {
        None
    };
    let tree = if let Some(tree) = known {
        tree
    } else {
        let tree = open
            .repo
            .find_object(commit)
            .map_err(err())?
            .peel_to_commit()
            .map_err(err())?
            .tree_id()
            .map_err(err())?
            .detach();
        if remember {
            let mut memory = memory();
            if memory.trees.len() >= COMMITS {
                memory.trees.clear();
            }
            memory.trees.insert(commit, tree);
        }
        tree
    };
    Ok(Some(HeadTree {
        open,
        tree,
        remember,
    }))
}

impl HeadTree<'_> {
    /// The mode and id of `path` in the tree, or `None` if it is not there, including when an
    /// ancestor is a gitlink (a submodule the index no longer records).
    pub(crate) fn entry(&self, path: &str) -> Result<Option<TreeEntry>, WorkspaceError> {
        let key = (self.tree, path.to_owned());
        if self.remember
            && let Some(known) = memory().entries.get(&key)
        {
            return Ok(*known);
        }
        let found = self.look_up(path)?;
        if self.remember {
            let mut memory = memory();
            if memory.entries.len() >= ENTRIES {
                memory.entries.clear();
            }
            memory.entries.insert(key, found);
        }
        Ok(found)
    }

    fn look_up(&self, path: &str) -> Result<Option<TreeEntry>, WorkspaceError> {
        let error = || {
            WorkspaceError::git(
                &self.open.workdir,
                "looking up a path in the HEAD tree",
                "check that the HEAD commit's objects are present (`git fsck`)",
            )
        };
        let tree = self.open.repo.find_tree(self.tree).map_err(error())?;
        match tree.lookup_entry_by_path(Path::new(path)) {
            Ok(entry) => Ok(entry.map(|e| (u32::from(e.mode().value()), e.object_id()))),
            Err(source) => {
                // The lookup fails when it has to descend into a commit; any other failure stands.
                let below_gitlink = path.match_indices('/').any(|(end, _)| {
                    tree.lookup_entry_by_path(Path::new(&path[..end]))
                        .ok()
                        .flatten()
                        .is_some_and(|e| e.mode().is_commit())
                });
                if below_gitlink {
                    Ok(None)
                } else {
                    Err(error()(gix::Error::from_error(source)))
                }
            }
        }
    }
}

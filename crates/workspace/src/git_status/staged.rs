//! Owns the `HEAD` ↔ index half of a full snapshot (git's staged column), computed the way git's
//! `diff-index --cached` does it: directories whose cache-tree entry in the index is valid and
//! names the same tree as `HEAD` are skipped without reading a single object.
//!
//! The index's cache-tree extension records, for each directory whose index entries have not
//! changed since the tree was last written, the id of the tree those entries make up. Where that
//! id equals the `HEAD` tree's id for the same directory, index and `HEAD` agree on everything
//! below it; git relies on the same fact (`traverse_by_cache_tree`). Only the remaining
//! directories are read from the object database, giving one index of the `HEAD` side and one of
//! the index side with the agreeing directories left out of both. gix's index diff with rename
//! and copy tracking as configured then runs on those two: it sees the same additions,
//! deletions and modifications as on the whole indexes (copies are only searched among modified
//! files), so it reports the same changes.
//!
//! Without a cache-tree extension (or with every directory invalidated) nothing is skipped and the
//! whole `HEAD` tree is read, as gix's own tree ↔ index status does.

use std::borrow::Cow;
use std::ops::Range;

use gix::bstr::{BStr, BString, ByteSlice};
use gix::index::extension::Tree as CacheTree;
use gix::objs::tree::EntryKind;

use super::entries::EntryMap;
use crate::error::WorkspaceError;
use crate::repo::OpenRepo;

/// Record every `HEAD` ↔ index change of `index` in `map`, with rename tracking as configured.
pub(crate) fn staged_changes(
    open: &OpenRepo,
    index: &gix::index::State,
    rewrites: Option<gix::diff::Rewrites>,
    map: &mut EntryMap,
) -> Result<(), WorkspaceError> {
    let err = || {
        WorkspaceError::git(
            &open.workdir,
            "comparing HEAD to the index",
            "check that the HEAD commit's objects are present (`git fsck`)",
        )
    };
    let repo = &open.repo;
    let tree_id = repo.head_tree_id_or_empty().map_err(err())?.detach();
    let mut head = HeadSide {
        repo,
        index,
        state: gix::index::State::new(repo.object_hash()),
        path: BString::default(),
        skipped: Vec::new(),
    };
    head.add_tree(tree_id, index.tree()).map_err(err())?;
    // The whole tree agrees: nothing is staged.
    let everything = 0..index.entries().len();
    if head.state.entries().is_empty()
        && matches!(head.skipped.as_slice(), [only] if *only == everything)
    {
        return Ok(());
    }
    let index_side = if head.skipped.iter().all(Range::is_empty) {
        Cow::Borrowed(index)
    } else {
        Cow::Owned(without(index, &head.skipped))
    };
    diff(open, &head.state, &index_side, index, rewrites, map).map_err(err())
}

/// The `HEAD` side of the diff: the entries of every directory that could not be skipped.
struct HeadSide<'a> {
    repo: &'a gix::Repository,
    index: &'a gix::index::State,
    /// `HEAD`'s entries outside the skipped directories, in index order.
    state: gix::index::State,
    /// The directory being read, with a trailing `/` unless it is the root.
    path: BString,
    /// The index entries of skipped directories, ascending.
    skipped: Vec<Range<usize>>,
}

impl HeadSide<'_> {
    /// Add the entries of the tree `id` at `self.path`, whose cache-tree entry (if any) is `cache`.
    ///
    /// Entries are added in tree order, which is index order: a directory sorts as if its name
    /// ended in `/`, exactly where its entries sort among the index's paths.
    fn add_tree(&mut self, id: gix::ObjectId, cache: Option<&CacheTree>) -> gix::Result<()> {
        if let Some(cache) = cache
            && cache.num_entries.is_some()
            && cache.id == id
        {
            let range = if self.path.is_empty() {
                0..self.index.entries().len()
            } else {
                self.index
                    .prefixed_entries_range(self.path.as_bstr())
                    .unwrap_or_default()
            };
            self.skipped.push(range);
            return Ok(());
        }
        let tree = self.repo.find_tree(id)?;
        let children = cache.map(|cache| {
            let mut children: Vec<&CacheTree> = cache.children.iter().collect();
            children.sort_unstable_by(|a, b| a.name.cmp(&b.name));
            children
        });
        for entry in tree.iter() {
            let entry = entry?;
            let name = entry.filename();
            let len = self.path.len();
            self.path.extend_from_slice(name);
            let mode = match entry.mode().kind() {
                EntryKind::Tree => {
                    self.path.push(b'/');
                    let child = children.as_ref().and_then(|children| {
                        children
                            .binary_search_by(|child| child.name.as_slice().cmp(name.as_bytes()))
                            .ok()
                            .and_then(|at| children.get(at).copied())
                    });
                    self.add_tree(entry.oid().to_owned(), child)?;
                    self.path.truncate(len);
                    continue;
                }
                // The modes gix's `State::from_tree` gives tree entries.
                EntryKind::Blob => gix::index::entry::Mode::FILE,
                EntryKind::BlobExecutable => gix::index::entry::Mode::FILE_EXECUTABLE,
                EntryKind::Link => gix::index::entry::Mode::SYMLINK,
                EntryKind::Commit => gix::index::entry::Mode::COMMIT,
            };
            self.state.dangerously_push_entry(
                gix::index::entry::Stat::default(),
                entry.oid().to_owned(),
                gix::index::entry::Flags::empty(),
                mode,
                self.path.as_bstr(),
            );
            self.path.truncate(len);
        }
        Ok(())
    }
}

/// A copy of `index`'s entries outside the ascending, disjoint `skipped` ranges.
fn without(index: &gix::index::State, skipped: &[Range<usize>]) -> gix::index::State {
    let mut out = gix::index::State::new(index.object_hash());
    let mut push = |range: Range<usize>| {
        for entry in index.entries().get(range).unwrap_or_default() {
            out.dangerously_push_entry(
                entry.stat,
                entry.id,
                entry.flags,
                entry.mode,
                entry.path(index),
            );
        }
    };
    let mut at = 0;
    for range in skipped {
        push(at..range.start.max(at));
        at = at.max(range.end);
    }
    push(at..index.entries().len());
    out
}

/// gix's index diff of `head` against `index_side` (what gix's tree ↔ index status runs on whole
/// indexes), recorded in `map`; `index` is the whole index, for copy sources.
fn diff(
    open: &OpenRepo,
    head: &gix::index::State,
    index_side: &gix::index::State,
    index: &gix::index::State,
    rewrites: Option<gix::diff::Rewrites>,
    map: &mut EntryMap,
) -> gix::Result<()> {
    let repo = &open.repo;
    let mut resource_cache = match rewrites {
        Some(_) => Some(repo.diff_resource_cache_for_tree_diff()?),
        None => None,
    };
    let rewrite_options =
        rewrites
            .zip(resource_cache.as_mut())
            .map(
                |(rewrites, resource_cache)| gix::diff::index::RewriteOptions {
                    resource_cache,
                    find: repo,
                    rewrites,
                },
            );
    let mut everything =
        gix::pathspec::Search::from_specs(None::<gix::pathspec::Pattern>, None, &open.workdir)?;
    gix::diff::index(
        head,
        index_side,
        |change| {
            map.apply_tree_index(change);
            Ok(std::ops::ControlFlow::Continue(()))
        },
        rewrite_options,
        &mut everything,
        // Only pathspecs with attributes consult this; the match-everything one has none.
        &mut |_: &BStr, _, _, _| false,
    )?;
    map.restore_copy_sources(head, index);
    Ok(())
}

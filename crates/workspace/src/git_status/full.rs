//! Owns the translation of gix status output into [`DirtyEntry`] values and the full-worktree
//! status run (`HEAD` ↔ index with rename tracking as configured, index ↔ worktree, every
//! untracked non-ignored file, submodules), like
//! `git status --porcelain=v2 --untracked-files=all`. Nothing here writes the index: the index
//! refreshes gix computes in memory are dropped.
//!
//! The whole-worktree status runs three parts at once: the directory walk for untracked files
//! (gix's, on its own thread), the stat pass over the tracked entries (`stat_scan`, on the other
//! threads), after which gix's index ↔ worktree check runs only on the entries the stat pass could
//! not prove unchanged, and the `HEAD` ↔ index diff (`staged`, skipping directories the index's
//! cache-tree shows unchanged). A pathspec-limited status, a sparse index and a split index take
//! gix's own status iterator instead.
//!
//! Unlike `git status`, index flags do not hide edits: entries marked `assume-unchanged` (or
//! fsmonitor-valid: no fsmonitor is asked) are checked like any other, and so are `skip-worktree`
//! entries whose path exists in the worktree (a sparse checkout leaves its skip-worktree paths
//! absent, and those stay unchanged). See [`checked_flags`].

use std::collections::BTreeMap;
use std::sync::Arc;

use gix::bstr::{BStr, BString, ByteSlice};

use super::entries::EntryMap;
use super::staged::staged_changes;
use super::stat_scan::{self, StatRules};
use crate::error::WorkspaceError;
use crate::repo::{OpenRepo, worktree_path};
use crate::snapshot::entry::DirtyEntry;
use crate::snapshot::index_cache;
use pi_native_hooks_base::CancelToken;

/// Rename tracking between `HEAD` and the index as git's `status` configures it: `status.renames`
/// (falling back to `diff.renames`, default on; `copies` also tracks copies) and
/// `status.renameLimit` (falling back to `diff.renameLimit`). `None` means no tracking.
///
/// gix's own `AsConfigured` reads `merge.renames` instead of `status.renames`, so this resolves
/// the keys itself.
fn configured_rewrites(repo: &gix::Repository) -> Option<gix::diff::Rewrites> {
    #[derive(Clone, Copy)]
    enum Tracking {
        Off,
        Renames,
        RenamesAndCopies,
    }
    let config = repo.config_snapshot();
    let tracking = |key: &str| -> Option<Tracking> {
        let raw = config.string(key)?;
        if raw.eq_ignore_ascii_case(b"copy") || raw.eq_ignore_ascii_case(b"copies") {
            return Some(Tracking::RenamesAndCopies);
        }
        // An unparsable value is treated as unset.
        config
            .boolean(key)
            .map(|on| if on { Tracking::Renames } else { Tracking::Off })
    };
    let copies = match tracking("status.renames").or_else(|| tracking("diff.renames")) {
        Some(Tracking::Off) => return None,
        Some(Tracking::RenamesAndCopies) => true,
        Some(Tracking::Renames) | None => false,
    };
    let limit = config
        .integer("status.renameLimit")
        .or_else(|| config.integer("diff.renameLimit"))
        .and_then(|limit| usize::try_from(limit).ok());
    let default = gix::diff::Rewrites::default();
    Some(gix::diff::Rewrites {
        copies: copies.then(gix::diff::rewrites::Copies::default),
        limit: limit.unwrap_or(default.limit),
        ..default
    })
}

/// Maps gix errors of a status run to [`WorkspaceError`]: once `cancel` is cancelled, any error is
/// the cancellation (gix reports an interrupted walk as an error of its own).
fn status_error<'a>(
    open: &'a OpenRepo,
    cancel: &'a CancelToken,
) -> impl Fn(gix::Error) -> WorkspaceError + 'a {
    move |source| {
        if cancel.is_cancelled() {
            cancelled(open)
        } else {
            WorkspaceError::git(
                &open.workdir,
                "computing the status",
                "check that `git status` works in this repository",
            )(source)
        }
    }
}

fn cancelled(open: &OpenRepo) -> WorkspaceError {
    WorkspaceError::Cancelled {
        path: open.workdir.clone(),
    }
}

/// Run the status of the worktree, like
/// `git status --porcelain=v2 --untracked-files=all [-- <patterns>]`, without writing the index.
///
/// `patterns` are git pathspecs; empty means the whole worktree.
pub(crate) fn full_status(
    open: &OpenRepo,
    patterns: Vec<BString>,
    cancel: &CancelToken,
) -> Result<BTreeMap<String, DirtyEntry>, WorkspaceError> {
    if cancel.is_cancelled() {
        return Err(cancelled(open));
    }
    if patterns.is_empty() {
        let index = index_cache::load(open)?;
        if !index.is_sparse() && index.link().is_none() {
            return worktree_status(open, &index, cancel);
        }
    }
    iterator_status(open, patterns, cancel)
}

/// The whole-worktree status of `index`: dirwalk, stat pass with gix checking the suspects, and
/// the cache-tree-assisted `HEAD` ↔ index diff (see the module docs).
fn worktree_status(
    open: &OpenRepo,
    index: &gix::index::State,
    cancel: &CancelToken,
) -> Result<BTreeMap<String, DirtyEntry>, WorkspaceError> {
    let status_error = status_error(open, cancel);
    let rules = StatRules::of(&open.repo).map_err(&status_error)?;
    let rewrites = configured_rewrites(&open.repo);
    let mut map = EntryMap::default();
    let walk_repo = open.repo.clone();
    let (tracked, untracked) = std::thread::scope(|scope| {
        let walk = std::thread::Builder::new()
            .name("workspace-dirwalk".into())
            .spawn_scoped(scope, move || untracked_files(&walk_repo, index, cancel));
        let tracked = (|| {
            let suspects = stat_scan::suspects(&open.workdir, index, rules, cancel)
                .ok_or_else(|| cancelled(open))?;
            tracked_changes(open, index, &suspects, cancel, &mut map)?;
            staged_changes(open, index, rewrites, &mut map)
        })();
        let untracked = match walk {
            Ok(walk) => walk.join().unwrap_or_else(|_| {
                Err(gix::Error::from_error(gix::error::message(
                    "the directory walk panicked",
                )))
            }),
            // No thread for the walk: walk here.
            Err(_) => untracked_files(&open.repo, index, cancel),
        };
        (tracked, untracked)
    });
    tracked?;
    for path in untracked.map_err(&status_error)? {
        map.mark_untracked(path.as_bstr());
    }
    // Parts stopped early by a cancellation may have returned partial results.
    if cancel.is_cancelled() {
        return Err(cancelled(open));
    }
    Ok(map.finish())
}

/// Run gix's index ↔ worktree check on the `suspects` (indices into `index`) and record the
/// changes.
///
/// The index handed to gix holds the suspects plus every `.gitattributes` entry, so attributes
/// missing from the worktree are still read from the index as with the whole index.
fn tracked_changes(
    open: &OpenRepo,
    index: &gix::index::State,
    suspects: &[usize],
    cancel: &CancelToken,
    map: &mut EntryMap,
) -> Result<(), WorkspaceError> {
    if suspects.is_empty() {
        return Ok(());
    }
    let entries = index.entries();
    let mut picked: Vec<usize> = entries
        .iter()
        .enumerate()
        .filter(|(_, entry)| {
            let path = entry.path(index);
            path == ".gitattributes" || path.ends_with(b"/.gitattributes")
        })
        .map(|(i, _)| i)
        .chain(suspects.iter().copied())
        .collect();
    picked.sort_unstable();
    picked.dedup();
    let mut subset = gix::index::State::new(open.repo.object_hash());
    for entry in picked.iter().filter_map(|&i| entries.get(i)) {
        let path = entry.path(index);
        subset.dangerously_push_entry(
            entry.stat,
            entry.id,
            checked_flags(&open.workdir, entry.flags, path),
            entry.mode,
            path,
        );
    }
    subset.set_timestamp(index.timestamp());
    for item in index_worktree(open, &subset, cancel)? {
        map.apply_index_worktree(item);
    }
    Ok(())
}

/// The flags gix's worktree check sees for an entry at `path` with `flags`: without
/// `assume-unchanged` and `fsmonitor-valid`, and without `skip-worktree` when the path exists in
/// the worktree, so that none of them hides an edit. An absent `skip-worktree` path keeps the
/// flag: a sparse checkout leaves such paths out on purpose.
pub(crate) fn checked_flags(
    workdir: &std::path::Path,
    flags: gix::index::entry::Flags,
    path: &BStr,
) -> gix::index::entry::Flags {
    use gix::index::entry::Flags;
    let mut checked = flags - (Flags::ASSUME_VALID | Flags::FSMONITOR_VALID);
    if checked.contains(Flags::SKIP_WORKTREE)
        && std::str::from_utf8(path)
            .is_ok_and(|path| std::fs::symlink_metadata(worktree_path(workdir, path)).is_ok())
    {
        checked.remove(Flags::SKIP_WORKTREE);
    }
    checked
}

/// The indices of the unconflicted file and symlink entries of `index` whose flags would make
/// gix's worktree check skip them (see [`checked_flags`]).
fn flagged_entries(index: &gix::index::State) -> Vec<usize> {
    use gix::index::entry::{Flags, Mode};
    index
        .entries()
        .iter()
        .enumerate()
        .filter(|(_, entry)| {
            entry.stage_raw() == 0
                && matches!(
                    entry.mode,
                    Mode::FILE | Mode::FILE_EXECUTABLE | Mode::SYMLINK
                )
                && entry
                    .flags
                    .intersects(Flags::SKIP_WORKTREE | Flags::ASSUME_VALID | Flags::FSMONITOR_VALID)
        })
        .map(|(i, _)| i)
        .collect()
}

/// Every untracked, not ignored path of the worktree, as gix's status walk lists them with
/// `--untracked-files=all`.
fn untracked_files(
    repo: &gix::Repository,
    index: &gix::index::State,
    cancel: &CancelToken,
) -> gix::Result<Vec<BString>> {
    let options = repo
        .dirwalk_options()?
        .emit_untracked(gix::dir::walk::EmissionMode::Matching);
    let mut untracked = Untracked {
        paths: Vec::new(),
        cancel,
    };
    repo.dirwalk(index, None::<&BStr>, cancel.flag(), options, &mut untracked)?;
    Ok(untracked.paths)
}

/// Collects untracked paths from the directory walk. Unlike `git status`, entries of a type git
/// cannot track (FIFOs, sockets, devices) are kept: a FIFO named `src/x.ts` appearing is a change
/// the analysis must report as not analyzed and the gate must see, never a silent nothing.
struct Untracked<'a> {
    paths: Vec<BString>,
    cancel: &'a CancelToken,
}

impl gix::dir::walk::Delegate for Untracked<'_> {
    fn emit(
        &mut self,
        entry: gix::dir::EntryRef<'_>,
        _collapsed_directory_status: Option<gix::dir::entry::Status>,
    ) -> gix::dir::walk::Action {
        if entry.status == gix::dir::entry::Status::Untracked {
            self.paths.push(entry.rela_path.into_owned());
        }
        if self.cancel.is_cancelled() {
            std::ops::ControlFlow::Break(())
        } else {
            std::ops::ControlFlow::Continue(())
        }
    }
}

/// gix's status iterator, for pathspec-limited runs and indexes the whole-worktree run leaves to
/// gix (sparse or split).
fn iterator_status(
    open: &OpenRepo,
    patterns: Vec<BString>,
    cancel: &CancelToken,
) -> Result<BTreeMap<String, DirtyEntry>, WorkspaceError> {
    use gix::status::tree_index::TrackRenames;
    let status_error = status_error(open, cancel);
    let renames =
        configured_rewrites(&open.repo).map_or(TrackRenames::Disabled, TrackRenames::Given);
    let mut iter = open
        .repo
        .status(gix::progress::Discard)
        .map_err(&status_error)?
        .untracked_files(gix::status::UntrackedFiles::Files)
        .index_worktree_rewrites(None)
        .index_worktree_submodules(gix::status::Submodule::AsConfigured { check_dirty: false })
        .tree_index_track_renames(renames)
        .should_interrupt_owned(Arc::clone(cancel.flag()))
        .into_iter(patterns)
        .map_err(&status_error)?;
    let mut map = EntryMap::default();
    for item in iter.by_ref() {
        match item.map_err(&status_error)? {
            gix::status::Item::IndexWorktree(item) => map.apply_index_worktree(item),
            gix::status::Item::TreeIndex(change) => map.apply_tree_index(change),
        }
    }
    // An iterator that stopped early (interrupted) has no outcome; never report a partial status.
    // The outcome holds the in-memory index refreshes; it is dropped without `write_changes()`.
    let outcome = match iter.into_outcome() {
        Some(outcome) if !cancel.is_cancelled() => outcome,
        _ => return Err(cancelled(open)),
    };
    if let Some(tree_index) = &outcome.tree_index {
        map.restore_copy_sources(&tree_index.tree_index, &outcome.worktree_index);
    }
    // gix's iterator skipped the flagged entries; check them as the whole-worktree run does (the
    // caller keeps only the paths its pathspecs asked for).
    let index = &outcome.worktree_index;
    tracked_changes(open, index, &flagged_entries(index), cancel, &mut map)?;
    if cancel.is_cancelled() {
        return Err(cancelled(open));
    }
    Ok(map.finish())
}

/// Run gix's index ↔ worktree check for the entries of `index` only (no directory walk), without
/// writing anything.
pub(crate) fn index_worktree(
    open: &OpenRepo,
    index: &gix::index::State,
    cancel: &CancelToken,
) -> Result<Vec<gix::status::index_worktree::Item>, WorkspaceError> {
    /// Below this many entries, gix's worker threads cost more than they save.
    const PARALLEL_FROM: usize = 500;
    let mut collect = Collect::default();
    open.repo
        .index_worktree_status(
            index,
            None::<&BStr>,
            &mut collect,
            gix::status::plumbing::index_as_worktree::traits::FastEq,
            LazySubmoduleStatus {
                repo: open.repo.clone().into_sync(),
                inner: None,
            },
            &mut gix::progress::Discard,
            cancel.flag(),
            gix::status::index_worktree::Options {
                sorting: None,
                dirwalk_options: None,
                rewrites: None,
                thread_limit: (index.entries().len() < PARALLEL_FROM).then_some(1),
            },
        )
        .map_err(status_error(open, cancel))?;
    Ok(collect.items)
}

/// Collects index ↔ worktree items as gix's own status iterator would produce them.
#[derive(Default)]
struct Collect {
    items: Vec<gix::status::index_worktree::Item>,
}

impl<'index> gix::status::plumbing::index_as_worktree_with_renames::VisitEntry<'index> for Collect {
    type ContentChange = ();
    type SubmoduleStatus = gix::submodule::Status;

    fn visit_entry(
        &mut self,
        entry: gix::status::plumbing::index_as_worktree_with_renames::Entry<
            'index,
            Self::ContentChange,
            Self::SubmoduleStatus,
        >,
    ) {
        self.items.push(entry.into());
    }
}

/// Builds gix's submodule status only when a gitlink is actually checked: constructing it reads
/// `.gitmodules`, and without that file in the worktree gix would load (and hash) the full index.
#[derive(Clone)]
struct LazySubmoduleStatus {
    repo: gix::ThreadSafeRepository,
    inner: Option<gix::status::index_worktree::BuiltinSubmoduleStatus>,
}

impl gix::status::plumbing::index_as_worktree::traits::SubmoduleStatus for LazySubmoduleStatus {
    type Output = gix::submodule::Status;

    fn status(
        &mut self,
        entry: &gix::index::Entry,
        rela_path: &BStr,
    ) -> gix::Result<Option<Self::Output>> {
        let inner = match &mut self.inner {
            Some(inner) => inner,
            None => self
                .inner
                .insert(gix::status::index_worktree::BuiltinSubmoduleStatus::new(
                    self.repo.clone(),
                    gix::status::Submodule::AsConfigured { check_dirty: false },
                )?),
        };
        inner.status(entry, rela_path)
    }
}

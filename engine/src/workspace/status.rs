//! Owns the translation of gix status output into [`DirtyEntry`] values, and the full-worktree
//! status run (`HEAD` ↔ index with rename tracking as configured, index ↔ worktree, every
//! untracked non-ignored file, submodules). Nothing here writes the index: the index refreshes
//! gix collects in memory are dropped with the iterator's outcome.

use std::collections::BTreeMap;

use gix::bstr::{BStr, BString};
use gix::status::plumbing::index_as_worktree::{Change, Conflict, EntryStatus};

use super::cancel::CancelToken;
use super::entry::{ConflictKind, DirtyEntry, StagedChange, SubmoduleChange, WorktreeChange};
use super::error::WorkspaceError;
use super::repo::OpenRepo;

/// Dirty entries by repo-relative path, being assembled from status items.
#[derive(Default)]
pub(crate) struct EntryMap {
    entries: BTreeMap<String, DirtyEntry>,
    /// Sources of detected copies: the rename tracker swallows their own modification.
    copy_sources: Vec<String>,
}

impl EntryMap {
    pub(crate) fn entry(&mut self, path: &BStr) -> &mut DirtyEntry {
        let path = path.to_string();
        self.entries
            .entry(path.clone())
            .or_insert_with(|| DirtyEntry::new(path))
    }

    /// Record one index ↔ worktree item.
    pub(crate) fn apply_index_worktree(&mut self, item: gix::status::index_worktree::Item) {
        use gix::status::index_worktree::{Item, RewriteSource};
        match item {
            Item::Modification {
                rela_path, status, ..
            } => self.apply_entry_status(rela_path.as_ref(), status),
            Item::DirectoryContents { entry, .. } => self.apply_dirwalk_entry(&entry),
            Item::Rewrite {
                source,
                dirwalk_entry,
                ..
            } => {
                // Only produced with index-worktree rename tracking, which we leave off like git;
                // degrade to what git shows: a deletion and an untracked file.
                if let RewriteSource::RewriteFromIndex {
                    source_rela_path,
                    source_status,
                    ..
                } = source
                {
                    self.apply_entry_status(source_rela_path.as_ref(), source_status);
                }
                self.apply_dirwalk_entry(&dirwalk_entry);
            }
        }
    }

    fn apply_dirwalk_entry(&mut self, entry: &gix::dir::Entry) {
        if entry.status == gix::dir::entry::Status::Untracked {
            self.entry(entry.rela_path.as_ref()).worktree = Some(WorktreeChange::Untracked);
        }
    }

    pub(crate) fn apply_entry_status(
        &mut self,
        path: &BStr,
        status: EntryStatus<(), gix::submodule::Status>,
    ) {
        let change = match status {
            EntryStatus::Conflict { summary, .. } => {
                self.entry(path).conflict = Some(conflict_kind(summary));
                return;
            }
            EntryStatus::NeedsUpdate(_) => return,
            EntryStatus::IntentToAdd => WorktreeChange::IntentToAdd,
            EntryStatus::Change(Change::Removed) => WorktreeChange::Deleted,
            EntryStatus::Change(Change::Type { .. }) => WorktreeChange::TypeChanged,
            EntryStatus::Change(Change::Modification { .. }) => WorktreeChange::Modified,
            EntryStatus::Change(Change::SubmoduleModification(status)) => {
                match submodule_change(&status) {
                    Some(change) => WorktreeChange::Submodule(change),
                    None => return,
                }
            }
        };
        self.entry(path).worktree = Some(change);
    }

    /// Record one `HEAD` ↔ index change.
    pub(crate) fn apply_tree_index(&mut self, change: gix::diff::index::Change) {
        use gix::diff::index::ChangeRef;
        match change {
            ChangeRef::Addition { location, .. } => {
                self.entry(location.as_ref()).staged = Some(StagedChange::Added);
            }
            ChangeRef::Deletion { location, .. } => {
                self.entry(location.as_ref()).staged = Some(StagedChange::Deleted);
            }
            ChangeRef::Modification {
                location,
                previous_entry_mode,
                entry_mode,
                ..
            } => {
                self.entry(location.as_ref()).staged = Some(staged_modification(
                    previous_entry_mode.bits(),
                    entry_mode.bits(),
                ));
            }
            ChangeRef::Rewrite {
                source_location,
                location,
                copy,
                ..
            } => {
                let from = source_location.to_string();
                if copy {
                    self.copy_sources.push(from.clone());
                }
                self.entry(location.as_ref()).staged = Some(if copy {
                    StagedChange::Copied { from }
                } else {
                    StagedChange::Renamed { from }
                });
            }
        }
    }

    /// Re-derive the staged state of copy sources, which gix's rewrite tracker consumes when it
    /// pairs them with a copy (git still lists a modified source).
    fn restore_copy_sources(&mut self, head: &gix::index::State, index: &gix::index::State) {
        use gix::index::entry::{Flags, Stage};
        for source in std::mem::take(&mut self.copy_sources) {
            let path = BStr::new(source.as_bytes());
            let staged = match (
                head.entry_by_path(path),
                index
                    .entry_by_path_and_stage(path, Stage::Unconflicted)
                    .filter(|e| !e.flags.contains(Flags::INTENT_TO_ADD)),
            ) {
                (Some(old), Some(new)) if old.id != new.id || old.mode != new.mode => {
                    Some(staged_modification(old.mode.bits(), new.mode.bits()))
                }
                (Some(_), None) => Some(StagedChange::Deleted),
                _ => None,
            };
            if let Some(staged) = staged {
                let entry = self.entry(path);
                if entry.staged.is_none() {
                    entry.staged = Some(staged);
                }
            }
        }
    }

    /// Drop entries without any change and, like git, show unmerged paths only as conflicts.
    pub(crate) fn finish(mut self) -> BTreeMap<String, DirtyEntry> {
        self.entries.retain(|_, entry| entry.is_dirty());
        for entry in self.entries.values_mut() {
            if entry.conflict.is_some() {
                entry.staged = None;
                entry.worktree = None;
            }
        }
        self.entries
    }
}

/// `Modified` unless the object kind (file, symlink, gitlink) changed between the two modes.
pub(crate) fn staged_modification(previous_mode: u32, mode: u32) -> StagedChange {
    const TYPE_MASK: u32 = 0o170000;
    if previous_mode & TYPE_MASK == mode & TYPE_MASK {
        StagedChange::Modified
    } else {
        StagedChange::TypeChanged
    }
}

fn conflict_kind(summary: Conflict) -> ConflictKind {
    match summary {
        Conflict::BothDeleted => ConflictKind::BothDeleted,
        Conflict::AddedByUs => ConflictKind::AddedByUs,
        Conflict::DeletedByThem => ConflictKind::DeletedByThem,
        Conflict::AddedByThem => ConflictKind::AddedByThem,
        Conflict::DeletedByUs => ConflictKind::DeletedByUs,
        Conflict::BothAdded => ConflictKind::BothAdded,
        Conflict::BothModified => ConflictKind::BothModified,
    }
}

fn submodule_change(status: &gix::submodule::Status) -> Option<SubmoduleChange> {
    use gix::status::Item;
    let mut change = SubmoduleChange {
        commit_changed: status.checked_out_head_id != status.index_id,
        ..SubmoduleChange::default()
    };
    for item in status.changes.iter().flatten() {
        match item {
            Item::IndexWorktree(gix::status::index_worktree::Item::DirectoryContents {
                entry,
                ..
            }) if entry.status == gix::dir::entry::Status::Untracked => {
                change.untracked_content = true;
            }
            Item::IndexWorktree(gix::status::index_worktree::Item::DirectoryContents {
                ..
            }) => {}
            Item::IndexWorktree(_) | Item::TreeIndex(_) => change.modified_content = true,
        }
    }
    (change != SubmoduleChange::default()).then_some(change)
}

/// Rename tracking between `HEAD` and the index as git's `status` configures it: `status.renames`
/// (falling back to `diff.renames`, default on; `copies` also tracks copies) and
/// `status.renameLimit` (falling back to `diff.renameLimit`).
///
/// gix's own `AsConfigured` reads `merge.renames` instead of `status.renames`, so this resolves
/// the keys itself.
fn configured_renames(repo: &gix::Repository) -> gix::status::tree_index::TrackRenames {
    use gix::status::tree_index::TrackRenames;
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
        Some(Tracking::Off) => return TrackRenames::Disabled,
        Some(Tracking::RenamesAndCopies) => true,
        Some(Tracking::Renames) | None => false,
    };
    let limit = config
        .integer("status.renameLimit")
        .or_else(|| config.integer("diff.renameLimit"))
        .and_then(|limit| usize::try_from(limit).ok());
    let default = gix::diff::Rewrites::default();
    TrackRenames::Given(gix::diff::Rewrites {
        copies: copies.then(gix::diff::rewrites::Copies::default),
        limit: limit.unwrap_or(default.limit),
        ..default
    })
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
    let cancelled = || WorkspaceError::Cancelled {
        path: open.workdir.clone(),
    };
    // gix reports an interrupted walk as an error of its own: once the token is cancelled, any
    // status error is the cancellation.
    let status_error = || {
        let git = WorkspaceError::git(
            &open.workdir,
            "computing the status",
            "check that `git status` works in this repository",
        );
        move |source| {
            if cancel.is_cancelled() {
                cancelled()
            } else {
                git(source)
            }
        }
    };
    if cancel.is_cancelled() {
        return Err(cancelled());
    }
    let mut iter = open
        .repo
        .status(gix::progress::Discard)
        .map_err(status_error())?
        .untracked_files(gix::status::UntrackedFiles::Files)
        .index_worktree_rewrites(None)
        .index_worktree_submodules(gix::status::Submodule::AsConfigured { check_dirty: false })
        .tree_index_track_renames(configured_renames(&open.repo))
        .should_interrupt_owned(cancel.flag().clone())
        .into_iter(patterns)
        .map_err(status_error())?;
    let mut map = EntryMap::default();
    for item in iter.by_ref() {
        match item.map_err(status_error())? {
            gix::status::Item::IndexWorktree(item) => map.apply_index_worktree(item),
            gix::status::Item::TreeIndex(change) => map.apply_tree_index(change),
        }
    }
    // An iterator that stopped early (interrupted) has no outcome; never report a partial status.
    // The outcome holds the in-memory index refreshes; it is dropped without `write_changes()`.
    let outcome = match iter.into_outcome() {
        Some(outcome) if !cancel.is_cancelled() => outcome,
        _ => return Err(cancelled()),
    };
    if let Some(tree_index) = &outcome.tree_index {
        map.restore_copy_sources(&tree_index.tree_index, &outcome.worktree_index);
    }
    Ok(map.finish())
}

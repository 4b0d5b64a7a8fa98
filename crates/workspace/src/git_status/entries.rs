//! Owns [`EntryMap`], the dirty entries of one status run being assembled from gix's status
//! items (index ↔ worktree, `HEAD` ↔ index, untracked files), shared by the full-worktree run,
//! its `HEAD` ↔ index diff and the path-limited run.

use std::collections::BTreeMap;

use gix::bstr::BStr;
use gix::status::plumbing::index_as_worktree::{Change, Conflict, EntryStatus};

use crate::snapshot::entry::{
    ConflictKind, DirtyEntry, StagedChange, SubmoduleChange, WorktreeChange,
};

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
            self.mark_untracked(entry.rela_path.as_ref());
        }
    }

    /// Record `path` as an untracked (not ignored) path.
    pub(crate) fn mark_untracked(&mut self, path: &BStr) {
        self.entry(path).worktree = Some(WorktreeChange::Untracked);
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
    pub(crate) fn apply_tree_index(&mut self, change: gix::diff::index::ChangeRef<'_, '_>) {
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
    pub(crate) fn restore_copy_sources(
        &mut self,
        head: &gix::index::State,
        index: &gix::index::State,
    ) {
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

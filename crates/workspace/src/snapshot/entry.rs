//! Owns the data model of one dirty path: [`DirtyEntry`] with its staged, worktree and conflict
//! state ([`StagedChange`], [`WorktreeChange`], [`ConflictKind`]) and the observed on-disk
//! [`Content`] that feeds the fingerprint.

pub use pi_native_hooks_base::ContentHash;

/// A change between the `HEAD` tree and the index (`git status` column X).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StagedChange {
    /// The path is in the index but not in `HEAD`.
    Added,
    /// Content or executable bit differs between `HEAD` and the index.
    Modified,
    /// The path is in `HEAD` but not in the index.
    Deleted,
    /// The kind of object changed (e.g. regular file ↔ symlink ↔ submodule).
    TypeChanged,
    /// The path was renamed from `from` (rename detection as configured by `status.renames` /
    /// `diff.renames`).
    Renamed {
        /// Repo-relative path in `HEAD` the entry was renamed from.
        from: String,
    },
    /// The path was copied from `from` (only with `status.renames=copies`).
    Copied {
        /// Repo-relative path in `HEAD` the entry was copied from.
        from: String,
    },
}

/// A change between the index and the worktree (`git status` column Y), or an untracked path.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WorktreeChange {
    /// Content or executable bit differs from the index.
    Modified,
    /// The tracked path is gone from the worktree.
    Deleted,
    /// The kind of file changed (e.g. regular file → symlink).
    TypeChanged,
    /// Added with `git add --intent-to-add`: tracked, but its content is not staged.
    IntentToAdd,
    /// A submodule that is not as recorded in the index.
    Submodule(SubmoduleChange),
    /// Not tracked and not ignored (each untracked file is listed on its own).
    Untracked,
}

/// How a submodule differs from what the superproject's index records (porcelain v2 `S<c><m><u>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct SubmoduleChange {
    /// The submodule's `HEAD` is not the commit recorded in the index.
    pub commit_changed: bool,
    /// The submodule has tracked changes (staged or unstaged).
    pub modified_content: bool,
    /// The submodule has untracked files.
    pub untracked_content: bool,
}

/// The kind of an unmerged path, as in git's `XY` codes for conflicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ConflictKind {
    /// `DD`
    BothDeleted,
    /// `AU`
    AddedByUs,
    /// `UD`
    DeletedByThem,
    /// `UA`
    AddedByThem,
    /// `DU`
    DeletedByUs,
    /// `AA`
    BothAdded,
    /// `UU`
    BothModified,
}

impl ConflictKind {
    /// git's two-letter code for this conflict.
    pub fn code(self) -> &'static str {
        match self {
            ConflictKind::BothDeleted => "DD",
            ConflictKind::AddedByUs => "AU",
            ConflictKind::DeletedByThem => "UD",
            ConflictKind::AddedByThem => "UA",
            ConflictKind::DeletedByUs => "DU",
            ConflictKind::BothAdded => "AA",
            ConflictKind::BothModified => "UU",
        }
    }
}

/// A time stamp of a file, as `stat` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StatTime {
    /// Seconds since the Unix epoch.
    pub secs: i64,
    /// Nanoseconds within the second.
    pub nanos: i64,
}

/// What identifies a file too large to hash: its size, modification and status-change times and
/// inode. Writing the file changes its mtime and ctime, and replacing it changes its inode; the
/// ctime cannot be set back by a user.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileStamp {
    /// Size in bytes.
    pub size: u64,
    /// Last modification of the content (`st_mtime`).
    pub modified: StatTime,
    /// Last change of the content or the inode (`st_ctime`).
    pub changed: StatTime,
    /// `st_ino`.
    pub inode: u64,
}

/// What is on disk at a path when the snapshot was taken.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Content {
    /// Nothing exists at the path.
    Absent,
    /// A regular file with the hash of its bytes (as stored on disk, before any git filter).
    File {
        /// Whether any executable bit is set.
        executable: bool,
        /// Hash of the file's bytes.
        hash: ContentHash,
    },
    /// A regular file larger than
    /// [`MAX_HASHED_BYTES`](crate::MAX_HASHED_BYTES), identified by its metadata
    /// instead of its bytes so that a snapshot never reads more than that per file.
    LargeFile {
        /// Whether any executable bit is set.
        executable: bool,
        /// Size, mtime, ctime and inode.
        stamp: FileStamp,
    },
    /// A symbolic link with the hash of its target.
    Symlink {
        /// Hash of the link target's bytes.
        hash: ContentHash,
    },
    /// A directory holding a git repository (a submodule or nested repository), identified by its
    /// checked-out commit (hex), if it has one, and, for a submodule with modified or untracked
    /// content, by the fingerprint of its own snapshot.
    Repository {
        /// The nested repository's `HEAD` commit, `None` if unborn or unreadable.
        head: Option<String>,
        /// The fingerprint of the submodule's own snapshot when its worktree has changes (so a
        /// second edit inside an already dirty submodule changes the content), else `None`.
        changes: Option<String>,
    },
    /// A plain directory (e.g. a tracked file replaced by a directory).
    Directory,
    /// Something else (fifo, socket, device).
    Other,
}

impl Content {
    /// `true` unless the path is [`Content::Absent`].
    pub fn exists(&self) -> bool {
        !matches!(self, Content::Absent)
    }

    /// `true` for content a linter is asked about as a file: a regular file (hashed or too large
    /// to), a symlink, or a FIFO, socket or device (which the analysis reports as not analyzed).
    pub fn is_file_like(&self) -> bool {
        matches!(
            self,
            Content::File { .. }
                | Content::LargeFile { .. }
                | Content::Symlink { .. }
                | Content::Other
        )
    }
}

/// One path that differs from `HEAD` (staged, in the worktree, untracked or conflicted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirtyEntry {
    /// Repo-relative, `/`-separated path (current location for renames).
    pub path: String,
    /// Change between `HEAD` and the index, if any. Always `None` when `conflict` is set.
    pub staged: Option<StagedChange>,
    /// Change between the index and the worktree (or untracked), if any. Always `None` when
    /// `conflict` is set.
    pub worktree: Option<WorktreeChange>,
    /// Set when the path is unmerged.
    pub conflict: Option<ConflictKind>,
    /// What was on disk at `path` when the snapshot was taken.
    pub content: Content,
}

impl DirtyEntry {
    pub(crate) fn new(path: String) -> Self {
        DirtyEntry {
            path,
            staged: None,
            worktree: None,
            conflict: None,
            content: Content::Absent,
        }
    }

    /// `true` if the path is untracked (not ignored).
    pub fn is_untracked(&self) -> bool {
        matches!(self.worktree, Some(WorktreeChange::Untracked))
    }

    /// `true` if the entry carries any change at all.
    pub(crate) fn is_dirty(&self) -> bool {
        self.staged.is_some() || self.worktree.is_some() || self.conflict.is_some()
    }

    /// The source path of a staged rename or copy.
    pub fn source_path(&self) -> Option<&str> {
        match &self.staged {
            Some(StagedChange::Renamed { from } | StagedChange::Copied { from }) => Some(from),
            _ => None,
        }
    }

    /// git's `XY` code for this entry, as in `git status --porcelain=v2` (`.` for unchanged):
    /// `??` for untracked, the conflict code for unmerged paths, `R.` for a staged rename, …
    ///
    /// A path that is staged as deleted but exists again untracked yields `D?`.
    pub fn xy(&self) -> String {
        if let Some(conflict) = self.conflict {
            return conflict.code().to_owned();
        }
        if self.staged.is_none() && self.is_untracked() {
            return "??".to_owned();
        }
        let x = match &self.staged {
            None => '.',
            Some(StagedChange::Added) => 'A',
            Some(StagedChange::Modified) => 'M',
            Some(StagedChange::Deleted) => 'D',
            Some(StagedChange::TypeChanged) => 'T',
            Some(StagedChange::Renamed { .. }) => 'R',
            Some(StagedChange::Copied { .. }) => 'C',
        };
        let y = match &self.worktree {
            None => '.',
            Some(WorktreeChange::Modified | WorktreeChange::Submodule(_)) => 'M',
            Some(WorktreeChange::Deleted) => 'D',
            Some(WorktreeChange::TypeChanged) => 'T',
            Some(WorktreeChange::IntentToAdd) => 'A',
            Some(WorktreeChange::Untracked) => '?',
        };
        [x, y].iter().collect()
    }
}

//! The owner and mode rules a config root and the directories above it are held to
//! ([`walk::Policy`]), applied to what `fstat` says of an opened descriptor (or `fstatat` of a
//! name), each broken rule named by the [`TrustError`] of where it was found.

use super::error::{Refusal, TrustError, os_error};
use nix::fcntl::AtFlags;
use nix::sys::stat::{FileStat, fstat, fstatat};
use pi_native_hooks_base::safe_open::FileKind;
use pi_native_hooks_base::safe_open::walk::{self, Owner, Policy, Violation, Writers};
use std::ffi::OsStr;
use std::os::fd::BorrowedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// What a directory or file of the config root must be: the user's, written by nobody else.
pub(super) const CONFIG: Policy = Policy {
    owner: Owner::Me,
    writers: Writers::OwnerOnly,
};

/// What a directory above the config root must be: root's or the user's, shared for writing
/// only with the sticky bit (every entry the walk steps into is owner-checked, which is what
/// makes a sticky directory safe to pass through).
pub(super) const ANCESTOR: Policy = Policy {
    owner: Owner::RootOrMe,
    writers: Writers::OwnerOrSticky,
};

/// What a symbolic link above the config root must be: root's or the user's (its mode means
/// nothing).
pub(super) const ANCESTOR_LINK: Policy = Policy {
    owner: Owner::RootOrMe,
    writers: Writers::Anyone,
};

/// What kind of entry a name is, without following a symbolic link.
#[expect(missing_docs, reason = "each variant names its kind")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    File,
    Dir,
    Symlink,
    /// A FIFO, socket or device.
    Other,
}

/// The parts of a `stat` the checks use.
pub(super) struct Facts {
    pub(super) kind: EntryKind,
    pub(super) uid: u32,
    pub(super) mode: u32,
    pub(super) size: u64,
}

impl From<FileKind> for EntryKind {
    fn from(kind: FileKind) -> Self {
        match kind {
            FileKind::Regular => EntryKind::File,
            FileKind::Directory => EntryKind::Dir,
            FileKind::Symlink => EntryKind::Symlink,
            _ => EntryKind::Other,
        }
    }
}

impl From<FileStat> for Facts {
    fn from(stat: FileStat) -> Self {
        let kind = EntryKind::from(FileKind::of(&stat));
        #[allow(clippy::useless_conversion, reason = "mode_t is u16 on some platforms")]
        let mode = u32::from(stat.st_mode) & 0o7777;
        Self {
            kind,
            uid: stat.st_uid,
            mode,
            size: u64::try_from(stat.st_size).unwrap_or(0),
        }
    }
}

/// What `fstat` says of the opened descriptor `fd` of `path`.
pub(super) fn facts_of_fd(path: &Path, fd: BorrowedFd<'_>) -> Result<Facts, Refusal> {
    fstat(fd)
        .map(Facts::from)
        .map_err(|errno| os_error(path, errno))
}

/// What `fstatat` says of `name` in `dir` (`path`), not following a symbolic link.
pub(super) fn facts_of_name(
    dir: BorrowedFd<'_>,
    name: &OsStr,
    path: &Path,
) -> Result<Facts, Refusal> {
    fstatat(dir, name, AtFlags::AT_SYMLINK_NOFOLLOW)
        .map(Facts::from)
        .map_err(|errno| os_error(path, errno))
}

/// Where a checked entry is, which decides the error that names it.
#[derive(Clone, Copy)]
enum Place {
    /// The config root or an entry inside it.
    Root,
    /// A directory or link above the config root.
    Above,
}

/// `facts` checked by `policy`, a violation named as the error of `place`.
fn check_entry(path: &Path, facts: &Facts, policy: Policy, place: Place) -> Result<(), TrustError> {
    policy.check(facts.uid, facts.mode).map_err(|violation| {
        let path = path.to_path_buf();
        match (place, violation) {
            (Place::Root, Violation::Owner { owner, current }) => TrustError::NotOwned {
                path,
                owner,
                current,
            },
            (Place::Above, Violation::Owner { owner, current }) => TrustError::AncestorNotOwned {
                path,
                owner,
                current,
            },
            (Place::Root, Violation::Writable { mode }) => TrustError::Writable { path, mode },
            (Place::Above, Violation::Writable { mode }) => {
                TrustError::AncestorWritable { path, mode }
            }
        }
    })
}

/// A file or directory of the config root: owned by the user, not group- or world-writable.
pub(super) fn check_owned(path: &Path, facts: &Facts) -> Result<(), TrustError> {
    check_entry(path, facts, CONFIG, Place::Root)
}

/// What is above the config root, checked by `policy`.
fn check_above(path: &Path, facts: &Facts, policy: Policy) -> Result<(), TrustError> {
    check_entry(path, facts, policy, Place::Above)
}

/// A directory or link above the config root: owned by root or the user.
pub(super) fn check_ancestor_owner(path: &Path, facts: &Facts) -> Result<(), TrustError> {
    check_above(path, facts, ANCESTOR_LINK)
}

/// A directory above the config root, as [`ANCESTOR`] says.
pub(super) fn check_ancestor(path: &Path, facts: &Facts) -> Result<(), TrustError> {
    if facts.kind != EntryKind::Dir {
        return Err(TrustError::WrongKind {
            path: path.to_path_buf(),
            expected: "directory",
        });
    }
    check_above(path, facts, ANCESTOR)
}

/// A name for `openat`: one component, nothing that walks elsewhere.
pub(super) fn check_single_name(name: &OsStr, path: &Path) -> Result<(), TrustError> {
    if !walk::is_name(name.as_bytes()) {
        return Err(TrustError::Io {
            path: path.to_path_buf(),
            error: "not a single file name".to_owned(),
        });
    }
    Ok(())
}

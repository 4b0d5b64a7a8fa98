//! Walks down directories one descriptor at a time: opening a directory relative to its parent
//! without following a symlink ([`open_dir_at`]), listing one from its descriptor ([`list`]), a
//! walk down a `/`-separated path below a root that refuses every symlink and reuses the
//! directories it already holds ([`Descent`]), and the owner and mode rules a walk can require of
//! what it steps into ([`Policy`]).
//!
//! A directory is opened with `O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC` (with `O_RDONLY |
//! O_NONBLOCK`, or `O_PATH` to only walk through it) before it is looked at: a symlink, a FIFO or
//! a device fails to open without any effect, and only then does an `lstat` say what the name
//! was. A name swapped after the open changes nothing: the descriptor is what the walk goes on
//! from.

use std::ffi::{OsStr, OsString};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use nix::dir::Dir;
use nix::errno::Errno;
use nix::fcntl::{AtFlags, OFlag};
use nix::sys::stat::{FileStat, Mode};

use super::file::FileKind;

/// What a directory is opened for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Listing it and opening what is in it.
    Read,
    /// Only walking through it: `O_PATH` where the platform has it, so no read permission is
    /// needed.
    Search,
}

impl Access {
    fn flags(self) -> OFlag {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        let search = OFlag::O_PATH;
        #[cfg(not(any(target_os = "linux", target_os = "android")))]
        let search = OFlag::O_RDONLY | OFlag::O_NONBLOCK;
        let access = match self {
            Access::Read => OFlag::O_RDONLY | OFlag::O_NONBLOCK,
            Access::Search => search,
        };
        access | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC
    }
}

/// Why a directory was not opened.
#[derive(Clone, Debug, thiserror::Error)]
pub enum NotOpened {
    /// The name is empty, `.` or `..`, or holds a `/`: it would walk somewhere else.
    #[error("not a single file name")]
    NotAName,
    /// The name is a symbolic link; its `lstat`.
    #[error("is a symbolic link")]
    Symlink(Box<FileStat>),
    /// The name is neither a directory nor a symbolic link.
    #[error("not a directory ({0})")]
    NotDirectory(FileKind),
    /// The operating system refused the open or the `lstat`.
    #[error(transparent)]
    Os(Errno),
}

/// Opens the directory `path`, following symlinks: the caller trusts the path itself, as the
/// root of a walk.
pub fn open_dir(path: &Path, access: Access) -> nix::Result<OwnedFd> {
    nix::fcntl::open(path, access.flags(), Mode::empty())
}

/// Opens the directory `name` (one component) of `dir`, never through a symlink.
///
/// When the open fails, an `lstat` of `name` says why: a symlink, another kind of file, or (when
/// it is a directory after all, or the `lstat` fails too) the operating system's error, the
/// `lstat`'s when it failed.
pub fn open_dir_at(
    dir: BorrowedFd<'_>,
    name: &OsStr,
    access: Access,
) -> Result<OwnedFd, NotOpened> {
    if !is_name(name.as_bytes()) {
        return Err(NotOpened::NotAName);
    }
    let flags = access.flags() | OFlag::O_NOFOLLOW;
    nix::fcntl::openat(dir, name, flags, Mode::empty()).map_err(|errno| {
        match nix::sys::stat::fstatat(dir, name, AtFlags::AT_SYMLINK_NOFOLLOW) {
            Ok(lstat) => match FileKind::of(&lstat) {
                FileKind::Symlink => NotOpened::Symlink(Box::new(lstat)),
                FileKind::Directory => NotOpened::Os(errno),
                kind => NotOpened::NotDirectory(kind),
            },
            Err(lstat_errno) => NotOpened::Os(lstat_errno),
        }
    })
}

/// `name` names an entry of a directory: not empty, `.` or `..`, and without a `/`.
pub fn is_name(name: &[u8]) -> bool {
    !matches!(name, b"" | b"." | b"..") && !name.contains(&b'/')
}

/// The directories down to a `/`-separated path below a root, opened one component at a time
/// with [`open_dir_at`] (never through a symlink). The directories leading to the last one
/// opened are kept, so a walk over sorted paths reopens only what changed.
#[derive(Debug)]
pub struct Descent<'a> {
    root: BorrowedFd<'a>,
    /// The root-relative path of the deepest open directory.
    current: Vec<u8>,
    /// For each open directory from the root down: where its path ends in `current`, and its
    /// descriptor.
    open: Vec<(usize, OwnedFd)>,
    /// The last directory that could not be opened and why, so its other entries do not retry.
    failed: Option<(Vec<u8>, NotOpened)>,
}

impl<'a> Descent<'a> {
    /// A walk below `root`, holding nothing open yet.
    pub fn new(root: BorrowedFd<'a>) -> Self {
        Descent {
            root,
            current: Vec::new(),
            open: Vec::new(),
            failed: None,
        }
    }

    /// The directory at the root-relative `dir` (`""` is the root), opened for reading.
    pub fn open(&mut self, dir: &[u8]) -> Result<BorrowedFd<'_>, NotOpened> {
        if dir.is_empty() {
            return Ok(self.root);
        }
        if dir != self.current.as_slice() || self.open.is_empty() {
            if let Some((failed, why)) = &self.failed
                && failed.as_slice() == dir
            {
                return Err(why.clone());
            }
            self.descend_to(dir)?;
        }
        self.open
            .last()
            .map(|(_, fd)| fd.as_fd())
            .ok_or(NotOpened::NotAName)
    }

    /// Keeps the open ancestors of `dir` and opens the rest of its components.
    fn descend_to(&mut self, dir: &[u8]) -> Result<(), NotOpened> {
        while let Some(&(end, _)) = self.open.last() {
            let is_ancestor = dir.get(..end) == self.current.get(..end)
                && matches!(dir.get(end), None | Some(b'/'));
            if is_ancestor {
                break;
            }
            self.open.pop();
        }
        let kept = self.open.last().map_or(0, |(end, _)| *end);
        self.current.truncate(kept);
        let rest = dir.get(kept..).unwrap_or_default();
        let rest = rest.strip_prefix(b"/").unwrap_or(rest);
        if rest.is_empty() {
            return Ok(());
        }
        for component in rest.split(|b| *b == b'/') {
            let parent = self.open.last().map_or(self.root, |(_, fd)| fd.as_fd());
            let fd = match open_dir_at(parent, OsStr::from_bytes(component), Access::Read) {
                Ok(fd) => fd,
                Err(why) => {
                    let end = self.open.last().map_or(0, |(end, _)| *end);
                    self.current.truncate(end);
                    self.failed = Some((dir.to_vec(), why.clone()));
                    return Err(why);
                }
            };
            if !self.current.is_empty() {
                self.current.push(b'/');
            }
            self.current.extend_from_slice(component);
            self.open.push((self.current.len(), fd));
        }
        Ok(())
    }
}

/// One entry of a directory, as [`list`] found it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listed {
    /// The raw name.
    pub name: OsString,
    /// What its `lstat` said it was (a symlink is not followed), or `None` when the `lstat`
    /// failed: opening it will say why.
    pub kind: Option<FileKind>,
}

/// Why a directory was not listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotListed {
    /// It holds more entries than the limit given.
    #[error("more than {0} entries")]
    TooMany(usize),
    /// The operating system refused to list it.
    #[error(transparent)]
    Os(Errno),
}

/// The entries of the directory `dir` (without `.` and `..`), sorted by name bytes, listed from
/// the descriptor itself. An entry removed since it was listed is left out; more than `limit`
/// entries is an error.
pub fn list(dir: BorrowedFd<'_>, limit: usize) -> Result<Vec<Listed>, NotListed> {
    let mut listing = Dir::openat(
        dir,
        ".",
        OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC,
        Mode::empty(),
    )
    .map_err(NotListed::Os)?;
    let mut entries = Vec::new();
    for entry in listing.iter() {
        let entry = entry.map_err(NotListed::Os)?;
        let name = OsStr::from_bytes(entry.file_name().to_bytes());
        if name == "." || name == ".." {
            continue;
        }
        if entries.len() == limit {
            return Err(NotListed::TooMany(limit));
        }
        let kind = match nix::sys::stat::fstatat(dir, name, AtFlags::AT_SYMLINK_NOFOLLOW) {
            Ok(lstat) => Some(FileKind::of(&lstat)),
            Err(Errno::ENOENT) => continue,
            Err(_) => None,
        };
        entries.push(Listed {
            name: name.to_os_string(),
            kind,
        });
    }
    entries.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
    Ok(entries)
}

/// Whose an entry a walk steps into may be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    /// Any user's.
    Anyone,
    /// Root's or the current user's.
    RootOrMe,
    /// The current user's.
    Me,
}

/// Who besides its owner may write an entry a walk steps into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Writers {
    /// Anyone the mode allows.
    Anyone,
    /// Nobody: no group or world write bit.
    OwnerOnly,
    /// Group or others only with the sticky bit, which keeps them from renaming or removing
    /// entries they do not own (as in `/tmp`).
    OwnerOrSticky,
}

/// The owner and mode a walk requires of each entry it steps into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Policy {
    /// Whose the entry may be.
    pub owner: Owner,
    /// Who else may write it.
    pub writers: Writers,
}

/// How an entry breaks a [`Policy`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Violation {
    /// Owned by a user the policy does not allow.
    #[error("owned by uid {owner}, not allowed for uid {current}")]
    Owner {
        /// The entry's `st_uid`.
        owner: u32,
        /// The current (effective) uid.
        current: u32,
    },
    /// Writable by group or others where the policy does not allow it.
    #[error("mode {mode:04o} lets group or others write it")]
    Writable {
        /// The permission bits (`0o7777`).
        mode: u32,
    },
}

impl Policy {
    /// Checks an entry owned by `uid` with the permission bits `mode`: the owner first, then
    /// the mode.
    pub fn check(self, uid: u32, mode: u32) -> Result<(), Violation> {
        let current = current_uid();
        let owner_ok = match self.owner {
            Owner::Anyone => true,
            Owner::RootOrMe => uid == 0 || uid == current,
            Owner::Me => uid == current,
        };
        if !owner_ok {
            return Err(Violation::Owner {
                owner: uid,
                current,
            });
        }
        let shared = mode & 0o022 != 0;
        let writers_ok = match self.writers {
            Writers::Anyone => true,
            Writers::OwnerOnly => !shared,
            Writers::OwnerOrSticky => !shared || mode & 0o1000 != 0,
        };
        if !writers_ok {
            return Err(Violation::Writable { mode });
        }
        Ok(())
    }
}

/// The uid owner checks are made against: the effective one.
pub fn current_uid() -> u32 {
    nix::unistd::geteuid().as_raw()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Walking back and forth between directories reopens only what changed, and a directory
    /// that is a symlink, a file or missing is not opened.
    #[test]
    fn directory_stack_follows_sorted_paths() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        for sub in ["a/b/c", "a/bc", "ab"] {
            std::fs::create_dir_all(dir.path().join(sub))?;
        }
        std::fs::write(dir.path().join("a/file"), "")?;
        std::os::unix::fs::symlink("a", dir.path().join("link"))?;
        let root = open_dir(dir.path(), Access::Read)?;
        let mut dirs = Descent::new(root.as_fd());
        let is_dir = |fd: Option<BorrowedFd<'_>>| {
            fd.and_then(|fd| nix::sys::stat::fstat(fd).ok())
                .is_some_and(|st| FileKind::of(&st) == FileKind::Directory)
        };
        for (path, opens) in [
            (&b"a/b/c"[..], true),
            (b"a/b", true),
            (b"a/bc", true),
            (b"a/b/c", true),
            (b"a/file", false),
            (b"a/file", false),
            (b"a/b", true),
            (b"ab", true),
            (b"link", false),
            (b"link/b", false),
            (b"missing/x", false),
            (b"a/../a", false),
            (b"a", true),
        ] {
            let shown = String::from_utf8_lossy(path);
            let fd = dirs.open(path).ok();
            assert_eq!(fd.is_some(), opens, "{shown}");
            if opens {
                assert!(is_dir(fd), "{shown}");
                assert_eq!(dirs.current, path, "{shown}");
            }
        }
        Ok(())
    }

    #[test]
    fn only_normal_components_are_opened() {
        assert!(is_name(b"src"));
        for odd in [&b""[..], b".", b"..", b"a/b"] {
            assert!(!is_name(odd));
        }
    }
}

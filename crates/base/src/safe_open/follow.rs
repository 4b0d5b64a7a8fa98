//! The walk that follows symbolic links itself, one directory descriptor at a time, so that its
//! caller judges every link and every directory before going on: [`Follow`] holds where the walk
//! is (the directories it stepped into, from its root down), what is left to walk, and how many
//! links it followed. Its caller looks at each name in turn, steps into it
//! ([`Follow::enter`]) or follows it ([`Follow::follow`]); `..` is applied to the directories
//! stepped into, never looked up, so it cannot walk past a link's own directory or out of the
//! root unnoticed.
//!
//! [`Beneath`](super::Beneath) walks below a repository's root with it, and the trust checks of
//! the configuration walk from `/` with it (checking every directory and link with a
//! [`Policy`](super::walk::Policy)).

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use nix::errno::Errno;

/// At most this many symlinks are followed while resolving one path (Linux's own limit).
pub const MAX_SYMLINK_HOPS: usize = 40;

/// What `..` does at the root of a walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AboveRoot {
    /// The walk leaves its root: [`Follow::next_name`] says so.
    Outside,
    /// Nothing: the root is its own parent, as `/` is.
    Stay,
}

/// Why a walk stopped while going on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Stopped {
    /// `..` or a link's absolute target leads outside the root.
    #[error("leads outside the root")]
    Outside,
    /// More than [`MAX_SYMLINK_HOPS`] links were followed.
    #[error("more than {MAX_SYMLINK_HOPS} symbolic links")]
    TooManyLinks,
    /// Reading a link failed.
    #[error(transparent)]
    Os(Errno),
}

/// A walk down a path from a root directory, following symlinks (see the module documentation).
#[derive(Debug)]
pub struct Follow<'r> {
    root: BorrowedFd<'r>,
    root_path: PathBuf,
    /// The directories stepped into below the root, with the paths they are reported under.
    dirs: Vec<(PathBuf, OwnedFd)>,
    pending: VecDeque<OsString>,
    hops: usize,
    via_symlink: bool,
    above_root: AboveRoot,
}

impl<'r> Follow<'r> {
    /// A walk of `path` (`/`-separated; a leading `/` means nothing) from `root`, whose path
    /// (for messages) is `root_path`.
    pub fn new(
        root: BorrowedFd<'r>,
        root_path: &Path,
        path: &OsStr,
        above_root: AboveRoot,
    ) -> Self {
        Self {
            root,
            root_path: root_path.to_owned(),
            dirs: Vec::new(),
            pending: components(path),
            hops: 0,
            via_symlink: false,
            above_root,
        }
    }

    /// The next name to look at in [`dir`](Self::dir), once every `..` before it is applied;
    /// `None` when the whole path is walked.
    pub fn next_name(&mut self) -> Option<Result<OsString, Stopped>> {
        while let Some(name) = self.pending.pop_front() {
            if name != ".." {
                return Some(Ok(name));
            }
            if self.dirs.pop().is_none() && self.above_root == AboveRoot::Outside {
                return Some(Err(Stopped::Outside));
            }
        }
        None
    }

    /// Whether the name [`next_name`](Self::next_name) gave is the last one (for now: it may be a link).
    pub fn is_last(&self) -> bool {
        self.pending.is_empty()
    }

    /// Whether a link was followed so far.
    pub fn via_symlink(&self) -> bool {
        self.via_symlink
    }

    /// The directory the walk is in.
    pub fn dir(&self) -> BorrowedFd<'_> {
        self.dirs.last().map_or(self.root, |(_, fd)| fd.as_fd())
    }

    /// The path the directory the walk is in is reported under.
    pub fn path(&self) -> &Path {
        self.dirs.last().map_or(&self.root_path, |(path, _)| path)
    }

    /// Steps into `fd`, the directory `name` of [`dir`](Self::dir).
    pub fn enter(&mut self, name: &OsStr, fd: OwnedFd) {
        let path = self.path().join(name);
        self.dirs.push((path, fd));
    }

    /// Follows the symlink `name` of [`dir`](Self::dir): its target is walked next, from the
    /// root when it is absolute. `inside` gives an absolute target's path relative to the root,
    /// or `None` when it is outside.
    pub fn follow(
        &mut self,
        name: &OsStr,
        inside: impl FnOnce(&Path) -> Option<PathBuf>,
    ) -> Result<(), Stopped> {
        self.hops += 1;
        if self.hops > MAX_SYMLINK_HOPS {
            return Err(Stopped::TooManyLinks);
        }
        self.via_symlink = true;
        let target = nix::fcntl::readlinkat(self.dir(), name).map_err(Stopped::Os)?;
        let mut next = if target.as_bytes().first() == Some(&b'/') {
            let inside = inside(Path::new(&target)).ok_or(Stopped::Outside)?;
            self.dirs.clear();
            components(inside.as_os_str())
        } else {
            components(&target)
        };
        next.extend(self.pending.drain(..));
        self.pending = next;
        Ok(())
    }

    /// The directory the walk is in and its path, or `None` when that is the root.
    pub fn into_dir(mut self) -> Option<(PathBuf, OwnedFd)> {
        self.dirs.pop()
    }
}

/// The components of a `/`-separated path, without empty and `.` components.
fn components(path: &OsStr) -> VecDeque<OsString> {
    path.as_bytes()
        .split(|b| *b == b'/')
        .filter(|part| !matches!(*part, b"" | b"."))
        .map(|part| OsStr::from_bytes(part).to_owned())
        .collect()
}

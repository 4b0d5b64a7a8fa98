//! A directory of a config root ([`TrustedDir`]), held open once checked: its children are opened,
//! listed, read and replaced relative to its descriptor, never by path.

use super::ancestors::{split_path, walk_ancestors};
use super::checks::{EntryKind, check_owned, check_single_name, facts_of_fd, facts_of_name};
use super::error::{Refusal, TrustError, escape_name, io_error, os_error, refused_dir};
use super::file::{TrustedFile, open_config_file};
use super::limits::MAX_DIR_ENTRIES;
use nix::sys::stat::Mode;
use pi_native_hooks_base::safe_open::atomic::{Replacement, replace_at};
use pi_native_hooks_base::safe_open::walk::{self, Access, NotListed, open_dir, open_dir_at};
use std::ffi::{OsStr, OsString};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Component, Path, PathBuf};

/// Opens the directory `name` of `dir` as a directory of the config root.
fn open_config_dir(dir: BorrowedFd<'_>, name: &OsStr, path: &Path) -> Result<OwnedFd, Refusal> {
    let fd = open_dir_at(dir, name, Access::Read).map_err(|why| refused_dir(path, &why))?;
    check_owned(path, &facts_of_fd(path, fd.as_fd())?)?;
    Ok(fd)
}

/// A directory of the config root that passed the trust checks (and all of its ancestors did),
/// held open: everything below it is opened, listed and read relative to this descriptor.
#[derive(Debug)]
pub struct TrustedDir {
    path: PathBuf,
    fd: OwnedFd,
}

/// One entry of a [`TrustedDir`], as listed (the kind is not followed through symlinks).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    /// The raw name.
    pub name: OsString,
    /// What the name was when listed; opening it checks again.
    pub kind: EntryKind,
}

impl DirEntry {
    /// The name as UTF-8, or the [`TrustError::UnreadableName`] that reports it.
    pub fn utf8_name(&self, dir: &TrustedDir) -> Result<&str, TrustError> {
        self.name
            .to_str()
            .ok_or_else(|| TrustError::UnreadableName {
                dir: dir.path.clone(),
                name: escape_name(&self.name),
            })
    }
}

impl TrustedDir {
    fn open_root_inner(path: &Path) -> Result<Self, Refusal> {
        let (parent, name) = split_path(path)?;
        let parent = walk_ancestors(&parent)?;
        let fd = if let Some(name) = name {
            open_config_dir(parent.fd.as_fd(), &name, path)?
        } else {
            // The config root is `/` itself: it gets the checks of a config directory.
            let facts = facts_of_fd(path, parent.fd.as_fd())?;
            check_owned(path, &facts)?;
            open_dir(Path::new("/"), Access::Read).map_err(|errno| os_error(path, errno))?
        };
        Ok(Self {
            path: path.to_path_buf(),
            fd,
        })
    }

    /// Opens the config root `path`: every ancestor is checked on the way down from `/`, then
    /// the root itself (owned by you, not group- or world-writable, not a symlink).
    pub fn open_root(path: &Path) -> Result<Self, TrustError> {
        Self::open_root_inner(path).map_err(Refusal::into_error)
    }

    /// Like [`open_root`](Self::open_root), but `None` when the root (or a directory above it)
    /// does not exist.
    pub fn open_root_if_exists(path: &Path) -> Result<Option<Self>, TrustError> {
        Refusal::missing_is_none(Self::open_root_inner(path))
    }

    /// The path this directory is reported under.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Opens the child directory `name` (one component) relative to this directory.
    pub fn open_dir(&self, name: &OsStr) -> Result<Self, TrustError> {
        self.open_dir_inner(name).map_err(Refusal::into_error)
    }

    /// Like [`open_dir`](Self::open_dir), but `None` when `name` does not exist.
    pub fn open_dir_if_exists(&self, name: &OsStr) -> Result<Option<Self>, TrustError> {
        Refusal::missing_is_none(self.open_dir_inner(name))
    }

    fn open_dir_inner(&self, name: &OsStr) -> Result<Self, Refusal> {
        let path = self.path.join(name);
        let fd = open_config_dir(self.fd.as_fd(), name, &path)?;
        Ok(Self { path, fd })
    }

    /// Opens a relative directory path inside this one, one checked component at a time. The
    /// path may contain only names (no `/` at the start, no `.`/`..` that walk elsewhere).
    pub(crate) fn open_relative_dir(&self, relative: &Path) -> Result<Self, TrustError> {
        let mut dir: Option<Self> = None;
        for component in relative.components() {
            let name = match component {
                Component::Normal(name) => name,
                Component::CurDir => continue,
                Component::RootDir | Component::ParentDir | Component::Prefix(_) => {
                    return Err(TrustError::Io {
                        path: self.path.join(relative),
                        error: "not a path inside the config root".to_owned(),
                    });
                }
            };
            let next = dir.as_ref().unwrap_or(self).open_dir(name)?;
            dir = Some(next);
        }
        match dir {
            Some(dir) => Ok(dir),
            None => self.try_clone(),
        }
    }

    fn try_clone(&self) -> Result<Self, TrustError> {
        let fd = self
            .fd
            .try_clone()
            .map_err(|error| io_error(&self.path, &error))?;
        Ok(Self {
            path: self.path.clone(),
            fd,
        })
    }

    /// Opens the regular file `name` (one component) relative to this directory.
    pub fn open_file(&self, name: &OsStr) -> Result<TrustedFile, TrustError> {
        open_config_file(self.fd.as_fd(), name, &self.path.join(name)).map_err(Refusal::into_error)
    }

    /// Opens, checks and reads the file `name` as UTF-8.
    pub fn read_file(&self, name: &OsStr) -> Result<String, TrustError> {
        self.open_file(name)?.read_to_string()
    }

    /// Whether `name` exists (as anything, not following a symlink).
    pub fn contains(&self, name: &OsStr) -> Result<bool, TrustError> {
        let path = self.path.join(name);
        check_single_name(name, &path)?;
        match facts_of_name(self.fd.as_fd(), name, &path) {
            Ok(_) => Ok(true),
            Err(Refusal::Missing(_)) => Ok(false),
            Err(Refusal::Refused(error)) => Err(error),
        }
    }

    /// The entries of this directory (without `.` and `..`), sorted by name bytes, listed from
    /// the checked descriptor. At most [`MAX_DIR_ENTRIES`].
    pub fn entries(&self) -> Result<Vec<DirEntry>, TrustError> {
        let listed = walk::list(self.fd.as_fd(), MAX_DIR_ENTRIES).map_err(|why| match why {
            NotListed::TooMany(limit) => TrustError::TooManyEntries {
                path: self.path.clone(),
                limit,
            },
            NotListed::Os(errno) => os_error(&self.path, errno).into_error(),
        })?;
        Ok(listed
            .into_iter()
            .map(|entry| DirEntry {
                name: entry.name,
                // One that could not be looked at: opening it will report why.
                kind: entry.kind.map_or(EntryKind::Other, EntryKind::from),
            })
            .collect())
    }

    /// Replaces the file `name` with `text`, mode 0600, relative to this directory, by the atomic
    /// write (a temporary file created exclusively beside it, never through a symlink, renamed
    /// over `name`).
    pub fn write_private(&self, name: &OsStr, text: &[u8]) -> Result<(), TrustError> {
        let path = self.path.join(name);
        check_single_name(name, &path)?;
        replace_at(
            self.fd.as_fd(),
            name,
            text,
            Replacement {
                mode: Mode::S_IRUSR | Mode::S_IWUSR,
                owner: None,
            },
            |error| io_error(&path, &error),
            || Ok(()),
        )
    }
}

/// Checks a directory as a config root: every ancestor (owned by root or you, not writable by
/// others unless sticky) and the directory itself (owned by you, not group- or world-writable,
/// not a symlink).
pub fn check_dir(path: &Path) -> Result<(), TrustError> {
    TrustedDir::open_root(path).map(drop)
}

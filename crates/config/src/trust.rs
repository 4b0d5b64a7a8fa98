//! Trust checks over the whole path of the config root, and reads that cannot be redirected.
//!
//! The root is reached by walking down from `/`, one directory descriptor at a time. Every
//! directory above the root (an *ancestor*) must be owned by root or the current user and must
//! not be writable by group or others, unless it has the sticky bit (like `/tmp`): there, other
//! users may create entries but cannot rename or remove ours, and the walk requires the entry it
//! steps into to be owned by root or the user. A symbolic link among the ancestors (`/tmp` or
//! `/var` on macOS, `/home` on some systems, a dotfile manager's `~/.config`) is resolved: the
//! link must be owned by root or the user, it sits in a directory that passed these checks, and
//! its target is walked with the same checks, so nobody else can have placed or redirected it.
//!
//! The root itself and everything below it must be owned by the current user, not group- or
//! world-writable, and never a symbolic link. Below the root nothing is opened by path: each
//! directory and file is opened relative to its already-checked parent descriptor (`openat` with
//! `O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC`), checked with `fstat` on the opened descriptor, listed
//! and read from that same descriptor. Swapping a path for a symlink after the check gains
//! nothing: the swapped name is either refused or never looked at again.
//!
//! The walk, the opens, the listing and the atomic write are `safe_open`'s (the walk from `/` is
//! its `follow::Follow`); this module owns the policies ([`walk::Policy`]) the config root and its
//! ancestors are held to, and the errors that name what broke them.

use nix::errno::Errno;
use nix::fcntl::AtFlags;
use nix::sys::stat::{FileStat, Mode, fstat, fstatat};
use pi_native_hooks_base::safe_open::atomic::{Replacement, replace_at};
use pi_native_hooks_base::safe_open::follow::{self, AboveRoot, Follow, Stopped};
use pi_native_hooks_base::safe_open::walk::{
    self, Access, NotListed, NotOpened, Owner, Policy, Violation, Writers, open_dir, open_dir_at,
};
use pi_native_hooks_base::safe_open::{FileKind, Opened, lexical, open_at, read_at_most};
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

/// The largest configuration file read, in bytes.
pub(crate) const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// The most entries one configuration directory may list.
pub(crate) const MAX_DIR_ENTRIES: usize = 10_000;

/// The most symbolic links resolved among the ancestors of one path (Linux's own limit).
pub const MAX_SYMLINK_HOPS: usize = follow::MAX_SYMLINK_HOPS;

/// Why a configuration path was not trusted.
#[expect(missing_docs, reason = "variant fields name what they hold")]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TrustError {
    /// The path is a symbolic link.
    #[error("{path}: is a symbolic link; replace it with a regular file or directory you own")]
    Symlink { path: PathBuf },
    /// Owned by another user.
    #[error("{path}: owned by uid {owner}, not by you (uid {current}); `chown` it to yourself")]
    NotOwned {
        path: PathBuf,
        /// The owner's uid.
        owner: u32,
        /// The current uid.
        current: u32,
    },
    /// Writable by group or others.
    #[error("{path}: mode {mode:04o} lets group or others write it; run `chmod go-w` on it")]
    Writable { path: PathBuf, mode: u32 },
    /// A directory (or symbolic link) above the config root is owned by neither root nor the
    /// current user, so its owner could replace the config.
    #[error(
        "{path}: a directory above the config root, owned by uid {owner} (neither root nor you, uid {current}), who could swap the config below it; move the config root or have root or you own this directory"
    )]
    AncestorNotOwned {
        /// The ancestor, as resolved.
        path: PathBuf,
        /// The owner's uid.
        owner: u32,
        /// The current uid.
        current: u32,
    },
    /// A directory above the config root is writable by group or others without the sticky bit,
    /// so they could rename what is below it and put their own config in its place.
    #[error(
        "{path}: a directory above the config root with mode {mode:04o}, so group or others can replace what is below it; run `chmod go-w` on it (or `chmod +t` if it must stay shared), or move the config root"
    )]
    AncestorWritable {
        /// The ancestor, as resolved.
        path: PathBuf,
        mode: u32,
    },
    /// More than [`MAX_SYMLINK_HOPS`] symbolic links among the ancestors.
    #[error(
        "{path}: more than {MAX_SYMLINK_HOPS} symbolic links above the config root (a loop?); give the config root's real path"
    )]
    SymlinkLoop {
        /// The link where the walk stopped.
        path: PathBuf,
    },
    /// A directory entry whose name is not valid UTF-8: it cannot be judged or named reliably.
    #[error(
        "{}/{name}: the file name is not valid UTF-8, so it was not loaded; rename it",
        dir.display()
    )]
    UnreadableName {
        /// The directory holding the entry.
        dir: PathBuf,
        /// The name, its non-ASCII and control bytes escaped (`\xff`).
        name: String,
    },
    /// A directory lists more than [`MAX_DIR_ENTRIES`] entries.
    #[error(
        "{path}: more than {limit} entries in one configuration directory; remove what is not configuration"
    )]
    TooManyEntries {
        path: PathBuf,
        /// The most entries a configuration directory may have.
        limit: usize,
    },
    /// Not the expected kind of file.
    #[error("{path}: expected a {expected}")]
    WrongKind {
        path: PathBuf,
        /// `regular file` or `directory`.
        expected: &'static str,
    },
    /// Larger than [`MAX_FILE_BYTES`].
    #[error("{path}: {bytes} bytes is more than the {limit} bytes a configuration file may have")]
    TooLarge {
        path: PathBuf,
        bytes: u64,
        /// The most bytes a configuration file may have ([`MAX_FILE_BYTES`]).
        limit: u64,
    },
    /// The file could not be opened or read.
    #[error("{path}: {error}")]
    Io {
        path: PathBuf,
        /// The operating system's message.
        error: String,
    },
}

/// A refusal inside this module: `Missing` lets callers tell "absent" from "refused".
enum Refusal {
    Missing(TrustError),
    Refused(TrustError),
}

impl From<TrustError> for Refusal {
    fn from(error: TrustError) -> Self {
        Self::Refused(error)
    }
}

impl Refusal {
    fn into_error(self) -> TrustError {
        match self {
            Self::Missing(error) | Self::Refused(error) => error,
        }
    }

    /// `None` when the path does not exist, the refusal otherwise.
    fn missing_is_none<T>(result: Result<T, Self>) -> Result<Option<T>, TrustError> {
        match result {
            Ok(value) => Ok(Some(value)),
            Err(Self::Missing(_)) => Ok(None),
            Err(Self::Refused(error)) => Err(error),
        }
    }
}

/// What a directory or file of the config root must be: the user's, written by nobody else.
const CONFIG: Policy = Policy {
    owner: Owner::Me,
    writers: Writers::OwnerOnly,
};

/// What a directory above the config root must be: root's or the user's, shared for writing
/// only with the sticky bit (every entry the walk steps into is owner-checked, which is what
/// makes a sticky directory safe to pass through).
const ANCESTOR: Policy = Policy {
    owner: Owner::RootOrMe,
    writers: Writers::OwnerOrSticky,
};

/// What a symbolic link above the config root must be: root's or the user's (its mode means
/// nothing).
const ANCESTOR_LINK: Policy = Policy {
    owner: Owner::RootOrMe,
    writers: Writers::Anyone,
};

fn io_error(path: &Path, error: &std::io::Error) -> TrustError {
    TrustError::Io {
        path: path.to_path_buf(),
        error: error.to_string(),
    }
}

/// An operating system error about `path`; a missing path is told apart.
fn open_failed(path: &Path, error: &std::io::Error) -> Refusal {
    let refusal = io_error(path, error);
    if error.kind() == std::io::ErrorKind::NotFound {
        Refusal::Missing(refusal)
    } else {
        Refusal::Refused(refusal)
    }
}

fn os_error(path: &Path, errno: Errno) -> Refusal {
    open_failed(path, &std::io::Error::from(errno))
}

/// `name` with its non-ASCII and control bytes escaped, for messages about unreadable names.
pub fn escape_name(name: &OsStr) -> String {
    name.as_bytes().escape_ascii().to_string()
}

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
struct Facts {
    kind: EntryKind,
    uid: u32,
    mode: u32,
    size: u64,
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

fn facts_of_fd(path: &Path, fd: BorrowedFd<'_>) -> Result<Facts, Refusal> {
    fstat(fd)
        .map(Facts::from)
        .map_err(|errno| os_error(path, errno))
}

fn facts_of_name(dir: BorrowedFd<'_>, name: &OsStr, path: &Path) -> Result<Facts, Refusal> {
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
fn check_owned(path: &Path, facts: &Facts) -> Result<(), TrustError> {
    check_entry(path, facts, CONFIG, Place::Root)
}

/// What is above the config root, checked by `policy`.
fn check_above(path: &Path, facts: &Facts, policy: Policy) -> Result<(), TrustError> {
    check_entry(path, facts, policy, Place::Above)
}

/// A directory or link above the config root: owned by root or the user.
fn check_ancestor_owner(path: &Path, facts: &Facts) -> Result<(), TrustError> {
    check_above(path, facts, ANCESTOR_LINK)
}

/// A directory above the config root, as [`ANCESTOR`] says.
fn check_ancestor(path: &Path, facts: &Facts) -> Result<(), TrustError> {
    if facts.kind != EntryKind::Dir {
        return Err(TrustError::WrongKind {
            path: path.to_path_buf(),
            expected: "directory",
        });
    }
    check_above(path, facts, ANCESTOR)
}

/// A name for `openat`: one component, nothing that walks elsewhere.
fn check_single_name(name: &OsStr, path: &Path) -> Result<(), TrustError> {
    if !walk::is_name(name.as_bytes()) {
        return Err(TrustError::Io {
            path: path.to_path_buf(),
            error: "not a single file name".to_owned(),
        });
    }
    Ok(())
}

/// Why the directory `path` was not opened.
fn refused_dir(path: &Path, why: &NotOpened) -> Refusal {
    let path = path.to_path_buf();
    match why {
        NotOpened::NotAName => Refusal::Refused(TrustError::Io {
            path,
            error: "not a single file name".to_owned(),
        }),
        NotOpened::Symlink(_) => Refusal::Refused(TrustError::Symlink { path }),
        NotOpened::NotDirectory(_) => Refusal::Refused(TrustError::WrongKind {
            path,
            expected: "directory",
        }),
        NotOpened::Os(errno) => os_error(&path, *errno),
    }
}

/// Opens the directory `name` of `dir` as a directory of the config root.
fn open_config_dir(dir: BorrowedFd<'_>, name: &OsStr, path: &Path) -> Result<OwnedFd, Refusal> {
    let fd = open_dir_at(dir, name, Access::Read).map_err(|why| refused_dir(path, &why))?;
    check_owned(path, &facts_of_fd(path, fd.as_fd())?)?;
    Ok(fd)
}

/// Opens the regular file `name` of `dir` as a file of the config root.
fn open_config_file(
    dir: BorrowedFd<'_>,
    name: &OsStr,
    path: &Path,
) -> Result<TrustedFile, Refusal> {
    check_single_name(name, path)?;
    // What is not a regular file is refused before it is opened: opening a device can have
    // effects.
    let (file, stat) = match open_at(dir, Path::new(name)) {
        Ok(Opened::Regular { file, stat }) => (file, stat),
        Ok(Opened::Other {
            kind: FileKind::Symlink,
            ..
        }) => {
            return Err(TrustError::Symlink {
                path: path.to_path_buf(),
            }
            .into());
        }
        Ok(Opened::Other { .. }) => {
            return Err(TrustError::WrongKind {
                path: path.to_path_buf(),
                expected: "regular file",
            }
            .into());
        }
        Err(error) => return Err(open_failed(path, &error)),
    };
    let facts = Facts::from(stat);
    check_owned(path, &facts)?;
    if facts.size > MAX_FILE_BYTES {
        return Err(TrustError::TooLarge {
            path: path.to_path_buf(),
            bytes: facts.size,
            limit: MAX_FILE_BYTES,
        }
        .into());
    }
    Ok(TrustedFile {
        path: path.to_path_buf(),
        file,
        len: facts.size,
    })
}

/// One directory reached by the walk from `/`: its resolved path (for messages) and descriptor.
struct Step {
    path: PathBuf,
    fd: OwnedFd,
}

fn open_slash() -> Result<Step, Refusal> {
    let path = PathBuf::from("/");
    let fd = open_dir(&path, Access::Search).map_err(|errno| os_error(&path, errno))?;
    check_ancestor(&path, &facts_of_fd(&path, fd.as_fd())?)?;
    Ok(Step { path, fd })
}

/// Walks from `/` through every directory of the absolute path `dir`, checking each as an
/// ancestor and resolving symbolic links as described in the module documentation. Returns the
/// descriptor of `dir` itself (checked as an ancestor too).
fn walk_ancestors(dir: &Path) -> Result<Step, Refusal> {
    let slash = open_slash()?;
    // Every directory stepped into is a real one (links are resolved), so the lexical parent is
    // the physical one, and `/..` is `/`.
    let mut walk = Follow::new(
        slash.fd.as_fd(),
        &slash.path,
        dir.as_os_str(),
        AboveRoot::Stay,
    );
    while let Some(next) = walk.next_name() {
        let name = next.map_err(|stopped| stopped_walk(walk.path(), stopped))?;
        let path = walk.path().join(&name);
        match open_dir_at(walk.dir(), &name, Access::Search) {
            Ok(fd) => {
                check_ancestor(&path, &facts_of_fd(&path, fd.as_fd())?)?;
                walk.enter(&name, fd);
            }
            Err(NotOpened::Symlink(lstat)) => {
                check_ancestor_owner(&path, &Facts::from(*lstat))?;
                walk.follow(&name, |target| {
                    target.strip_prefix("/").ok().map(Path::to_path_buf)
                })
                .map_err(|stopped| stopped_walk(&path, stopped))?;
            }
            Err(why) => return Err(refused_dir(&path, &why)),
        }
    }
    Ok(match walk.into_dir() {
        Some((path, fd)) => Step { path, fd },
        None => slash,
    })
}

/// Why the walk from `/` stopped at `path`.
fn stopped_walk(path: &Path, stopped: Stopped) -> Refusal {
    let path = path.to_path_buf();
    match stopped {
        Stopped::TooManyLinks => Refusal::Refused(TrustError::SymlinkLoop { path }),
        Stopped::Os(errno) => os_error(&path, errno),
        // Every absolute target is below `/`, and `/..` is `/`.
        Stopped::Outside => Refusal::Refused(TrustError::Io {
            path,
            error: stopped.to_string(),
        }),
    }
}

/// `path` made absolute and lexically normalized, split into its parent and final name
/// (`None` for `/`).
fn split_path(path: &Path) -> Result<(PathBuf, Option<OsString>), TrustError> {
    let absolute = std::path::absolute(path).map_err(|error| io_error(path, &error))?;
    let mut normal = lexical(&absolute);
    let name = normal.file_name().map(OsStr::to_os_string);
    if name.is_some() {
        normal.pop();
    }
    Ok((normal, name))
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

/// A regular file that passed the trust checks, held open: reading it reads what was checked.
#[derive(Debug)]
pub struct TrustedFile {
    path: PathBuf,
    file: File,
    len: u64,
}

impl TrustedFile {
    /// Opens `path` after checking every directory above it as an ancestor, without following a
    /// symlink at `path`, and checks the opened file: a regular file owned by the current user,
    /// not group- or world-writable, at most [`MAX_FILE_BYTES`].
    pub fn open(path: &Path) -> Result<Self, TrustError> {
        let (parent, name) = split_path(path)?;
        let Some(name) = name else {
            return Err(TrustError::WrongKind {
                path: path.to_path_buf(),
                expected: "regular file",
            });
        };
        let parent = walk_ancestors(&parent).map_err(Refusal::into_error)?;
        open_config_file(parent.fd.as_fd(), &name, path).map_err(Refusal::into_error)
    }

    /// Reads the checked file as UTF-8 (never more than [`MAX_FILE_BYTES`], even if it grew).
    pub fn read_to_string(self) -> Result<String, TrustError> {
        let size_hint = usize::try_from(self.len).unwrap_or(0);
        let Some(bytes) = read_at_most(&self.file, MAX_FILE_BYTES, size_hint)
            .map_err(|error| io_error(&self.path, &error))?
        else {
            // One byte past the limit was read, and no more.
            return Err(TrustError::TooLarge {
                path: self.path,
                bytes: MAX_FILE_BYTES + 1,
                limit: MAX_FILE_BYTES,
            });
        };
        String::from_utf8(bytes).map_err(|_| TrustError::Io {
            path: self.path,
            error: "not valid UTF-8".to_owned(),
        })
    }
}

/// Opens `path` (its ancestors checked), checks the opened file, and reads it as UTF-8: the unit
/// tests' way through [`TrustedFile`].
#[cfg(test)]
fn read_trusted(path: &Path) -> Result<String, TrustError> {
    TrustedFile::open(path)?.read_to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pi_native_hooks_base::safe_open::walk::current_uid;
    use std::fs;
    use std::os::unix::fs::{PermissionsExt, symlink};

    fn dir(uid: u32, mode: u32) -> Facts {
        Facts {
            kind: EntryKind::Dir,
            uid,
            mode,
            size: 0,
        }
    }

    /// A uid that is neither root nor the current user.
    fn other_uid() -> u32 {
        if current_uid() == 65534 { 65533 } else { 65534 }
    }

    #[test]
    fn ancestors_may_be_owned_by_root_or_you_and_shared_only_when_sticky() {
        let path = Path::new("/a");
        for facts in [
            dir(0, 0o755),
            dir(current_uid(), 0o700),
            dir(0, 0o1777),
            dir(0, 0o1770),
        ] {
            assert_eq!(check_ancestor(path, &facts), Ok(()), "{:o}", facts.mode);
        }
        for mode in [0o777, 0o775, 0o757, 0o2775] {
            assert_eq!(
                check_ancestor(path, &dir(0, mode)),
                Err(TrustError::AncestorWritable {
                    path: path.to_path_buf(),
                    mode
                })
            );
        }
        // Below a sticky directory, an entry another user owns could be renamed by them: every
        // entry the walk steps into (directory or link) is owner-checked.
        let other = other_uid();
        for facts in [dir(other, 0o755), dir(other, 0o1777)] {
            assert!(matches!(
                check_ancestor(path, &facts),
                Err(TrustError::AncestorNotOwned { owner, .. }) if owner == other
            ));
        }
        let link = Facts {
            kind: EntryKind::Symlink,
            ..dir(other, 0o777)
        };
        assert!(matches!(
            check_ancestor_owner(path, &link),
            Err(TrustError::AncestorNotOwned { .. })
        ));
        let file = Facts {
            kind: EntryKind::File,
            ..dir(0, 0o755)
        };
        assert!(matches!(
            check_ancestor(path, &file),
            Err(TrustError::WrongKind { .. })
        ));
    }

    #[test]
    fn config_entries_must_be_yours_and_private_even_below_root_owned_ancestors() {
        let path = Path::new("/a");
        assert_eq!(check_owned(path, &dir(current_uid(), 0o700)), Ok(()));
        assert!(matches!(
            check_owned(path, &dir(current_uid(), 0o1700 | 0o020)),
            Err(TrustError::Writable { .. })
        ));
        assert!(matches!(
            check_owned(path, &dir(other_uid(), 0o700)),
            Err(TrustError::NotOwned { .. })
        ));
    }

    #[test]
    fn paths_are_split_after_lexical_normalization() {
        assert_eq!(
            split_path(Path::new("/a/./b/../c/")).unwrap(),
            (PathBuf::from("/a"), Some(OsString::from("c")))
        );
        assert_eq!(
            split_path(Path::new("/")).unwrap(),
            (PathBuf::from("/"), None)
        );
        assert_eq!(
            split_path(Path::new("/..")).unwrap(),
            (PathBuf::from("/"), None)
        );
    }

    #[test]
    fn names_are_escaped_for_messages() {
        assert_eq!(
            escape_name(OsStr::from_bytes(b"a\xff\n\x1b[0m.rhai")),
            "a\\xff\\n\\x1b[0m.rhai"
        );
    }

    // Trust checks on configuration files and directories: owner, mode, symlinks and a swap after
    // the check.
    fn file(dir: &Path, name: &str, text: &str, mode: u32) -> PathBuf {
        let path = dir.join(name);
        fs::write(&path, text).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(mode)).unwrap();
        path
    }

    #[test]
    fn owned_private_file_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = file(dir.path(), "a.rhai", "const ID = 1;", 0o600);
        assert_eq!(read_trusted(&path).unwrap(), "const ID = 1;");
        let path = file(dir.path(), "b.rhai", "x", 0o644);
        assert_eq!(read_trusted(&path).unwrap(), "x");
    }

    #[test]
    fn file_owned_by_another_user_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        // Root gives a fresh file and directory away; anyone else finds root's own, which every
        // Unix has. `tests/it/unprivileged` checks both kinds of owner again as a normal user.
        let (path, sub, owner) = if nix::unistd::geteuid().is_root() {
            let path = file(dir.path(), "a.rhai", "x", 0o600);
            let sub = dir.path().join("sub");
            fs::create_dir(&sub).unwrap();
            let other = nix::unistd::Uid::from_raw(other_uid());
            for entry in [&path, &sub] {
                nix::unistd::chown(entry, Some(other), None).expect("root can chown");
            }
            (path, sub, other_uid())
        } else {
            (PathBuf::from("/etc/passwd"), PathBuf::from("/"), 0)
        };
        assert!(
            matches!(
                read_trusted(&path),
                Err(TrustError::NotOwned { owner: o, current, .. }) if o == owner && current == current_uid()
            ),
            "{}: {:?}",
            path.display(),
            read_trusted(&path)
        );
        assert!(
            matches!(check_dir(&sub), Err(TrustError::NotOwned { owner: o, .. }) if o == owner),
            "{}: {:?}",
            sub.display(),
            check_dir(&sub)
        );
    }

    #[test]
    fn group_or_world_writable_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        for mode in [0o620, 0o602, 0o666] {
            let path = file(dir.path(), &format!("m{mode:o}.rhai"), "x", mode);
            assert_eq!(
                read_trusted(&path),
                Err(TrustError::Writable {
                    path: path.clone(),
                    mode
                })
            );
        }
        let sub = dir.path().join("sub");
        fs::create_dir(&sub).unwrap();
        fs::set_permissions(&sub, fs::Permissions::from_mode(0o777)).unwrap();
        assert!(matches!(
            check_dir(&sub),
            Err(TrustError::Writable { mode: 0o777, .. })
        ));
        fs::set_permissions(&sub, fs::Permissions::from_mode(0o700)).unwrap();
        assert_eq!(check_dir(&sub), Ok(()));
    }

    #[test]
    fn symlinks_are_refused_even_to_trusted_targets() {
        let dir = tempfile::tempdir().unwrap();
        let target = file(dir.path(), "target.rhai", "x", 0o600);
        let link = dir.path().join("link.rhai");
        symlink(&target, &link).unwrap();
        assert_eq!(
            read_trusted(&link),
            Err(TrustError::Symlink { path: link.clone() })
        );
        let sub = dir.path().join("sub");
        fs::create_dir(&sub).unwrap();
        let dir_link = dir.path().join("dir-link");
        symlink(&sub, &dir_link).unwrap();
        assert_eq!(
            check_dir(&dir_link),
            Err(TrustError::Symlink {
                path: dir_link.clone()
            })
        );
    }

    #[test]
    fn swap_after_the_check_cannot_slip_through() {
        let dir = tempfile::tempdir().unwrap();
        let path = file(dir.path(), "policy.rhai", "trusted", 0o600);
        let evil = file(dir.path(), "evil.rhai", "evil", 0o666);
        let checked = TrustedFile::open(&path).unwrap();
        // The path is swapped for a symlink to a file anyone can write, after the check.
        let staged = dir.path().join("staged");
        symlink(&evil, &staged).unwrap();
        fs::rename(&staged, &path).unwrap();
        assert_eq!(
            checked.read_to_string().unwrap(),
            "trusted",
            "the read uses the checked descriptor"
        );
        assert_eq!(
            read_trusted(&path),
            Err(TrustError::Symlink { path: path.clone() })
        );
    }

    #[test]
    fn wrong_kinds_and_oversized_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            read_trusted(dir.path()),
            Err(TrustError::WrongKind {
                expected: "regular file",
                ..
            })
        ));
        let path = file(dir.path(), "a.rhai", "x", 0o600);
        assert!(matches!(
            check_dir(&path),
            Err(TrustError::WrongKind {
                expected: "directory",
                ..
            })
        ));
        let fifo = dir.path().join("fifo.rhai");
        nix::unistd::mkfifo(&fifo, Mode::from_bits_truncate(0o600)).unwrap();
        assert!(
            matches!(read_trusted(&fifo), Err(TrustError::WrongKind { .. })),
            "a FIFO must not block"
        );
        let big = file(
            dir.path(),
            "big.rhai",
            &"x".repeat(usize::try_from(MAX_FILE_BYTES).unwrap() + 1),
            0o600,
        );
        assert!(matches!(
            read_trusted(&big),
            Err(TrustError::TooLarge { .. })
        ));
        assert!(matches!(
            read_trusted(&dir.path().join("missing")),
            Err(TrustError::Io { .. })
        ));
    }
}

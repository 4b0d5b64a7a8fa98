//! The errors that name what broke a trust check ([`TrustError`]), the refusal the checks pass
//! around before it (a missing path told apart from a refused one), and the mapping of the
//! operating system's and the walk's failures onto both.

use super::limits::MAX_SYMLINK_HOPS;
use nix::errno::Errno;
use pi_native_hooks_base::safe_open::follow::Stopped;
use pi_native_hooks_base::safe_open::walk::NotOpened;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

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
    /// A directory lists more than [`MAX_DIR_ENTRIES`](super::limits::MAX_DIR_ENTRIES)
    /// entries.
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
    /// Larger than [`MAX_FILE_BYTES`](super::limits::MAX_FILE_BYTES).
    #[error("{path}: {bytes} bytes is more than the {limit} bytes a configuration file may have")]
    TooLarge {
        path: PathBuf,
        bytes: u64,
        /// The most bytes a configuration file may have
        /// ([`MAX_FILE_BYTES`](super::limits::MAX_FILE_BYTES)).
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

/// A refusal inside the trust checks: `Missing` lets callers tell "absent" from "refused".
pub(super) enum Refusal {
    Missing(TrustError),
    Refused(TrustError),
}

impl From<TrustError> for Refusal {
    fn from(error: TrustError) -> Self {
        Self::Refused(error)
    }
}

impl Refusal {
    pub(super) fn into_error(self) -> TrustError {
        match self {
            Self::Missing(error) | Self::Refused(error) => error,
        }
    }

    /// `None` when the path does not exist, the refusal otherwise.
    pub(super) fn missing_is_none<T>(result: Result<T, Self>) -> Result<Option<T>, TrustError> {
        match result {
            Ok(value) => Ok(Some(value)),
            Err(Self::Missing(_)) => Ok(None),
            Err(Self::Refused(error)) => Err(error),
        }
    }
}

/// The operating system's `error` about `path`, as the error that names the path.
pub(super) fn io_error(path: &Path, error: &std::io::Error) -> TrustError {
    TrustError::Io {
        path: path.to_path_buf(),
        error: error.to_string(),
    }
}

/// An operating system error about `path`; a missing path is told apart.
pub(super) fn open_failed(path: &Path, error: &std::io::Error) -> Refusal {
    let refusal = io_error(path, error);
    if error.kind() == std::io::ErrorKind::NotFound {
        Refusal::Missing(refusal)
    } else {
        Refusal::Refused(refusal)
    }
}

/// An `errno` about `path`; a missing path is told apart.
pub(super) fn os_error(path: &Path, errno: Errno) -> Refusal {
    open_failed(path, &std::io::Error::from(errno))
}

/// `name` with its non-ASCII and control bytes escaped, for messages about unreadable names.
pub fn escape_name(name: &OsStr) -> String {
    name.as_bytes().escape_ascii().to_string()
}

/// Why the directory `path` was not opened.
pub(super) fn refused_dir(path: &Path, why: &NotOpened) -> Refusal {
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

/// Why the walk from `/` stopped at `path`.
pub(super) fn stopped_walk(path: &Path, stopped: Stopped) -> Refusal {
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

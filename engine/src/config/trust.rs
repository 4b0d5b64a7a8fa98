//! Trust checks: a configuration file or directory is used only if the current user owns it,
//! nobody else can write it, and it is not a symlink. The check runs on the opened file
//! descriptor (no-follow, non-blocking open, then `fstat`), and the content is read from that same
//! descriptor, so swapping the path between the check and the read cannot slip anything through.

use std::fs::{File, Metadata};
use std::io::Read;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The largest configuration file read, in bytes.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// Why a configuration path was not trusted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TrustError {
    /// The path is a symbolic link.
    #[error("{path}: is a symbolic link; replace it with a regular file or directory you own")]
    Symlink {
        /// The offending path.
        path: PathBuf,
    },
    /// Owned by another user.
    #[error("{path}: owned by uid {owner}, not by you (uid {current}); `chown` it to yourself")]
    NotOwned {
        /// The offending path.
        path: PathBuf,
        /// The owner's uid.
        owner: u32,
        /// The current uid.
        current: u32,
    },
    /// Writable by group or others.
    #[error("{path}: mode {mode:04o} lets group or others write it; run `chmod go-w` on it")]
    Writable {
        /// The offending path.
        path: PathBuf,
        /// The permission bits.
        mode: u32,
    },
    /// Not the expected kind of file.
    #[error("{path}: expected a {expected}")]
    WrongKind {
        /// The offending path.
        path: PathBuf,
        /// `regular file` or `directory`.
        expected: &'static str,
    },
    /// Larger than [`MAX_FILE_BYTES`].
    #[error("{path}: {bytes} bytes is more than the {limit} bytes a configuration file may have")]
    TooLarge {
        /// The offending path.
        path: PathBuf,
        /// Its size.
        bytes: u64,
        /// The limit.
        limit: u64,
    },
    /// The file could not be opened or read.
    #[error("{path}: {error}")]
    Io {
        /// The offending path.
        path: PathBuf,
        /// The operating system's message.
        error: String,
    },
}

/// The uid trust is checked against.
fn current_uid() -> u32 {
    nix::unistd::geteuid().as_raw()
}

fn io_error(path: &Path, error: &std::io::Error) -> TrustError {
    TrustError::Io {
        path: path.to_path_buf(),
        error: error.to_string(),
    }
}

/// Opens without following a final symlink and without blocking (a FIFO must not hang the read).
fn open_no_follow(
    path: &Path,
    extra_flags: i32,
    expected: &'static str,
) -> Result<File, TrustError> {
    File::options()
        .read(true)
        .custom_flags(
            nix::libc::O_NOFOLLOW | nix::libc::O_CLOEXEC | nix::libc::O_NONBLOCK | extra_flags,
        )
        .open(path)
        .map_err(|error| match error.raw_os_error() {
            Some(nix::libc::ELOOP) => TrustError::Symlink {
                path: path.to_path_buf(),
            },
            // O_NOFOLLOW | O_DIRECTORY on a symlink to a directory yields ENOTDIR on Linux.
            Some(nix::libc::ENOTDIR)
                if path
                    .symlink_metadata()
                    .is_ok_and(|m| m.file_type().is_symlink()) =>
            {
                TrustError::Symlink {
                    path: path.to_path_buf(),
                }
            }
            Some(nix::libc::ENOTDIR) => TrustError::WrongKind {
                path: path.to_path_buf(),
                expected,
            },
            _ => io_error(path, &error),
        })
}

fn check_metadata(path: &Path, meta: &Metadata) -> Result<(), TrustError> {
    let current = current_uid();
    if meta.uid() != current {
        return Err(TrustError::NotOwned {
            path: path.to_path_buf(),
            owner: meta.uid(),
            current,
        });
    }
    let mode = meta.mode() & 0o7777;
    if mode & 0o022 != 0 {
        return Err(TrustError::Writable {
            path: path.to_path_buf(),
            mode,
        });
    }
    Ok(())
}

/// Checks a directory of the config root (owned by the user, not group/world-writable, not a symlink).
pub fn check_dir(path: &Path) -> Result<(), TrustError> {
    let dir = open_no_follow(path, nix::libc::O_DIRECTORY, "directory")?;
    let meta = dir.metadata().map_err(|error| io_error(path, &error))?;
    if !meta.is_dir() {
        return Err(TrustError::WrongKind {
            path: path.to_path_buf(),
            expected: "directory",
        });
    }
    check_metadata(path, &meta)
}

/// A regular file that passed the trust checks, held open: reading it reads what was checked.
#[derive(Debug)]
pub struct TrustedFile {
    path: PathBuf,
    file: File,
    len: u64,
}

impl TrustedFile {
    /// Opens `path` without following symlinks and checks the opened file: a regular file owned
    /// by the current user, not group- or world-writable, at most [`MAX_FILE_BYTES`].
    pub fn open(path: &Path) -> Result<Self, TrustError> {
        let file = open_no_follow(path, 0, "regular file")?;
        let meta = file.metadata().map_err(|error| io_error(path, &error))?;
        if !meta.is_file() {
            return Err(TrustError::WrongKind {
                path: path.to_path_buf(),
                expected: "regular file",
            });
        }
        check_metadata(path, &meta)?;
        if meta.len() > MAX_FILE_BYTES {
            return Err(TrustError::TooLarge {
                path: path.to_path_buf(),
                bytes: meta.len(),
                limit: MAX_FILE_BYTES,
            });
        }
        Ok(Self {
            path: path.to_path_buf(),
            file,
            len: meta.len(),
        })
    }

    /// Reads the checked file as UTF-8 (never more than [`MAX_FILE_BYTES`], even if it grew).
    pub fn read_to_string(self) -> Result<String, TrustError> {
        let mut bytes = Vec::with_capacity(usize::try_from(self.len).unwrap_or(0));
        (&self.file)
            .take(MAX_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|error| io_error(&self.path, &error))?;
        let bytes_read = bytes.len() as u64;
        if bytes_read > MAX_FILE_BYTES {
            return Err(TrustError::TooLarge {
                path: self.path,
                bytes: bytes_read,
                limit: MAX_FILE_BYTES,
            });
        }
        String::from_utf8(bytes).map_err(|_| TrustError::Io {
            path: self.path,
            error: "not valid UTF-8".to_owned(),
        })
    }
}

/// Opens `path` without following symlinks, checks the opened file, and reads it as UTF-8.
pub fn read_trusted(path: &Path) -> Result<String, TrustError> {
    TrustedFile::open(path)?.read_to_string()
}

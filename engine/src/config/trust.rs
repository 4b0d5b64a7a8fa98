//! Trust checks: a configuration file is read only if the current user owns it, nobody else can
//! write it, and it is not a symlink. The check runs on the opened file (no-follow open, then
//! `fstat`), so a swap between check and read cannot slip through.

use std::fs::{File, Metadata};
use std::io::Read;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

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

fn open_no_follow(path: &Path) -> Result<File, TrustError> {
    File::options()
        .read(true)
        .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_CLOEXEC)
        .open(path)
        .map_err(|error| {
            if error.raw_os_error() == Some(nix::libc::ELOOP) {
                TrustError::Symlink {
                    path: path.to_path_buf(),
                }
            } else {
                TrustError::Io {
                    path: path.to_path_buf(),
                    error: error.to_string(),
                }
            }
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
    let file = File::options()
        .read(true)
        .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_CLOEXEC | nix::libc::O_DIRECTORY)
        .open(path)
        .map_err(|error| match error.raw_os_error() {
            Some(nix::libc::ELOOP) => TrustError::Symlink {
                path: path.to_path_buf(),
            },
            Some(nix::libc::ENOTDIR) => {
                // O_NOFOLLOW on a symlink to a directory also yields ENOTDIR on Linux.
                if path
                    .symlink_metadata()
                    .is_ok_and(|m| m.file_type().is_symlink())
                {
                    TrustError::Symlink {
                        path: path.to_path_buf(),
                    }
                } else {
                    TrustError::WrongKind {
                        path: path.to_path_buf(),
                        expected: "directory",
                    }
                }
            }
            _ => TrustError::Io {
                path: path.to_path_buf(),
                error: error.to_string(),
            },
        })?;
    let meta = file.metadata().map_err(|error| TrustError::Io {
        path: path.to_path_buf(),
        error: error.to_string(),
    })?;
    check_metadata(path, &meta)
}

/// Opens `path` without following symlinks, checks the opened file, and reads it as UTF-8.
pub fn read_trusted(path: &Path) -> Result<String, TrustError> {
    let mut file = open_no_follow(path)?;
    let meta = file.metadata().map_err(|error| TrustError::Io {
        path: path.to_path_buf(),
        error: error.to_string(),
    })?;
    if !meta.is_file() {
        return Err(TrustError::WrongKind {
            path: path.to_path_buf(),
            expected: "regular file",
        });
    }
    check_metadata(path, &meta)?;
    let mut text = String::new();
    file.read_to_string(&mut text)
        .map_err(|error| TrustError::Io {
            path: path.to_path_buf(),
            error: error.to_string(),
        })?;
    Ok(text)
}

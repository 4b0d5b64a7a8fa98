//! A regular file of a config root, opened relative to its checked directory, checked on the
//! opened descriptor and read from it, never more than [`MAX_FILE_BYTES`].

use super::ancestors::{split_path, walk_ancestors};
use super::checks::{Facts, check_owned, check_single_name};
use super::error::{Refusal, TrustError, io_error, open_failed};
use super::limits::MAX_FILE_BYTES;
use pi_native_hooks_base::safe_open::{FileKind, Opened, open_at, read_at_most};
use std::ffi::OsStr;
use std::fs::File;
use std::os::fd::{AsFd, BorrowedFd};
use std::path::{Path, PathBuf};

/// Opens the regular file `name` of `dir` as a file of the config root.
pub(super) fn open_config_file(
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

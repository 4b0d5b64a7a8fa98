//! Owns content hashing of worktree paths ([`read_content`]) and the snapshot fingerprint: an
//! xxh3-128 over `HEAD`'s id and, for every dirty (or explicitly observed) path, its status and
//! current content. Clean files outside a path-limited scope are never read.
//!
//! Files are opened through [`safe_open::open_no_follow`]: a symlink is hashed by its target's
//! name, and a FIFO, socket or device is never opened. A regular file is read in chunks, checking
//! the capture's [`CancelToken`] between them, and only up to [`MAX_HASHED_BYTES`]: a larger file
//! is identified by its size, mtime, ctime and inode instead ([`Content::LargeFile`]), so a
//! snapshot never reads more than the cap per file, however large (or sparse) the file is.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{ErrorKind, Read};
use std::path::Path;

use nix::sys::stat::FileStat;
use xxhash_rust::xxh3::Xxh3;

use crate::error::WorkspaceError;
use crate::repo::{Head, worktree_path};
use crate::snapshot::entry::{
    Content, ContentHash, DirtyEntry, FileStamp, StatTime, WorktreeChange,
};
use pi_native_hooks_base::CancelToken;
use pi_native_hooks_base::safe_open::{self, FileKind, Opened};

/// Files larger than this (64 MiB) are fingerprinted by their metadata, not their bytes.
pub const MAX_HASHED_BYTES: u64 = 64 * 1024 * 1024;

/// Bytes read between two checks of the cancel token.
const CHUNK_BYTES: usize = 64 * 1024;

/// Read what is at `rela` below `workdir` without following a final symlink.
///
/// Unreadable files (permission denied) are recorded as [`Content::Other`] rather than failing
/// the whole snapshot: `git status` does not need to read them either. Returns
/// [`WorkspaceError::Cancelled`] once `cancel` is cancelled, between two chunks of a file.
pub(crate) fn read_content(
    workdir: &Path,
    rela: &str,
    cancel: &CancelToken,
) -> Result<Content, WorkspaceError> {
    let path = worktree_path(workdir, rela);
    let io_error = |source| WorkspaceError::Io {
        repo: workdir.to_owned(),
        path: path.clone(),
        source,
    };
    let (file, stat) = match safe_open::open_no_follow(&path) {
        Ok(Opened::Regular { file, stat }) => (file, stat),
        Ok(Opened::Other {
            kind: FileKind::Symlink,
            ..
        }) => {
            return match std::fs::read_link(&path) {
                Ok(target) => Ok(Content::Symlink {
                    hash: ContentHash::of(target.as_os_str().as_encoded_bytes()),
                }),
                Err(err) if is_absent(&err) => Ok(Content::Absent),
                Err(err) => Err(io_error(err)),
            };
        }
        Ok(Opened::Other {
            kind: FileKind::Directory,
            ..
        }) => {
            if path.join(".git").exists() {
                let head = gix::open(&path)
                    .ok()
                    .and_then(|repo| repo.head_id().ok().map(|id| id.detach().to_string()));
                return Ok(Content::Repository {
                    head,
                    changes: None,
                });
            }
            return Ok(Content::Directory);
        }
        Ok(Opened::Other { .. }) => return Ok(Content::Other),
        Err(err) if is_absent(&err) => return Ok(Content::Absent),
        Err(err) if err.kind() == ErrorKind::PermissionDenied => return Ok(Content::Other),
        Err(err) => return Err(io_error(err)),
    };
    let executable = is_executable(&stat);
    if file_size(&stat) > MAX_HASHED_BYTES {
        return Ok(large_file(executable, &stat));
    }
    match hash_capped(file, cancel) {
        Ok(Some(hash)) => Ok(Content::File { executable, hash }),
        // It grew past the cap while being read: identify it by what it is now.
        Ok(None) => match safe_open::open_no_follow(&path) {
            Ok(Opened::Regular { stat, .. }) => Ok(large_file(is_executable(&stat), &stat)),
            Ok(Opened::Other { .. }) => Ok(Content::Other),
            Err(err) if is_absent(&err) => Ok(Content::Absent),
            Err(err) => Err(io_error(err)),
        },
        Err(Interrupted::Cancelled) => Err(WorkspaceError::Cancelled {
            path: workdir.to_owned(),
        }),
        Err(Interrupted::Io(err)) if is_absent(&err) => Ok(Content::Absent),
        Err(Interrupted::Io(err)) if err.kind() == ErrorKind::PermissionDenied => {
            Ok(Content::Other)
        }
        Err(Interrupted::Io(err)) => Err(io_error(err)),
    }
}

fn is_absent(err: &std::io::Error) -> bool {
    // `NotADirectory`: a parent component was replaced by a file.
    matches!(err.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory)
}

fn is_executable(stat: &FileStat) -> bool {
    stat.st_mode & 0o111 != 0
}

fn file_size(stat: &FileStat) -> u64 {
    u64::try_from(stat.st_size).unwrap_or(0)
}

/// The metadata form of a file above [`MAX_HASHED_BYTES`].
#[expect(clippy::useless_conversion, clippy::unnecessary_cast)]
fn large_file(executable: bool, stat: &FileStat) -> Content {
    Content::LargeFile {
        executable,
        stamp: FileStamp {
            size: file_size(stat),
            modified: StatTime {
                secs: i64::from(stat.st_mtime),
                nanos: i64::from(stat.st_mtime_nsec),
            },
            changed: StatTime {
                secs: i64::from(stat.st_ctime),
                nanos: i64::from(stat.st_ctime_nsec),
            },
            inode: stat.st_ino as u64,
        },
    }
}

/// Why hashing stopped early.
#[derive(Debug)]
enum Interrupted {
    Cancelled,
    Io(std::io::Error),
}

/// Hashes `file` in chunks, checking `cancel` before each; `None` if it holds more than
/// [`MAX_HASHED_BYTES`].
fn hash_capped(file: File, cancel: &CancelToken) -> Result<Option<ContentHash>, Interrupted> {
    hash_reader(file, cancel, MAX_HASHED_BYTES)
}

fn hash_reader(
    reader: impl Read,
    cancel: &CancelToken,
    cap: u64,
) -> Result<Option<ContentHash>, Interrupted> {
    let mut reader = reader.take(cap.saturating_add(1));
    let mut hasher = Xxh3::new();
    let mut buf = vec![0u8; CHUNK_BYTES];
    let mut total: u64 = 0;
    loop {
        if cancel.is_cancelled() {
            return Err(Interrupted::Cancelled);
        }
        let read = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(read) => read,
            Err(err) if err.kind() == ErrorKind::Interrupted => continue,
            Err(err) => return Err(Interrupted::Io(err)),
        };
        total += read as u64;
        if total > cap {
            return Ok(None);
        }
        hasher.update(buf.get(..read).unwrap_or_default());
    }
    Ok(Some(ContentHash(hasher.digest128())))
}

impl Content {
    /// Feeds this content description into `hasher`, tagged by kind so a file and a symlink with
    /// the same bytes hash differently, and terminated so consecutive entries cannot run together.
    pub fn hash_into(&self, hasher: &mut Xxh3) {
        match self {
            Content::Absent => hasher.update(b"absent"),
            Content::File { executable, hash } => {
                hasher.update(if *executable { b"exec" } else { b"file" });
                hasher.update(&hash.0.to_le_bytes());
            }
            Content::Symlink { hash } => {
                hasher.update(b"link");
                hasher.update(&hash.0.to_le_bytes());
            }
            Content::LargeFile { executable, stamp } => {
                hasher.update(if *executable { b"bige" } else { b"bigf" });
                hasher.update(&stamp.size.to_le_bytes());
                for time in [stamp.modified, stamp.changed] {
                    hasher.update(&time.secs.to_le_bytes());
                    hasher.update(&time.nanos.to_le_bytes());
                }
                hasher.update(&stamp.inode.to_le_bytes());
            }
            Content::Repository { head, changes } => {
                hasher.update(b"repo");
                hasher.update(head.as_deref().unwrap_or("unborn").as_bytes());
                if let Some(changes) = changes {
                    hasher.update(b"\0changes\0");
                    hasher.update(changes.as_bytes());
                }
            }
            Content::Directory => hasher.update(b"dir"),
            Content::Other => hasher.update(b"other"),
        }
        hasher.update(b"\0");
    }
}

/// The snapshot fingerprint as 32 hex digits.
///
/// Covers `HEAD`'s commit id, and for every dirty entry its path, `XY` status, submodule detail
/// and current content, plus the content of the source of a staged rename (absent or not).
/// `observed` adds the content of clean paths a path-limited snapshot looked at.
pub(crate) fn fingerprint(
    head: &Head,
    entries: &BTreeMap<String, DirtyEntry>,
    observed: &BTreeMap<String, Content>,
    sources: &BTreeMap<String, Content>,
) -> String {
    let mut hasher = Xxh3::new();
    hasher.update(b"head\0");
    hasher.update(head.id.as_deref().unwrap_or("unborn").as_bytes());
    hasher.update(b"\0");
    for (path, entry) in entries {
        hasher.update(b"dirty\0");
        hasher.update(path.as_bytes());
        hasher.update(b"\0");
        hasher.update(entry.xy().as_bytes());
        if let Some(WorktreeChange::Submodule(sm)) = &entry.worktree {
            hasher.update(&[
                u8::from(sm.commit_changed),
                u8::from(sm.modified_content),
                u8::from(sm.untracked_content),
            ]);
        }
        if let Some(source) = entry.source_path() {
            hasher.update(source.as_bytes());
        }
        hasher.update(b"\0");
        entry.content.hash_into(&mut hasher);
    }
    for (path, content) in sources {
        hasher.update(b"source\0");
        hasher.update(path.as_bytes());
        hasher.update(b"\0");
        content.hash_into(&mut hasher);
    }
    for (path, content) in observed {
        if entries.contains_key(path) {
            continue;
        }
        hasher.update(b"clean\0");
        hasher.update(path.as_bytes());
        hasher.update(b"\0");
        content.hash_into(&mut hasher);
    }
    format!("{:032x}", hasher.digest128())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that cancels `token` once it has handed out `after` chunks.
    struct CancellingReader {
        token: CancelToken,
        after: usize,
        chunks: usize,
    }

    impl Read for CancellingReader {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.chunks += 1;
            if self.chunks >= self.after {
                self.token.cancel();
            }
            buf.fill(b'x');
            Ok(buf.len())
        }
    }

    #[test]
    fn hashing_stops_at_the_chunk_after_a_cancellation() {
        let token = CancelToken::new();
        let mut reader = CancellingReader {
            token: token.clone(),
            after: 3,
            chunks: 0,
        };
        let result = hash_reader(&mut reader, &token, MAX_HASHED_BYTES);
        assert!(matches!(result, Err(Interrupted::Cancelled)), "{result:?}");
        assert_eq!(reader.chunks, 3, "no chunk is read after the cancellation");
    }

    #[test]
    fn a_cancelled_token_reads_nothing() {
        let token = CancelToken::new();
        token.cancel();
        let mut reader = CancellingReader {
            token: token.clone(),
            after: usize::MAX,
            chunks: 0,
        };
        let result = hash_reader(&mut reader, &token, MAX_HASHED_BYTES);
        assert!(matches!(result, Err(Interrupted::Cancelled)), "{result:?}");
        assert_eq!(reader.chunks, 0);
    }

    #[test]
    fn more_than_the_cap_is_never_hashed() {
        let token = CancelToken::new();
        let cap = 3 * CHUNK_BYTES as u64;
        let mut endless = std::io::repeat(b'x');
        assert!(matches!(hash_reader(&mut endless, &token, cap), Ok(None)));
        let exact = std::io::repeat(b'x').take(cap);
        assert!(matches!(hash_reader(exact, &token, cap), Ok(Some(_))));
    }
}

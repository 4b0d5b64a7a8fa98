//! Owns content hashing of worktree paths ([`read_content`]) and the snapshot fingerprint: an
//! xxh3-128 over `HEAD`'s id and, for every dirty (or explicitly observed) path, its status and
//! current content. Clean files outside a path-limited scope are never read.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{ErrorKind, Read};
use std::path::Path;

use xxhash_rust::xxh3::{Xxh3, xxh3_128};

use super::entry::{Content, ContentHash, DirtyEntry, WorktreeChange};
use super::error::WorkspaceError;
use super::repo::{Head, worktree_path};

/// Read what is at `rela` below `workdir` without following a final symlink.
///
/// Unreadable files (permission denied) are recorded as [`Content::Other`] rather than failing
/// the whole snapshot: `git status` does not need to read them either.
pub(crate) fn read_content(workdir: &Path, rela: &str) -> Result<Content, WorkspaceError> {
    let path = worktree_path(workdir, rela);
    let io_error = |source| WorkspaceError::Io {
        repo: workdir.to_owned(),
        path: path.clone(),
        source,
    };
    let meta = match std::fs::symlink_metadata(&path) {
        Ok(meta) => meta,
        Err(err) if is_absent(&err) => return Ok(Content::Absent),
        Err(err) => return Err(io_error(err)),
    };
    let file_type = meta.file_type();
    if file_type.is_symlink() {
        return match std::fs::read_link(&path) {
            Ok(target) => Ok(Content::Symlink {
                hash: ContentHash(xxh3_128(target.as_os_str().as_encoded_bytes())),
            }),
            Err(err) if is_absent(&err) => Ok(Content::Absent),
            Err(err) => Err(io_error(err)),
        };
    }
    if file_type.is_dir() {
        if path.join(".git").exists() {
            let head = gix::open(&path)
                .ok()
                .and_then(|repo| repo.head_id().ok().map(|id| id.detach().to_string()));
            return Ok(Content::Repository { head });
        }
        return Ok(Content::Directory);
    }
    if !file_type.is_file() {
        return Ok(Content::Other);
    }
    match hash_file(&path) {
        Ok(hash) => Ok(Content::File {
            executable: is_executable(&meta),
            hash,
        }),
        Err(err) if is_absent(&err) => Ok(Content::Absent),
        Err(err) if err.kind() == ErrorKind::PermissionDenied => Ok(Content::Other),
        Err(err) => Err(io_error(err)),
    }
}

fn is_absent(err: &std::io::Error) -> bool {
    // `NotADirectory`: a parent component was replaced by a file.
    matches!(err.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory)
}

#[cfg(unix)]
fn is_executable(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_meta: &std::fs::Metadata) -> bool {
    false
}

fn hash_file(path: &Path) -> std::io::Result<ContentHash> {
    let mut file = File::open(path)?;
    let mut hasher = Xxh3::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let read = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(read) => read,
            Err(err) if err.kind() == ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        hasher.update(buf.get(..read).unwrap_or_default());
    }
    Ok(ContentHash(hasher.digest128()))
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
            Content::Repository { head } => {
                hasher.update(b"repo");
                hasher.update(head.as_deref().unwrap_or("unborn").as_bytes());
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

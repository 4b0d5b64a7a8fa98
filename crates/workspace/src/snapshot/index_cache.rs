//! Owns reading the index for a snapshot ([`load`]) and the process-wide cache of decoded index
//! files behind it, shared by full and path-limited snapshots.
//!
//! The index is read like `git status` reads it: without verifying its trailing checksum (git
//! checks it only in `fsck`; hashing the whole file would cost more than decoding it). Decoding a
//! 50,000-entry index costs more than everything else a path-limited snapshot does, and a wave
//! takes two snapshots (before and after) while `write`/`edit` calls leave the index alone. Git replaces the index by renaming a lock file over it, so the file's identity
//! (device, inode, size, mtime, ctime) changes whenever its content does; as a guard against
//! inode reuse on file systems with coarse timestamps, the identity also includes the trailing
//! checksum git writes over the whole content. An entry is reused only while that identity is
//! unchanged. The cached state also keeps the index timestamp the racy-git check relies on.

use pi_native_hooks_base::lock;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use crate::error::WorkspaceError;
use crate::repo::OpenRepo;

/// How many repositories' indexes are kept.
const CAPACITY: usize = 4;

/// What identifies one version of an index file on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FileIdentity {
    len: u64,
    modified: Option<SystemTime>,
    #[cfg(unix)]
    dev_ino_ctime: (u64, u64, i64, i64),
    /// The last bytes of the file: git's checksum over the content (all zero with
    /// `index.skipHash`).
    trailer: Vec<u8>,
}

/// Bytes read from the end of the file; a SHA-256 trailer is 32 bytes, SHA-1's is 20.
const TRAILER_LEN: u64 = 32;

impl FileIdentity {
    /// The identity of the index file at `path` now; `None` if it cannot be read, in which case
    /// nothing is cached or reused.
    fn of(path: &Path) -> Option<Self> {
        #[cfg(unix)]
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(path).ok()?;
        Some(FileIdentity {
            len: meta.len(),
            modified: meta.modified().ok(),
            #[cfg(unix)]
            dev_ino_ctime: (meta.dev(), meta.ino(), meta.ctime(), meta.ctime_nsec()),
            trailer: read_trailer(path, meta.len()).ok()?,
        })
    }
}

fn read_trailer(path: &Path, len: u64) -> std::io::Result<Vec<u8>> {
    use std::io::{Read, Seek, SeekFrom};
    let pi_native_hooks_base::safe_open::Opened::Regular { mut file, .. } =
        pi_native_hooks_base::safe_open::open_no_follow(path)?
    else {
        return Err(std::io::Error::other("the index is not a regular file"));
    };
    file.seek(SeekFrom::Start(len.saturating_sub(TRAILER_LEN)))?;
    let mut trailer = Vec::with_capacity(32);
    file.take(TRAILER_LEN).read_to_end(&mut trailer)?;
    Ok(trailer)
}

struct Cached {
    path: PathBuf,
    identity: FileIdentity,
    state: Arc<gix::index::State>,
}

static CACHE: Mutex<Vec<Cached>> = Mutex::new(Vec::new());

/// The decoded index at `path` if the cache holds the version with `identity`.
fn get(path: &Path, identity: &FileIdentity) -> Option<Arc<gix::index::State>> {
    let cache = lock(&CACHE);
    cache
        .iter()
        .find(|cached| cached.path == path && cached.identity == *identity)
        .map(|cached| Arc::clone(&cached.state))
}

/// Remember `state` as the decoded version of the index at `path` with `identity`.
fn put(path: &Path, identity: FileIdentity, state: Arc<gix::index::State>) {
    let mut cache = lock(&CACHE);
    cache.retain(|cached| cached.path != path);
    if cache.len() >= CAPACITY {
        cache.remove(0);
    }
    cache.push(Cached {
        path: path.to_owned(),
        identity,
        state,
    });
}

/// Read the index of `open` without verifying its checksum, reusing the cached decode while the
/// file is unchanged; a missing index is an empty one.
pub(crate) fn load(open: &OpenRepo) -> Result<Arc<gix::index::State>, WorkspaceError> {
    let path = open.repo.index_path();
    match std::fs::metadata(&path) {
        // Reading a FIFO or device would block or never end.
        Ok(meta) if !meta.is_file() => {
            return Err(WorkspaceError::Io {
                repo: open.workdir.clone(),
                path,
                source: std::io::Error::other(
                    "the index is not a regular file; remove it and run `git reset` to rebuild it",
                ),
            });
        }
        Ok(_) => {}
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Arc::new(gix::index::State::new(open.repo.object_hash())));
        }
        Err(source) => {
            return Err(WorkspaceError::Io {
                repo: open.workdir.clone(),
                path,
                source,
            });
        }
    }
    let identity = FileIdentity::of(&path);
    if let Some(state) = identity.as_ref().and_then(|id| get(&path, id)) {
        return Ok(state);
    }
    let file = gix::index::File::at(
        &path,
        open.repo.object_hash(),
        true,
        gix::index::decode::Options::default(),
    )
    .map_err(WorkspaceError::git(
        &open.workdir,
        "reading the index",
        "run `git status` to check the index; `git reset` rebuilds a corrupt one",
    ))?;
    let state = Arc::new(gix::index::State::from(file));
    // Cache only if the file is still the one identified before reading it.
    if let Some(identity) = identity
        && FileIdentity::of(&path).as_ref() == Some(&identity)
    {
        put(&path, identity, Arc::clone(&state));
    }
    Ok(state)
}

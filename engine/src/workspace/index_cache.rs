//! Owns the process-wide cache of decoded index files used by path-limited snapshots.
//!
//! Decoding a 50,000-entry index costs more than everything else a path-limited snapshot does,
//! and a wave takes two such snapshots (before and after) while `write`/`edit` calls leave the
//! index alone. Git replaces the index by renaming a lock file over it, so the file's identity
//! (device, inode, size, mtime, ctime) changes whenever its content does; as a guard against
//! inode reuse on file systems with coarse timestamps, the identity also includes the trailing
//! checksum git writes over the whole content. An entry is reused only while that identity is
//! unchanged. The cached state also keeps the index timestamp the racy-git check relies on.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

/// How many repositories' indexes are kept.
const CAPACITY: usize = 4;

/// What identifies one version of an index file on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileIdentity {
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
    pub(crate) fn of(path: &Path) -> Option<Self> {
        let meta = std::fs::metadata(path).ok()?;
        #[cfg(unix)]
        use std::os::unix::fs::MetadataExt;
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
    let mut file = std::fs::File::open(path)?;
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
pub(crate) fn get(path: &Path, identity: &FileIdentity) -> Option<Arc<gix::index::State>> {
    let cache = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
    cache
        .iter()
        .find(|cached| cached.path == path && cached.identity == *identity)
        .map(|cached| Arc::clone(&cached.state))
}

/// Remember `state` as the decoded version of the index at `path` with `identity`.
pub(crate) fn put(path: &Path, identity: FileIdentity, state: Arc<gix::index::State>) {
    let mut cache = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
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

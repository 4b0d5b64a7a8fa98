//! Reading one file of a wave from disk: resolved beneath the repository root, only a regular
//! file, at most one byte past the size limit, and abandoned at the first NUL byte.

use crate::snapshot::SkipReason;
use pi_native_hooks_base::safe_open::{Beneath, Resolved};
use std::io::Read;

/// Reads `<root>/<path>` if it resolves inside the root to a regular file, at most one byte
/// past the size limit.
pub fn regular_beneath(root: &Beneath, path: &str, limit: u64) -> Result<Vec<u8>, SkipReason> {
    let (file, stat) = match root.open(path) {
        Ok(Resolved::Regular { file, stat, .. }) => (file, stat),
        Ok(Resolved::NotRegular { kind, via_symlink }) => {
            return Err(SkipReason::NotRegular {
                kind,
                symlink: via_symlink,
            });
        }
        Ok(Resolved::Outside { via_symlink: true }) => {
            return Err(SkipReason::SymlinkOutsideRepository);
        }
        Ok(Resolved::Outside { via_symlink: false }) => {
            return Err(SkipReason::OutsideRepository);
        }
        Ok(Resolved::Dangling) => return Err(SkipReason::DanglingSymlink),
        Ok(Resolved::Absent) => return Err(SkipReason::Vanished),
        Err(error) => {
            return Err(SkipReason::Unreadable {
                error: error.to_string(),
            });
        }
    };
    let on_disk = u64::try_from(stat.st_size).unwrap_or(0);
    if on_disk > limit {
        return Err(SkipReason::TooLarge {
            bytes: on_disk,
            limit,
        });
    }
    let bytes = match read_text_bytes(file, limit, on_disk) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return Err(SkipReason::Binary),
        Err(error) => {
            return Err(SkipReason::Unreadable {
                error: error.to_string(),
            });
        }
    };
    if bytes.len() as u64 > limit {
        // It grew while being read.
        return Err(SkipReason::TooLarge {
            bytes: on_disk.max(bytes.len() as u64),
            limit,
        });
    }
    Ok(bytes)
}

/// Bytes read per step of [`read_text_bytes`].
const READ_CHUNK: usize = 64 * 1024;

/// At most `limit + 1` bytes of `file`, read in chunks, or `None` at the first chunk holding a
/// NUL byte: a binary file is recognised without reading the rest of it (a sparse 4 GiB file
/// costs one chunk, whatever the size limit). `size` only sizes the first allocation.
fn read_text_bytes(file: std::fs::File, limit: u64, size: u64) -> std::io::Result<Option<Vec<u8>>> {
    let capacity = usize::try_from(size.min(64 * 1024 * 1024)).unwrap_or(0);
    let mut bytes = Vec::with_capacity(capacity);
    let mut reader = file.take(limit.saturating_add(1));
    let mut chunk = vec![0; READ_CHUNK];
    loop {
        let read = match reader.read(&mut chunk) {
            Ok(0) => return Ok(Some(bytes)),
            Ok(read) => read,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        let chunk = &chunk[..read];
        if chunk.contains(&0) {
            return Ok(None);
        }
        bytes.extend_from_slice(chunk);
    }
}

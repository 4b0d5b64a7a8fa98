//! Owns refusing file systems whose changes a local watcher does not see: on a network file
//! system another machine's writes produce no inotify event, and FUSE file systems need not
//! produce them at all. Such a worktree is never watched; every snapshot is a full one.

use std::path::Path;

/// The name of `path`'s file system when it is one the watcher cannot vouch for.
#[cfg(target_os = "linux")]
pub(super) fn unsupported(path: &Path) -> Option<String> {
    use nix::sys::statfs::{FUSE_SUPER_MAGIC, FsType, NFS_SUPER_MAGIC, SMB_SUPER_MAGIC, statfs};
    /// Not among nix's constants (linux/magic.h).
    const CIFS_MAGIC_NUMBER: FsType = FsType(0xFF53_4D42);
    const SMB2_MAGIC_NUMBER: FsType = FsType(0xFE53_4D42);
    let kind = statfs(path).ok()?.filesystem_type();
    let known = [
        (NFS_SUPER_MAGIC, "NFS"),
        (SMB_SUPER_MAGIC, "SMB"),
        (CIFS_MAGIC_NUMBER, "CIFS"),
        (SMB2_MAGIC_NUMBER, "SMB2"),
        (FUSE_SUPER_MAGIC, "a FUSE file system"),
    ];
    known
        .iter()
        .find(|(magic, _)| *magic == kind)
        .map(|(_, name)| (*name).to_owned())
}

/// Other systems: the native watcher (FSEvents) is trusted.
#[cfg(not(target_os = "linux"))]
pub(super) fn unsupported(_path: &Path) -> Option<String> {
    None
}

//! The bounds on what a config root may hold and how it may be reached: the size of a file, the
//! entries of a directory, the symbolic links resolved above the root.

use pi_native_hooks_base::safe_open::follow;

/// The largest configuration file read, in bytes.
pub(super) const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// The most entries one configuration directory may list.
pub(super) const MAX_DIR_ENTRIES: usize = 10_000;

/// The most symbolic links resolved among the ancestors of one path (Linux's own limit).
pub const MAX_SYMLINK_HOPS: usize = follow::MAX_SYMLINK_HOPS;

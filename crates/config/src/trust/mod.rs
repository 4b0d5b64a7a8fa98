//! Trust checks over the whole path of the config root, and reads that cannot be redirected.
//!
//! The root is reached by walking down from `/`, one directory descriptor at a time. Every
//! directory above the root (an *ancestor*) must be owned by root or the current user and must
//! not be writable by group or others, unless it has the sticky bit (like `/tmp`): there, other
//! users may create entries but cannot rename or remove ours, and the walk requires the entry it
//! steps into to be owned by root or the user. A symbolic link among the ancestors (`/tmp` or
//! `/var` on macOS, `/home` on some systems, a dotfile manager's `~/.config`) is resolved: the
//! link must be owned by root or the user, it sits in a directory that passed these checks, and
//! its target is walked with the same checks, so nobody else can have placed or redirected it.
//!
//! The root itself and everything below it must be owned by the current user, not group- or
//! world-writable, and never a symbolic link. Below the root nothing is opened by path: each
//! directory and file is opened relative to its already-checked parent descriptor (`openat` with
//! `O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC`), checked with `fstat` on the opened descriptor, listed
//! and read from that same descriptor. Swapping a path for a symlink after the check gains
//! nothing: the swapped name is either refused or never looked at again.
//!
//! The walk, the opens, the listing and the atomic write are `safe_open`'s (the walk from `/` is
//! its `follow::Follow`); this module owns the policies
//! ([`walk::Policy`](pi_native_hooks_base::safe_open::walk::Policy)) the config root and its
//! ancestors are held to, and the errors that name what broke them.

mod ancestors;
mod checks;
mod dir;
mod error;
mod file;
mod limits;

pub use checks::EntryKind;
pub use dir::{DirEntry, TrustedDir, check_dir};
pub use error::{TrustError, escape_name};
pub use file::TrustedFile;
pub use limits::MAX_SYMLINK_HOPS;

#[cfg(test)]
mod tests;

//! The one way the engine opens a path it did not create: never through a symlink it was not
//! told to follow, never blocking, never leaving the directory it was asked to stay beneath, and
//! only once the opened descriptor is known to be the kind expected.
//!
//! * Regular files: [`open_no_follow`] and [`open_at`] look at a path with `lstat` first and open
//!   it only if it is a regular file, with `O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY`, then
//!   check the opened descriptor with `fstat`. A FIFO, socket or device is therefore never opened
//!   (opening a FIFO would wake a writer waiting on it, opening a terminal could make it the
//!   controlling one), and a file swapped for one of them between the `lstat` and the `open` is
//!   caught by the flags and the `fstat`: the open neither blocks nor follows a link, and the
//!   descriptor is dropped unread. Content hashing, `check --fix` and the trust checks use them.
//! * Walks ([`walk`]): a directory opened relative to its parent without following a symlink
//!   ([`walk::open_dir_at`]), a walk down a repository-relative path that refuses every symlink
//!   ([`walk::Descent`]: `check --fix`, the stat scan of a snapshot), and the owner and mode
//!   rules a walk can require of what it steps into ([`walk::Policy`]: the trust checks).
//! * [`follow`]: a walk that follows symlinks itself, so that its caller judges each link and
//!   directory on the way (the trust checks walk from `/` with it, checking owners and modes).
//! * [`Beneath`] resolves a repository-relative path one component at a time from a descriptor
//!   of the repository root, following symlinks itself so that a path (or a link along it) that
//!   leaves the root is refused instead of opened. Analysis uses it.
//! * [`atomic`]: a file replaced by a private temporary file beside it renamed over it
//!   (`check --fix`, `policy test --update`).

pub mod atomic;
mod beneath;
mod file;
pub mod follow;
pub mod walk;

pub use beneath::{Beneath, Resolved};
pub use file::{FileKind, Opened, lexical, open_at, open_no_follow, read_at_most};

//! Owns the synchronisation with the watcher, as watchman does it: write a uniquely named cookie
//! file and wait for its event. Events of one watcher arrive in order, so once the cookie's event
//! is seen every change made before the cookie was written has been recorded.
//!
//! The cookie goes into the repository's git directory (watched on its own, not recursively):
//! git ignores unknown files there, so the cookie never shows in a status, never touches the
//! user's files or ignore rules, and needs no filtering from the worktree's events. It is removed
//! again right after.

use super::super::status::FallbackReason;
use super::events::{COOKIE_PREFIX, Shared};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Cookies written by this process, so that two sessions never share a name.
static NEXT_COOKIE: AtomicU64 = AtomicU64::new(0);

/// Writes a cookie into `git_dir` and waits until `shared` has seen it, at most `timeout`.
pub(crate) fn sync(
    shared: &Shared,
    git_dir: &Path,
    timeout: Duration,
) -> Result<(), FallbackReason> {
    let name = format!(
        "{COOKIE_PREFIX}{}-{}",
        std::process::id(),
        NEXT_COOKIE.fetch_add(1, Ordering::Relaxed)
    );
    let path = git_dir.join(&name);
    if let Err(error) = std::fs::write(&path, b"") {
        return Err(FallbackReason::WatcherError {
            message: format!("cannot write the sync cookie {}: {error}", path.display()),
        });
    }
    let deadline = Instant::now() + timeout;
    let mut pending = shared.lock();
    // The deadline is checked first, so a zero timeout never counts a cookie as seen.
    let seen = loop {
        let now = Instant::now();
        if now >= deadline {
            break false;
        }
        if pending.cookies.remove(&name) {
            break true;
        }
        pending = shared.wait(pending, deadline - now);
    };
    drop(pending);
    // Best effort: a cookie left behind (the process died) is an empty file git ignores.
    let _ = std::fs::remove_file(&path);
    if seen {
        Ok(())
    } else {
        Err(FallbackReason::CookieTimeout {
            millis: u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX),
        })
    }
}

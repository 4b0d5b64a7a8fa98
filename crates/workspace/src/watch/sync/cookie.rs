//! Owns the synchronisation with the watcher, as watchman does it: write a uniquely named cookie
//! file and wait for its event. Events of one watcher arrive in order, so once the cookie's event
//! is seen every change made before the cookie was written has been recorded.
//!
//! The cookie goes into the repository's git directory (watched on its own, not recursively):
//! git ignores unknown files there, so the cookie never shows in a status, never touches the
//! user's files or ignore rules, and needs no filtering from the worktree's events. It is removed
//! again right after. It is created new (`O_CREAT | O_EXCL`): whatever already stands under its
//! name — a symlink planted there, a FIFO, a file — is neither followed, truncated nor opened,
//! and the sync fails (a full snapshot) instead.

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
    if let Err(error) = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
    {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn a_symlink_under_the_cookie_name_is_neither_followed_nor_removed() {
        let git_dir = tempfile::tempdir().expect("a temporary directory");
        let outside = tempfile::tempdir().expect("a temporary directory");
        let target = outside.path().join("precious");
        std::fs::write(&target, "keep me").expect("the target is written");
        // The name the next sync of this process takes (no other test here syncs).
        let name = format!(
            "{COOKIE_PREFIX}{}-{}",
            std::process::id(),
            NEXT_COOKIE.load(Ordering::Relaxed)
        );
        symlink(&target, git_dir.path().join(&name)).expect("the link is planted");
        let shared = Shared::new(git_dir.path().to_path_buf(), 16);
        let outcome = sync(&shared, git_dir.path(), Duration::from_millis(50));
        assert!(
            matches!(outcome, Err(FallbackReason::WatcherError { ref message }) if message.contains("sync cookie")),
            "{outcome:?}"
        );
        assert_eq!(
            std::fs::read_to_string(&target).expect("the target is readable"),
            "keep me"
        );
        assert!(
            git_dir.path().join(&name).symlink_metadata().is_ok(),
            "a name the sync did not create is not removed"
        );
    }
}

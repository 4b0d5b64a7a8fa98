//! Owns what the notify handler records between two synchronisations: the changed paths (a
//! bounded set), the cookies seen, and the first reason the events can no longer be trusted.
//!
//! The handler runs on notify's thread and only records; everything that touches the disk or
//! the watch set happens on the capturing thread at the next synchronisation.

use super::super::status::FallbackReason;
use notify::event::{EventKind, ModifyKind};
use notify::{ErrorKind, Event};
use pi_native_hooks_base::lock;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex, MutexGuard};

/// The name every cookie file starts with, inside the git directory.
pub(crate) const COOKIE_PREFIX: &str = "pi-native-hooks-cookie-";

/// What has happened since the last synchronisation.
#[derive(Debug, Default)]
pub(crate) struct Pending {
    /// Absolute paths the watcher reported in the worktree.
    pub(crate) paths: BTreeSet<PathBuf>,
    /// The first reason the recorded paths may be incomplete.
    pub(crate) broken: Option<FallbackReason>,
    /// File names of the cookies seen in the git directory.
    pub(crate) cookies: BTreeSet<String>,
}

/// The state shared between notify's handler and the capturing thread.
#[derive(Debug)]
pub(crate) struct Shared {
    pending: Mutex<Pending>,
    cookie_seen: Condvar,
    git_dir: PathBuf,
    max_paths: usize,
}

impl Shared {
    pub(crate) fn new(git_dir: PathBuf, max_paths: usize) -> Self {
        Self {
            pending: Mutex::new(Pending::default()),
            cookie_seen: Condvar::new(),
            git_dir,
            max_paths,
        }
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, Pending> {
        lock(&self.pending)
    }

    /// Waits on the cookie condition, at most `timeout`.
    pub(crate) fn wait<'a>(
        &self,
        guard: MutexGuard<'a, Pending>,
        timeout: std::time::Duration,
    ) -> MutexGuard<'a, Pending> {
        self.cookie_seen
            .wait_timeout(guard, timeout)
            .map_or_else(|poison| poison.into_inner().0, |(guard, _)| guard)
    }

    /// Everything recorded since the last call.
    pub(crate) fn take(&self) -> Pending {
        std::mem::take(&mut *self.lock())
    }

    /// Records that the events can no longer be trusted (the first reason wins).
    pub(crate) fn break_with(&self, reason: FallbackReason) {
        let mut pending = self.lock();
        pending.broken.get_or_insert(reason);
    }

    /// notify's handler.
    pub(crate) fn handle(&self, event: notify::Result<Event>) {
        let event = match event {
            Ok(event) => event,
            Err(error) => {
                let reason = match error.kind {
                    ErrorKind::MaxFilesWatch => FallbackReason::WatchLimit { limit: None },
                    _ => FallbackReason::WatcherError {
                        message: error.to_string(),
                    },
                };
                self.break_with(reason);
                return;
            }
        };
        if event.need_rescan() {
            self.break_with(FallbackReason::Overflow);
            return;
        }
        // Opening and closing a file without writing (reads) changes nothing.
        if matches!(event.kind, EventKind::Access(_))
            || matches!(
                event.kind,
                EventKind::Modify(ModifyKind::Name(notify::event::RenameMode::Both))
            )
        {
            return;
        }
        let created = matches!(event.kind, EventKind::Create(_));
        let mut pending = self.lock();
        let mut cookie = false;
        for path in event.paths {
            if let Ok(rest) = path.strip_prefix(&self.git_dir) {
                // Only cookies matter in the git directory: `HEAD`, the index and the config
                // are compared at each synchronisation instead.
                if let Some(name) = cookie_name(rest).filter(|_| created) {
                    cookie |= pending.cookies.insert(name);
                }
                continue;
            }
            if pending.broken.is_some() {
                continue;
            }
            if pending.paths.len() >= self.max_paths && !pending.paths.contains(&path) {
                pending.broken = Some(FallbackReason::TooManyPaths {
                    limit: self.max_paths,
                });
                pending.paths.clear();
                continue;
            }
            pending.paths.insert(path);
        }
        drop(pending);
        if cookie {
            self.cookie_seen.notify_all();
        }
    }
}

/// The cookie's file name if `rest` (relative to the git directory) names one.
fn cookie_name(rest: &Path) -> Option<String> {
    let name = rest.to_str()?;
    name.starts_with(COOKIE_PREFIX).then(|| name.to_owned())
}

//! Owns what a watcher tells the status: whether it is watching, how many snapshots it served
//! and how many fell back, and why the latest one did.

use std::fmt;

/// Why a whole-worktree snapshot was taken in full instead of from the watcher's events.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case", tag = "reason")]
pub enum FallbackReason {
    /// The first snapshot, or the first after the watcher re-armed: nothing to update yet.
    Baseline,
    /// The kernel's event queue overflowed (inotify `IN_Q_OVERFLOW`, notify's rescan flag).
    Overflow,
    /// More paths changed than the watcher remembers between two synchronisations.
    TooManyPaths {
        /// The most paths the watcher remembers between two synchronisations.
        limit: usize,
    },
    /// More directories than the watcher may watch (its own bound or inotify's
    /// `max_user_watches`).
    WatchLimit {
        /// The watcher's own bound; `None` for the system's.
        limit: Option<usize>,
    },
    /// The watcher reported an error, or could not be started.
    WatcherError {
        /// Shown after "watcher error: ".
        message: String,
    },
    /// The synchronisation cookie's event did not arrive in time.
    CookieTimeout {
        /// The bound, in milliseconds.
        millis: u64,
    },
    /// `HEAD` moved, or the index's entries changed (not only their cached stat data).
    HeadOrIndex {
        /// Shown as the whole reason ("HEAD moved").
        what: String,
    },
    /// A file that decides what git ignores or how it reads files changed: a `.gitignore`,
    /// `.gitattributes`, `.gitmodules`, the repository's config or `info/exclude`.
    Rules {
        /// The path that changed (worktree- or `.git`-relative).
        path: String,
    },
    /// The worktree is on a file system whose changes the watcher may not see (a network or
    /// FUSE file system).
    Unsupported {
        /// The file system's name.
        filesystem: String,
    },
    /// Another capture was running (possibly blocked); this one was taken on its own.
    Busy,
    /// A changed path's name is not UTF-8, so only a full status can name it as git does.
    NonUtf8Name {
        /// The name, with the bytes that are not UTF-8 replaced.
        path: String,
    },
    /// A changed path is part of a staged rename or copy, which only a full status pairs.
    StagedRename {
        /// The path that changed (worktree- or `.git`-relative).
        path: String,
    },
}

impl FallbackReason {
    /// A stable code for the reason, as machines read it (the binding's `WatchFallback.code`):
    /// its serialized tag.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Baseline => "baseline",
            Self::Overflow => "overflow",
            Self::TooManyPaths { .. } => "too-many-paths",
            Self::WatchLimit { .. } => "watch-limit",
            Self::WatcherError { .. } => "watcher-error",
            Self::CookieTimeout { .. } => "cookie-timeout",
            Self::HeadOrIndex { .. } => "head-or-index",
            Self::Rules { .. } => "rules",
            Self::Unsupported { .. } => "unsupported",
            Self::Busy => "busy",
            Self::NonUtf8Name { .. } => "non-utf8-name",
            Self::StagedRename { .. } => "staged-rename",
        }
    }
}

impl fmt::Display for FallbackReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Baseline => write!(f, "first snapshot since the watcher (re)started"),
            Self::Overflow => write!(f, "the event queue overflowed"),
            Self::TooManyPaths { limit } => write!(f, "more than {limit} paths changed"),
            Self::WatchLimit { limit: Some(limit) } => {
                write!(f, "more than {limit} directories to watch")
            }
            Self::WatchLimit { limit: None } => write!(
                f,
                "the system's inotify watch limit was reached (raise fs.inotify.max_user_watches)"
            ),
            Self::WatcherError { message } => write!(f, "watcher error: {message}"),
            Self::CookieTimeout { millis } => {
                write!(f, "the watcher did not confirm within {millis} ms")
            }
            Self::HeadOrIndex { what } => write!(f, "{what}"),
            Self::Rules { path } => write!(f, "{path} changed"),
            Self::Unsupported { filesystem } => {
                write!(
                    f,
                    "the worktree is on {filesystem}, which the watcher cannot vouch for"
                )
            }
            Self::Busy => write!(f, "another snapshot was being taken"),
            Self::NonUtf8Name { path } => write!(f, "{path} has a name that is not UTF-8"),
            Self::StagedRename { path } => {
                write!(f, "{path} is part of a staged rename or copy")
            }
        }
    }
}

/// Whether the watcher is running.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum WatchState {
    /// Watching this many directories.
    Watching {
        /// How many directories the armed watcher holds.
        directories: usize,
    },
    /// Not watching now (it re-arms at the next whole-worktree snapshot).
    Unarmed,
    /// Never watching in this session: every whole-worktree snapshot is a full one.
    Unavailable {
        /// Why the watcher is off for the whole session.
        reason: FallbackReason,
    },
}

/// What the status shows about a session's watcher.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct WatchStatus {
    /// Whether it is watching.
    pub state: WatchState,
    /// Whole-worktree snapshots updated from the watcher's events.
    pub watched: u64,
    /// Whole-worktree snapshots taken in full (the first one included).
    pub full: u64,
    /// Why the latest full snapshot was taken.
    pub last_fallback: Option<FallbackReason>,
}

#[cfg(test)]
mod tests {
    use super::FallbackReason;

    /// The code is the serialized tag, for every reason.
    #[test]
    fn codes_are_the_serialized_tags() {
        let reasons = [
            FallbackReason::Baseline,
            FallbackReason::Overflow,
            FallbackReason::TooManyPaths { limit: 1 },
            FallbackReason::WatchLimit { limit: None },
            FallbackReason::WatcherError {
                message: "x".into(),
            },
            FallbackReason::CookieTimeout { millis: 2000 },
            FallbackReason::HeadOrIndex { what: "x".into() },
            FallbackReason::Rules { path: "x".into() },
            FallbackReason::Unsupported {
                filesystem: "nfs".into(),
            },
            FallbackReason::Busy,
            FallbackReason::NonUtf8Name { path: "x".into() },
            FallbackReason::StagedRename { path: "x".into() },
        ];
        let mut codes = std::collections::BTreeSet::new();
        for reason in &reasons {
            let value = serde_json::to_value(reason).expect("serializes");
            assert_eq!(value["reason"], reason.code(), "{reason:?}");
            codes.insert(reason.code());
        }
        assert_eq!(codes.len(), reasons.len(), "codes are distinct");
    }
}

//! Owns [`WatchedWorkspace`]: the watcher of one worktree, the last whole-worktree snapshot it
//! vouches for, and the choice, per snapshot, between updating that one from the watcher's events
//! and taking a full one (counted, with the reason, in [`WatchStatus`]).

use super::dirs::{self, WalkError};
use super::options::WatchOptions;
use super::status::{FallbackReason, WatchState, WatchStatus};
use super::sync::cookie;
use super::sync::events::Shared;
use super::sync::guard::Guard;
use super::sync::update::{ChangeScope, update};
use crate::error::WorkspaceError;
use crate::repo::{self, OpenRepo};
use crate::snapshot::{Scope, WorkspaceSnapshot, capture_with_cancel, index_cache};
use notify::{RecommendedWatcher, RecursiveMode, Watcher};
use pi_native_hooks_base::CancelToken;
use pi_native_hooks_base::lock;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

/// How a whole-worktree snapshot was taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CaptureKind {
    /// Updated from the watcher's events: a path-limited status of this many paths.
    Watched {
        /// Paths (files, directories, nested repositories) the status looked at.
        paths: usize,
    },
    /// Taken in full, for this reason.
    Full {
        /// Why not from the events.
        reason: FallbackReason,
    },
}

/// A whole-worktree snapshot and how it was taken.
#[expect(missing_docs, reason = "`snapshot` names what it holds")]
#[derive(Clone, Debug)]
pub struct WatchedCapture {
    pub snapshot: WorkspaceSnapshot,
    /// How it was taken.
    pub kind: CaptureKind,
}

/// A worktree watched for one session. The watcher starts with the first [`capture`] and stops
/// when this is dropped.
///
/// [`capture`]: WatchedWorkspace::capture
pub struct WatchedWorkspace {
    dir: PathBuf,
    options: WatchOptions,
    /// Held for a whole capture, which may block (a FIFO where git reads a file).
    inner: Mutex<Inner>,
    /// What the last capture published: never held across I/O, so [`WatchedWorkspace::status`]
    /// never waits for a capture.
    published: Mutex<WatchStatus>,
}

struct Inner {
    armed: Option<Armed>,
    /// The last whole-worktree snapshot and what it was taken under, while armed.
    last: Option<(WorkspaceSnapshot, Guard)>,
    /// Set once the worktree cannot be watched at all in this session.
    unavailable: Option<FallbackReason>,
    watched: u64,
    full: u64,
    last_fallback: Option<FallbackReason>,
}

/// A running watcher.
struct Armed {
    watcher: RecommendedWatcher,
    shared: Arc<Shared>,
    workdir: PathBuf,
    git_dir: PathBuf,
    /// Worktree-relative directories watched.
    dirs: BTreeSet<PathBuf>,
    /// Worktree-relative roots of nested repositories, checked at every synchronisation.
    nested: BTreeSet<PathBuf>,
}

/// Files whose change changes the status of paths no event names.
const RULE_FILES: [&str; 3] = [".gitignore", ".gitattributes", ".gitmodules"];

impl std::fmt::Debug for WatchedWorkspace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WatchedWorkspace")
            .field("dir", &self.dir)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl WatchedWorkspace {
    /// A watcher for the worktree containing `dir`, started by the first capture.
    pub fn new(dir: impl Into<PathBuf>, options: WatchOptions) -> Self {
        Self {
            dir: dir.into(),
            options,
            inner: Mutex::new(Inner {
                armed: None,
                last: None,
                unavailable: None,
                watched: 0,
                full: 0,
                last_fallback: None,
            }),
            published: Mutex::new(WatchStatus {
                state: WatchState::Unarmed,
                watched: 0,
                full: 0,
                last_fallback: None,
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        lock(&self.inner)
    }

    /// What the status shows, as the last capture left it. Never waits for a capture.
    pub fn status(&self) -> WatchStatus {
        lock(&self.published).clone()
    }

    fn publish(&self, inner: &Inner) {
        *lock(&self.published) = inner.status();
    }
}

impl Inner {
    fn status(&self) -> WatchStatus {
        let inner = self;
        let state = match (&inner.unavailable, &inner.armed) {
            (Some(reason), _) => WatchState::Unavailable {
                reason: reason.clone(),
            },
            (None, Some(armed)) => WatchState::Watching {
                directories: armed.dirs.len(),
            },
            (None, None) => WatchState::Unarmed,
        };
        WatchStatus {
            state,
            watched: inner.watched,
            full: inner.full,
            last_fallback: inner.last_fallback.clone(),
        }
    }
}

impl WatchedWorkspace {
    /// Test seam: behaves as if the kernel's event queue had overflowed.
    #[doc(hidden)]
    pub fn simulate_overflow(&self) {
        if let Some(armed) = &self.lock().armed {
            armed.shared.break_with(FallbackReason::Overflow);
        }
    }

    /// Test seam: holds the watcher as a capture in progress does, until the result is dropped.
    #[doc(hidden)]
    pub fn hold(&self) -> impl Drop + '_ {
        self.lock()
    }

    /// A snapshot of the whole worktree, equal to [`capture_with_cancel`]'s: from the watcher's
    /// events when it can vouch for them, else a full one (and the watcher re-arms first).
    ///
    /// A capture while another one runs (which may be blocked) is a full one that leaves the
    /// watcher alone ([`FallbackReason::Busy`]).
    pub fn capture(&self, cancel: &CancelToken) -> Result<WatchedCapture, WorkspaceError> {
        let mut inner = match self.inner.try_lock() {
            Ok(inner) => inner,
            Err(std::sync::TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => {
                return Ok(WatchedCapture {
                    snapshot: capture_with_cancel(&self.dir, cancel)?,
                    kind: CaptureKind::Full {
                        reason: FallbackReason::Busy,
                    },
                });
            }
        };
        let result = self.capture_locked(&mut inner, cancel);
        self.publish(&inner);
        result
    }

    fn capture_locked(
        &self,
        inner: &mut Inner,
        cancel: &CancelToken,
    ) -> Result<WatchedCapture, WorkspaceError> {
        let open = repo::open(&self.dir)?;
        let reason = match inner.watched_capture(&open, &self.options, cancel)? {
            Ok((snapshot, paths)) => {
                inner.watched += 1;
                return Ok(WatchedCapture {
                    snapshot,
                    kind: CaptureKind::Watched { paths },
                });
            }
            Err(reason) => reason,
        };
        let mut reason = reason;
        if inner.armed.is_none() && inner.unavailable.is_none() {
            match arm(&open, &self.options) {
                Ok(armed) => inner.armed = Some(armed),
                Err(
                    failure @ (FallbackReason::WatchLimit { .. }
                    | FallbackReason::Unsupported { .. }),
                ) => {
                    inner.unavailable = Some(failure.clone());
                    reason = failure;
                }
                // Tried again at the next whole-worktree snapshot; this one says why not now.
                Err(failure) => reason = failure,
            }
        }
        // The guard is read before the snapshot: a change in between shows at the next compare.
        let guard = Guard::read(&open)?;
        let snapshot = capture_with_cancel(&self.dir, cancel)?;
        inner.last = inner.armed.is_some().then(|| (snapshot.clone(), guard));
        inner.full += 1;
        inner.last_fallback = Some(reason.clone());
        Ok(WatchedCapture {
            snapshot,
            kind: CaptureKind::Full { reason },
        })
    }
}

impl Inner {
    /// The snapshot from the watcher's events and how many paths it looked at, or why not.
    /// Every reason but a changed `HEAD`, index or staged rename also disarms the watcher (its
    /// watch set may be incomplete); a changed `HEAD` or index does too when the index now
    /// tracks a file in a directory that is not watched.
    fn watched_capture(
        &mut self,
        open: &OpenRepo,
        options: &WatchOptions,
        cancel: &CancelToken,
    ) -> Result<Result<(WorkspaceSnapshot, usize), FallbackReason>, WorkspaceError> {
        if let Some(reason) = &self.unavailable {
            return Ok(Err(reason.clone()));
        }
        let (Some(armed), Some((previous, guard))) = (self.armed.as_mut(), self.last.as_ref())
        else {
            return Ok(Err(FallbackReason::Baseline));
        };
        if let Err(reason) = cookie::sync(&armed.shared, &armed.git_dir, options.cookie_timeout) {
            self.disarm();
            return Ok(Err(reason));
        }
        let pending = armed.shared.take();
        if let Some(reason) = pending.broken {
            self.disarm();
            return Ok(Err(reason));
        }
        let guard = match guard.compare(open)? {
            Ok(guard) => guard,
            Err(reason) => {
                // Changed ignore rules may change which directories need a watch, and so may a
                // new index entry: the walk watches an ignored directory once it holds a tracked
                // file (`git add -f`), and only a new walk adds it.
                let rewalk = match reason {
                    FallbackReason::Rules { .. } => true,
                    FallbackReason::HeadOrIndex { .. } => {
                        armed.misses_tracked_dir(&*index_cache::load(open)?)
                    }
                    _ => false,
                };
                if rewalk {
                    self.disarm();
                }
                return Ok(Err(reason));
            }
        };
        let units = match armed.units(&pending.paths) {
            Ok(units) => units,
            Err(reason) => {
                self.disarm();
                return Ok(Err(reason));
            }
        };
        let changed = match armed.scope_of_changes(open, guard.index(), &units, options) {
            Ok(changed) => changed,
            Err(reason) => {
                self.disarm();
                return Ok(Err(reason));
            }
        };
        let looked = changed.files.len() + changed.nested.len();
        match update(previous, &changed, cancel)? {
            Ok(snapshot) => {
                self.last = Some((snapshot.clone(), guard));
                Ok(Ok((snapshot, looked)))
            }
            Err(reason) => Ok(Err(reason)),
        }
    }

    fn disarm(&mut self) {
        self.armed = None;
        self.last = None;
    }
}

impl Armed {
    /// Whether an entry of `index` sits in an existing directory the watch set leaves out (one
    /// the ignore rules kept out before it held a tracked file).
    fn misses_tracked_dir(&self, index: &gix::index::State) -> bool {
        let mut looked = BTreeSet::new();
        for entry in index.entries() {
            let Ok(path) = gix::path::from_bstr(entry.path(index)) else {
                continue;
            };
            let Some(parent) = path.parent() else {
                continue;
            };
            if self.dirs.contains(parent)
                || !looked.insert(parent.to_path_buf())
                || dirs::nested_root(&self.nested, parent).is_some()
            {
                continue;
            }
            if std::fs::symlink_metadata(self.workdir.join(parent)).is_ok_and(|meta| meta.is_dir())
            {
                return true;
            }
        }
        false
    }

    /// The worktree-relative paths to look at for the reported absolute `paths`: a path inside
    /// a nested repository (or its `.git`) stands for the repository's root; `Err` when a rule
    /// file changed.
    fn units(&self, paths: &BTreeSet<PathBuf>) -> Result<BTreeSet<PathBuf>, FallbackReason> {
        let mut units = BTreeSet::new();
        for path in paths {
            let Ok(rel) = path.strip_prefix(&self.workdir) else {
                continue;
            };
            if rel.as_os_str().is_empty() {
                continue;
            }
            let mut unit = PathBuf::new();
            let mut in_git = false;
            for component in rel.components() {
                if component.as_os_str() == ".git" {
                    in_git = true;
                    break;
                }
                unit.push(component);
            }
            if in_git && unit.as_os_str().is_empty() {
                // The worktree's own `.git` (a file in a linked worktree).
                continue;
            }
            if let Some(root) = dirs::nested_root(&self.nested, &unit) {
                unit.clone_from(root);
            }
            if unit.to_str().is_none() {
                return Err(FallbackReason::NonUtf8Name {
                    path: unit.to_string_lossy().into_owned(),
                });
            }
            if !in_git
                && let Some(name) = unit.file_name()
                && RULE_FILES.iter().any(|rule| name == *rule)
            {
                return Err(FallbackReason::Rules {
                    path: unit.display().to_string(),
                });
            }
            units.insert(unit);
        }
        Ok(units)
    }

    /// What to look at for the reported `units`, bringing the watch set up to date on the way:
    /// what is gone is forgotten, a directory there now (new, moved in, or recreated) is walked
    /// and watched again and every file in it looked at, with every index entry below a unit.
    fn scope_of_changes(
        &mut self,
        open: &OpenRepo,
        index: &gix::index::State,
        units: &BTreeSet<PathBuf>,
        options: &WatchOptions,
    ) -> Result<ChangeScope, FallbackReason> {
        let mut files = BTreeSet::new();
        let mut nested: BTreeSet<PathBuf> = self.nested.clone();
        let mut scope = BTreeSet::new();
        for unit in units {
            let Some(name) = unit.to_str() else {
                continue;
            };
            let name = name.replace(std::path::MAIN_SEPARATOR, "/");
            let below = format!("{name}/");
            scope.insert(name);
            if self.nested.contains(unit) {
                continue;
            }
            let is_dir =
                std::fs::symlink_metadata(self.workdir.join(unit)).is_ok_and(|meta| meta.is_dir());
            let known = self.dirs.contains(unit);
            for entry in index
                .prefixed_entries(gix::bstr::BStr::new(below.as_bytes()))
                .unwrap_or_default()
            {
                if let Ok(path) = gix::path::from_bstr(entry.path(index)) {
                    files.insert(path.into_owned());
                }
            }
            if !is_dir {
                let absent = std::fs::symlink_metadata(self.workdir.join(unit)).is_err();
                if known {
                    let gone: Vec<PathBuf> = self
                        .dirs
                        .iter()
                        .filter(|dir| dir.starts_with(unit))
                        .cloned()
                        .collect();
                    for dir in gone {
                        // The kernel dropped these with the directory; notify may still list them.
                        let _ = self.watcher.unwatch(&self.workdir.join(dir));
                    }
                    dirs::forget_below(&mut self.dirs, unit);
                    dirs::forget_below(&mut self.nested, unit);
                    nested.retain(|root| !root.starts_with(unit));
                }
                // A directory that is gone is no file of its own: a path-limited status of its
                // path would report the directory `HEAD` has there as a deleted file. What was
                // below it comes from the index (above) and the previous snapshot.
                if !(known && absent) {
                    files.insert(unit.clone());
                }
                continue;
            }
            dirs::forget_below(&mut self.dirs, unit);
            dirs::forget_below(&mut self.nested, unit);
            nested.retain(|root| !root.starts_with(unit));
            let budget = options.max_watches.saturating_sub(self.dirs.len());
            let found = dirs::walk(open, index, unit, budget, true)
                .map_err(|error| walk_reason(error, options.max_watches))?;
            for dir in found.watch {
                watch_dir(&mut self.watcher, &self.workdir, &dir)?;
                self.dirs.insert(dir);
            }
            self.nested.extend(found.nested.iter().cloned());
            nested.extend(found.nested);
            files.extend(found.files);
            if files.len() > options.max_pending_paths {
                return Err(FallbackReason::TooManyPaths {
                    limit: options.max_pending_paths,
                });
            }
        }
        if let Some(path) = files
            .iter()
            .chain(&nested)
            .find(|path| path.to_str().is_none())
        {
            return Err(FallbackReason::NonUtf8Name {
                path: path.to_string_lossy().into_owned(),
            });
        }
        Ok(ChangeScope {
            scope: Scope::Paths(scope),
            files: files.iter().map(|rel| self.workdir.join(rel)).collect(),
            nested: nested.iter().map(|rel| self.workdir.join(rel)).collect(),
        })
    }
}

fn walk_reason(error: WalkError, max_watches: usize) -> FallbackReason {
    match error {
        WalkError::TooMany => FallbackReason::WatchLimit {
            limit: Some(max_watches),
        },
        WalkError::Rules(message) => FallbackReason::WatcherError { message },
    }
}

fn watch_dir(
    watcher: &mut RecommendedWatcher,
    workdir: &Path,
    rel: &Path,
) -> Result<(), FallbackReason> {
    match watcher.watch(&workdir.join(rel), RecursiveMode::NonRecursive) {
        Ok(()) => Ok(()),
        // Gone again already: its parent's events name it.
        Err(error) if matches!(error.kind, notify::ErrorKind::PathNotFound) => Ok(()),
        Err(error) if matches!(error.kind, notify::ErrorKind::MaxFilesWatch) => {
            Err(FallbackReason::WatchLimit { limit: None })
        }
        Err(error) => Err(FallbackReason::WatcherError {
            message: error.to_string(),
        }),
    }
}

/// Starts a watcher over every directory [`dirs::walk`] finds, and the git directory for cookies.
fn arm(open: &OpenRepo, options: &WatchOptions) -> Result<Armed, FallbackReason> {
    if let Some(filesystem) = super::filesystem::unsupported(&open.workdir) {
        return Err(FallbackReason::Unsupported { filesystem });
    }
    // Reading a FIFO where git expects a file would block every walk: such a repository is
    // left to the full snapshot, which reports it.
    for path in super::sync::guard::rule_files(open) {
        if std::fs::symlink_metadata(&path).is_ok_and(|meta| !meta.is_file()) {
            return Err(FallbackReason::WatcherError {
                message: format!("{} is not a regular file", path.display()),
            });
        }
    }
    let error = |error: notify::Error| FallbackReason::WatcherError {
        message: error.to_string(),
    };
    let git_dir =
        std::path::absolute(open.repo.git_dir()).unwrap_or_else(|_| open.repo.git_dir().to_owned());
    let shared = Arc::new(Shared::new(git_dir.clone(), options.max_pending_paths));
    let handler = Arc::clone(&shared);
    let mut watcher =
        notify::recommended_watcher(move |event| handler.handle(event)).map_err(error)?;
    watcher
        .watch(&git_dir, RecursiveMode::NonRecursive)
        .map_err(error)?;
    let index = index_cache::load(open).map_err(|e| FallbackReason::WatcherError {
        message: e.to_string(),
    })?;
    let found = dirs::walk(open, &index, Path::new(""), options.max_watches, false)
        .map_err(|error| walk_reason(error, options.max_watches))?;
    let mut dirs = BTreeSet::new();
    for dir in found.watch {
        watch_dir(&mut watcher, &open.workdir, &dir)?;
        dirs.insert(dir);
    }
    Ok(Armed {
        watcher,
        shared,
        workdir: open.workdir.clone(),
        git_dir,
        dirs,
        nested: found.nested.into_iter().collect(),
    })
}

//! Owns [`WorkspaceSnapshot`] and the synchronous capture entry points: the full snapshot
//! ([`capture`]) and the path-limited one ([`capture_paths`]), plus the accessors callers use
//! (`HEAD`, dirty entries, [`dirty_paths`](WorkspaceSnapshot::dirty_paths), fingerprint).

pub(crate) mod async_capture;
pub(crate) mod changeset;
pub(crate) mod diff;
pub(crate) mod entry;
pub(crate) mod fingerprint;
pub(crate) mod index_cache;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use gix::bstr::BString;

use crate::error::WorkspaceError;
use crate::git_status::{Limited, full_status, limited_status};
use crate::repo::{self, Head, OpenRepo, worktree_path};
use entry::{Content, DirtyEntry, WorktreeChange};
use fingerprint::{fingerprint, read_content};
use pi_native_hooks_base::CancelToken;

/// Submodules inside submodules are fingerprinted this many levels deep; a deeper dirty one fails
/// the snapshot rather than going unseen.
const MAX_SUBMODULE_DEPTH: usize = 16;

/// Which part of the worktree a snapshot looked at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// The whole worktree: every tracked path, every untracked non-ignored file.
    Full,
    /// Only these repo-relative paths (a path naming a directory covers everything below it).
    Paths(BTreeSet<String>),
}

impl Scope {
    /// `true` if `path` (repo-relative) lies within this scope.
    pub fn contains(&self, path: &str) -> bool {
        match self {
            Scope::Full => true,
            Scope::Paths(paths) => paths.iter().any(|scope| {
                scope.is_empty()
                    || path == scope
                    || path
                        .strip_prefix(scope.as_str())
                        .is_some_and(|rest| rest.starts_with('/'))
            }),
        }
    }
}

/// The state of a git worktree relative to `HEAD` at one moment.
#[derive(Debug, Clone)]
pub struct WorkspaceSnapshot {
    pub(crate) worktree_root: PathBuf,
    pub(crate) head: Head,
    pub(crate) entries: BTreeMap<String, DirtyEntry>,
    pub(crate) scope: Scope,
    /// Path-limited snapshots: the content of every requested path, dirty or clean.
    pub(crate) observed: BTreeMap<String, Content>,
    /// Content of rename/copy sources that are not dirty entries themselves.
    pub(crate) sources: BTreeMap<String, Content>,
    pub(crate) fingerprint: String,
}

/// Snapshot the whole worktree containing `dir` (any directory inside it).
///
/// Equivalent to `git status --porcelain=v2 --untracked-files=all` plus content hashes of the
/// dirty paths. The index file is never written.
pub fn capture(dir: impl AsRef<Path>) -> Result<WorkspaceSnapshot, WorkspaceError> {
    capture_with_cancel(dir, &CancelToken::new())
}

/// [`capture`], stopping early with [`WorkspaceError::Cancelled`] once `cancel` is cancelled.
pub fn capture_with_cancel(
    dir: impl AsRef<Path>,
    cancel: &CancelToken,
) -> Result<WorkspaceSnapshot, WorkspaceError> {
    capture_nested(dir.as_ref(), cancel, 0)
}

/// [`capture_with_cancel`] of a repository `depth` submodules below the one a caller asked for.
fn capture_nested(
    dir: &Path,
    cancel: &CancelToken,
    depth: usize,
) -> Result<WorkspaceSnapshot, WorkspaceError> {
    check_cancel(dir, cancel)?;
    let open = repo::open(dir)?;
    let head = repo::read_head(&open)?;
    let entries = full_status(&open, Vec::new(), cancel)?;
    build(
        open,
        head,
        entries,
        Scope::Full,
        BTreeMap::new(),
        cancel,
        depth,
    )
}

/// Snapshot only `paths` in the worktree containing `dir`.
///
/// `paths` may be absolute or relative to `dir`. For files this stats and hashes just those
/// files and checks only their index entries, `HEAD` tree entries and ignore rules, without a
/// directory walk — cheap enough to run before and after every wave of `write`/`edit` calls.
/// A path naming a directory falls back to a pathspec-limited status of that directory.
///
/// Compare two snapshots of the same paths with [`WorkspaceSnapshot::changed_paths`].
pub fn capture_paths<P: AsRef<Path>>(
    dir: impl AsRef<Path>,
    paths: &[P],
) -> Result<WorkspaceSnapshot, WorkspaceError> {
    capture_paths_with_cancel(dir, paths, &CancelToken::new())
}

/// [`capture_paths`], stopping early with [`WorkspaceError::Cancelled`] once `cancel` is cancelled.
pub fn capture_paths_with_cancel<P: AsRef<Path>>(
    dir: impl AsRef<Path>,
    paths: &[P],
    cancel: &CancelToken,
) -> Result<WorkspaceSnapshot, WorkspaceError> {
    let dir = dir.as_ref();
    check_cancel(dir, cancel)?;
    let open = repo::open(dir)?;
    let base = std::path::absolute(dir).unwrap_or_else(|_| dir.to_owned());
    let requested = paths
        .iter()
        .map(|path| repo::repo_relative(&open.workdir, &base, path.as_ref()))
        .collect::<Result<BTreeSet<String>, _>>()?;
    let head = repo::read_head(&open)?;
    let scope = Scope::Paths(requested.clone());
    let entries = match limited_status(&open, &requested, cancel)? {
        Limited::Entries(entries) => entries,
        Limited::NeedsPathspecStatus => {
            let patterns: Vec<BString> = if requested.iter().any(String::is_empty) {
                Vec::new()
            } else {
                requested
                    .iter()
                    .map(|path| format!(":(literal){path}").into())
                    .collect()
            };
            let mut entries = full_status(&open, patterns, cancel)?;
            entries.retain(|path, _| scope.contains(path));
            entries
        }
    };
    let mut observed = BTreeMap::new();
    for path in requested.iter().filter(|path| !path.is_empty()) {
        check_cancel(&open.workdir, cancel)?;
        observed.insert(path.clone(), read_content(&open.workdir, path, cancel)?);
    }
    build(open, head, entries, scope, observed, cancel, 0)
}

fn check_cancel(path: &Path, cancel: &CancelToken) -> Result<(), WorkspaceError> {
    if cancel.is_cancelled() {
        return Err(WorkspaceError::Cancelled {
            path: path.to_owned(),
        });
    }
    Ok(())
}

/// Hash the content of every dirty path (and rename source) and assemble the snapshot.
///
/// A submodule with modified or untracked content gets the fingerprint of its own snapshot in its
/// content, so that every further edit inside it changes the submodule path's content too.
fn build(
    open: OpenRepo,
    head: Head,
    mut entries: BTreeMap<String, DirtyEntry>,
    scope: Scope,
    observed: BTreeMap<String, Content>,
    cancel: &CancelToken,
    depth: usize,
) -> Result<WorkspaceSnapshot, WorkspaceError> {
    let workdir = open.workdir;
    for entry in entries.values_mut() {
        check_cancel(&workdir, cancel)?;
        entry.content = match observed.get(&entry.path) {
            Some(content) => content.clone(),
            None => read_content(&workdir, &entry.path, cancel)?,
        };
        let dirty_inside = matches!(
            &entry.worktree,
            Some(WorktreeChange::Submodule(change))
                if change.modified_content || change.untracked_content
        );
        if let Content::Repository { changes, .. } = &mut entry.content
            && dirty_inside
        {
            let submodule = worktree_path(&workdir, &entry.path);
            if depth >= MAX_SUBMODULE_DEPTH {
                return Err(WorkspaceError::SubmodulesTooDeep {
                    path: submodule,
                    limit: MAX_SUBMODULE_DEPTH,
                });
            }
            let nested = capture_nested(&submodule, cancel, depth + 1).map_err(|error| {
                if error.is_cancelled() {
                    WorkspaceError::Cancelled {
                        path: workdir.clone(),
                    }
                } else {
                    error
                }
            })?;
            *changes = Some(nested.fingerprint);
        }
    }
    let mut sources = BTreeMap::new();
    for source in entries.values().filter_map(DirtyEntry::source_path) {
        if !entries.contains_key(source) {
            sources.insert(source.to_owned(), read_content(&workdir, source, cancel)?);
        }
    }
    let fingerprint = fingerprint(&head, &entries, &observed, &sources);
    Ok(WorkspaceSnapshot {
        worktree_root: workdir,
        head,
        entries,
        scope,
        observed,
        sources,
        fingerprint,
    })
}

impl WorkspaceSnapshot {
    /// See [`capture`].
    pub fn capture(dir: impl AsRef<Path>) -> Result<Self, WorkspaceError> {
        capture(dir)
    }

    /// See [`capture_paths`].
    pub fn capture_paths<P: AsRef<Path>>(
        dir: impl AsRef<Path>,
        paths: &[P],
    ) -> Result<Self, WorkspaceError> {
        capture_paths(dir, paths)
    }

    /// The root of the worktree all paths are relative to.
    pub fn worktree_root(&self) -> &Path {
        &self.worktree_root
    }

    /// Where `HEAD` pointed.
    pub fn head(&self) -> &Head {
        &self.head
    }

    /// What this snapshot looked at.
    pub fn scope(&self) -> &Scope {
        &self.scope
    }

    /// Every dirty path (staged, changed in the worktree, untracked, conflicted), by path.
    pub fn entries(&self) -> &BTreeMap<String, DirtyEntry> {
        &self.entries
    }

    /// The dirty entry at `path`, if that path is dirty.
    pub fn entry(&self, path: &str) -> Option<&DirtyEntry> {
        self.entries.get(path)
    }

    /// `true` if nothing differs from `HEAD` (within the snapshot's scope).
    pub fn is_clean(&self) -> bool {
        self.entries.is_empty()
    }

    /// The files a pre-commit linter would scan: modified, staged, conflicted and untracked
    /// (not ignored) paths that currently exist as a file, a symlink or another non-directory
    /// (a FIFO or device, which the analysis then reports as not analyzed). Deleted paths,
    /// submodules and directories are left out.
    pub fn dirty_paths(&self) -> BTreeSet<String> {
        self.entries
            .values()
            .filter(|entry| entry.content.is_file_like())
            .map(|entry| entry.path.clone())
            .collect()
    }

    /// 32 hex digits (xxh3-128) over `HEAD`'s id and the status and current content of every
    /// dirty path (for path-limited snapshots: of every requested path). Equal fingerprints mean
    /// no observable change; a second edit of an already-dirty file changes it.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }
}

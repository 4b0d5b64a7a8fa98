//! Which files a `check` scans: the given paths (files or directories, relative to the current
//! directory) or, by default, the changed files of the repository around it.
//!
//! A named directory is walked with the `ignore` crate, as ripgrep and the ast-grep CLI walk:
//! `.gitignore` (inside a git repository, like git), `.ignore`, `.git/info/exclude` and git's
//! global excludes file are honoured, hidden files and directories are skipped, and the entries
//! come sorted by name. `--no-ignore` turns the ignore files off (hidden entries stay skipped, so
//! `.git` is never walked); nothing else is skipped by name, `node_modules` included. A file named
//! on the command line is always analyzed, ignored or not.
//!
//! Symlinks are treated as the ast-grep CLI treats them: a path named on the command line (or
//! listed by git) is followed by the analysis, as long as it stays inside the repository, while a
//! directory walk follows none, neither to files nor to directories. A symlinked TS/TSX file met
//! by a walk is handed on as [`Targets::unfollowed`] so that it is reported, not dropped. Nothing
//! here opens a file: the walk reads directories only, and FIFOs, sockets and devices it meets are
//! passed on for the analysis to report.
//!
//! What cannot be handed to the analysis at all is named in [`Targets::not_analyzed`]: a TS/TSX
//! file whose name is not valid UTF-8 (a [`RepoPath`] is text), and a part of a walk that could
//! not be read.

use pi_native_hooks_analysis::{SkipReason, SkippedFile, language_of};
use pi_native_hooks_base::RepoPath;
use pi_native_hooks_workspace::{
    self as workspace, StagedChange, WorkspaceKind, WorktreeChange, normalize_lexically,
};
use std::path::{Path, PathBuf};

/// Why a TS/TSX file with a name that is not valid UTF-8 is not analyzed.
pub(crate) const NAME_NOT_UTF8: &str = "the file name is not valid UTF-8";

/// What a `check` scans.
#[derive(Debug)]
pub(crate) struct Targets {
    /// The root every path is relative to: the repository's worktree, or the current directory
    /// outside git.
    pub(crate) root: PathBuf,
    /// Root-relative paths to analyze: named, listed by git, or met by a walk (anything but a
    /// directory or a symlink).
    pub(crate) paths: Vec<String>,
    /// Root-relative symlinks a directory walk met and did not follow.
    pub(crate) unfollowed: Vec<String>,
    /// Requested files that cannot reach the analysis, named (lossily) with the reason.
    pub(crate) not_analyzed: Vec<SkippedFile>,
    /// Problems that cut nothing, e.g. an ignore file with a pattern that does not parse.
    pub(crate) warnings: Vec<String>,
}

/// How named directories are walked.
#[derive(Clone, Copy, Debug)]
pub(crate) struct WalkOptions {
    /// Honour `.gitignore`, `.ignore` and git's exclude files (off with `--no-ignore`).
    pub(crate) ignore_files: bool,
}

/// Why the targets of a `check` cannot be resolved; `check` prints it and fails.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TargetError {
    /// No paths were given and the current directory is not in a repository.
    #[error(
        "{} is not inside a git repository; pass the files or directories to check",
        .0.display()
    )]
    NotARepository(PathBuf),
    /// The repository around the current directory could not be read.
    #[error(transparent)]
    Workspace(#[from] workspace::WorkspaceError),
    /// A named path is outside the scan root (lexically, or a symlinked directory leading out).
    #[error("{}: outside {}", path.display(), root.display())]
    Outside {
        /// The path as given.
        path: PathBuf,
        root: PathBuf,
    },
    /// A named path does not exist.
    #[error("{}: no such file or directory", .0.display())]
    Missing(PathBuf),
    /// A named directory could not be walked at all.
    #[error("{}: {error}", path.display())]
    Walk {
        /// The directory as given.
        path: PathBuf,
        error: String,
    },
}

impl Targets {
    fn new(root: PathBuf) -> Self {
        Self {
            root,
            paths: Vec::new(),
            unfollowed: Vec::new(),
            not_analyzed: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// Hands `relative` on to the analysis, or names it as not analyzable when its name is not
    /// UTF-8 and it looks like a TS/TSX file.
    fn push(&mut self, relative: &Path, symlink: bool) {
        let path = root_relative(relative);
        if relative.to_str().is_none() {
            if language_of(&path).is_some() {
                self.not_analyzed.push(not_utf8(path));
            }
        } else if symlink {
            self.unfollowed.push(path);
        } else {
            self.paths.push(path);
        }
    }
}

/// The scan root and the root-relative paths to scan.
pub(crate) fn resolve(
    cwd: &Path,
    paths: &[PathBuf],
    options: WalkOptions,
) -> Result<Targets, TargetError> {
    if paths.is_empty() {
        return changed(cwd);
    }
    let root = match workspace::probe(cwd)? {
        WorkspaceKind::Git { worktree_root } => worktree_root,
        WorkspaceKind::NotGit { .. } => cwd.to_path_buf(),
    };
    let mut targets = Targets::new(root.clone());
    for path in paths {
        let absolute = normalize_lexically(&cwd.join(path));
        let outside = || TargetError::Outside {
            path: path.clone(),
            root: root.clone(),
        };
        let relative = absolute
            .strip_prefix(&root)
            .map_err(|_| outside())?
            .to_path_buf();
        let Ok(meta) = std::fs::symlink_metadata(&absolute) else {
            return Err(TargetError::Missing(path.clone()));
        };
        // A named directory is walked even when it is a symlink (as the ast-grep CLI does), but
        // only if it stays inside the root.
        let is_dir = meta.is_dir() || (meta.is_symlink() && absolute.is_dir());
        if is_dir {
            if meta.is_symlink() && !inside(&root, &absolute) {
                return Err(outside());
            }
            walk(&root, &absolute, options, &mut targets).map_err(|error| TargetError::Walk {
                path: path.clone(),
                error,
            })?;
        } else {
            targets.push(&relative, false);
        }
    }
    Ok(targets)
}

/// The changed files of the repository around `cwd`, as git lists them (ignore rules applied by
/// git's status): those that exist as a file, a symlink or another non-directory. gix names a
/// path that is not UTF-8 lossily, so such a file is found under no name; a listed TS/TSX path
/// holding U+FFFD that was not deleted yet is absent is reported as such a name.
fn changed(cwd: &Path) -> Result<Targets, TargetError> {
    let snapshot = workspace::capture(cwd).map_err(|error| {
        if error.is_not_a_repository() {
            TargetError::NotARepository(cwd.to_path_buf())
        } else {
            error.into()
        }
    })?;
    let mut targets = Targets::new(snapshot.worktree_root().to_path_buf());
    for entry in snapshot.entries().values() {
        if entry.content.is_file_like() {
            targets.paths.push(entry.path.clone());
            continue;
        }
        let deleted = matches!(entry.worktree, Some(WorktreeChange::Deleted))
            || (entry.staged == Some(StagedChange::Deleted) && entry.worktree.is_none());
        if entry.path.contains(char::REPLACEMENT_CHARACTER)
            && !entry.content.exists()
            && !deleted
            && language_of(&entry.path).is_some()
        {
            targets.not_analyzed.push(not_utf8(entry.path.clone()));
        }
    }
    Ok(targets)
}

fn not_utf8(path: String) -> SkippedFile {
    SkippedFile {
        path,
        reason: SkipReason::Unreadable {
            error: NAME_NOT_UTF8.to_owned(),
        },
    }
}

/// `true` if `path` resolves (following symlinks) to somewhere inside `root`.
fn inside(root: &Path, path: &Path) -> bool {
    match (root.canonicalize(), path.canonicalize()) {
        (Ok(root), Ok(path)) => path.starts_with(root),
        _ => false,
    }
}

/// `relative` (already stripped of the root) as a [`RepoPath`] string.
fn root_relative(relative: &Path) -> String {
    RepoPath::from_relative(relative)
        .map(RepoPath::into_string)
        .unwrap_or_default()
}

/// Walks `dir` (inside `root`) into `out`. A part of the tree that cannot be read is named in
/// [`Targets::not_analyzed`]; only a directory that cannot be read at all is an error.
fn walk(root: &Path, dir: &Path, options: WalkOptions, out: &mut Targets) -> Result<(), String> {
    let mut builder = ignore::WalkBuilder::new(dir);
    builder
        .standard_filters(options.ignore_files)
        // Hidden entries stay skipped under `--no-ignore`: `.git` is never walked.
        .hidden(true)
        .follow_links(false)
        .sort_by_file_name(std::ffi::OsStr::cmp);
    for entry in builder.build() {
        let entry = match entry {
            Ok(entry) => entry,
            Err(error) => {
                let path = error_path(&error).unwrap_or(dir);
                if path == dir {
                    return Err(error.to_string());
                }
                let name = path
                    .strip_prefix(root)
                    .map_or_else(|_| path.to_string_lossy().into_owned(), root_relative);
                out.not_analyzed.push(SkippedFile {
                    path: name,
                    reason: SkipReason::Unreadable {
                        error: format!("cannot walk it: {}", io_message(&error)),
                    },
                });
                continue;
            }
        };
        if let Some(error) = entry.error() {
            out.warnings.push(error.to_string());
        }
        // The entry's own type (`lstat`): a symlink is never followed.
        let Some(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            continue;
        }
        // The walk may have entered through a symlinked directory named on the command line, so
        // paths are made relative to the root lexically, like the directory itself.
        let Ok(relative) = entry.path().strip_prefix(root) else {
            continue;
        };
        out.push(relative, kind.is_symlink());
    }
    Ok(())
}

/// The path an error of the walk is about, if it names one.
fn error_path(error: &ignore::Error) -> Option<&Path> {
    match error {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        ignore::Error::Loop { child, .. } => Some(child),
        _ => None,
    }
}

/// The innermost message of an error of the walk (without the path it is already named by).
fn io_message(error: &ignore::Error) -> String {
    match error {
        ignore::Error::WithPath { err, .. }
        | ignore::Error::WithDepth { err, .. }
        | ignore::Error::WithLineNumber { err, .. } => io_message(err),
        other => other.to_string(),
    }
}

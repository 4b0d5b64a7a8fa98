//! Which files a `check` scans: the given paths (files or directories, relative to the current
//! directory) or, by default, the changed files of the repository around it.
//!
//! Symlinks are treated as the ast-grep CLI treats them: a path named on the command line (or
//! listed by git) is followed by the analysis, as long as it stays inside the repository, while a
//! directory walk follows none, neither to files nor to directories. A symlinked TS/TSX file met
//! by a walk is handed on as [`Targets::unfollowed`] so that it is reported, not dropped. Nothing
//! here opens a file: the walk reads directories only, and FIFOs, sockets and devices it meets are
//! passed on for the analysis to report.

use crate::paths::RepoPath;
use crate::workspace::{self, WorkspaceKind, normalize_lexically};
use std::path::{Path, PathBuf};

/// Directories never descended into when a directory is given.
const SKIPPED_DIRS: &[&str] = &["node_modules", "target", "dist"];

/// What a `check` scans.
#[derive(Debug)]
pub(super) struct Targets {
    /// The root every path is relative to: the repository's worktree, or the current directory
    /// outside git.
    pub(super) root: PathBuf,
    /// Root-relative paths to analyze: named, listed by git, or met by a walk (anything but a
    /// directory or a symlink).
    pub(super) paths: Vec<String>,
    /// Root-relative symlinks a directory walk met and did not follow.
    pub(super) unfollowed: Vec<String>,
}

/// Why the targets of a `check` cannot be resolved; `check` prints it and fails.
#[derive(Debug, thiserror::Error)]
pub(super) enum TargetError {
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
        /// The scan root.
        root: PathBuf,
    },
    /// A named path does not exist.
    #[error("{}: no such file or directory", .0.display())]
    Missing(PathBuf),
    /// A named directory could not be walked.
    #[error("{}: {error}", path.display())]
    Walk {
        /// The directory as given.
        path: PathBuf,
        /// What failed.
        error: std::io::Error,
    },
}

/// The scan root and the root-relative paths to scan.
pub(super) fn resolve(cwd: &Path, paths: &[PathBuf]) -> Result<Targets, TargetError> {
    if paths.is_empty() {
        let snapshot = workspace::capture(cwd).map_err(|error| {
            if error.is_not_a_repository() {
                TargetError::NotARepository(cwd.to_path_buf())
            } else {
                error.into()
            }
        })?;
        return Ok(Targets {
            root: snapshot.worktree_root().to_path_buf(),
            paths: snapshot.dirty_paths().into_iter().collect(),
            unfollowed: Vec::new(),
        });
    }
    let root = match workspace::probe(cwd)? {
        WorkspaceKind::Git { worktree_root } => worktree_root,
        WorkspaceKind::NotGit { .. } => cwd.to_path_buf(),
    };
    let mut targets = Targets {
        root: root.clone(),
        paths: Vec::new(),
        unfollowed: Vec::new(),
    };
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
            walk(&root, &absolute, &mut targets).map_err(|error| TargetError::Walk {
                path: path.clone(),
                error,
            })?;
        } else {
            targets.paths.push(root_relative(&relative));
        }
    }
    Ok(targets)
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

fn walk(root: &Path, dir: &Path, out: &mut Targets) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        // The entry's own type (`lstat`): a symlink is never followed.
        let kind = entry.file_type()?;
        if kind.is_dir() {
            if !name.starts_with('.') && !SKIPPED_DIRS.contains(&name.as_ref()) {
                walk(root, &entry.path(), out)?;
            }
            continue;
        }
        // The walk may have entered through a symlinked directory named on the command line, so
        // paths are made relative to the root lexically, like the directory itself.
        let path = entry.path();
        let Ok(relative) = path.strip_prefix(root) else {
            continue;
        };
        if kind.is_symlink() {
            out.unfollowed.push(root_relative(relative));
        } else {
            out.paths.push(root_relative(relative));
        }
    }
    Ok(())
}

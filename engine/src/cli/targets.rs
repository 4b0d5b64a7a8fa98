//! Which files a `check` scans: the given paths (files or directories, relative to the current
//! directory) or, by default, the changed files of the repository around it.

use crate::workspace::{self, WorkspaceKind, normalize_lexically};
use std::path::{Path, PathBuf};

/// Directories never descended into when a directory is given.
const SKIPPED_DIRS: &[&str] = &["node_modules", "target", "dist"];

/// The scan root and the root-relative paths to scan.
pub(super) fn resolve(cwd: &Path, paths: &[PathBuf]) -> Result<(PathBuf, Vec<String>), String> {
    if paths.is_empty() {
        let snapshot = workspace::capture(cwd).map_err(|error| {
            if error.is_not_a_repository() {
                format!(
                    "{} is not inside a git repository; pass the files or directories to check",
                    cwd.display()
                )
            } else {
                error.to_string()
            }
        })?;
        let root = snapshot.worktree_root().to_path_buf();
        return Ok((root, snapshot.dirty_paths().into_iter().collect()));
    }
    let root = match workspace::probe(cwd).map_err(|error| error.to_string())? {
        WorkspaceKind::Git { worktree_root } => worktree_root,
        WorkspaceKind::NotGit { .. } => cwd.to_path_buf(),
    };
    let mut out = Vec::new();
    for path in paths {
        let absolute = normalize_lexically(&cwd.join(path));
        let relative = absolute
            .strip_prefix(&root)
            .map_err(|_| format!("{}: outside {}", path.display(), root.display()))?
            .to_path_buf();
        if absolute.is_dir() {
            walk(&root, &absolute, &mut out)
                .map_err(|error| format!("{}: {error}", path.display()))?;
        } else if absolute.exists() {
            out.push(slash_path(&relative));
        } else {
            return Err(format!("{}: no such file or directory", path.display()));
        }
    }
    Ok((root, out))
}

fn slash_path(path: &Path) -> String {
    path.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let kind = entry.file_type()?;
        if kind.is_dir() {
            if !name.starts_with('.') && !SKIPPED_DIRS.contains(&name.as_ref()) {
                walk(root, &entry.path(), out)?;
            }
        } else if kind.is_file()
            && let Ok(relative) = entry.path().strip_prefix(root)
        {
            out.push(slash_path(relative));
        }
    }
    Ok(())
}

//! Owns finding and opening the repository (`gix::discover`), reading `HEAD`, building the
//! worktree's ignore rules, and turning caller-supplied paths into repo-relative `/`-separated
//! strings.

use std::path::{Component, Path, PathBuf};

use super::error::WorkspaceError;
use pi_native_hooks_base::RepoPath;

/// Where `HEAD` points when the snapshot was taken.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Head {
    /// The full reference name `HEAD` points to (e.g. `refs/heads/main`), `None` when detached.
    pub name: Option<String>,
    /// The commit id (hex) `HEAD` resolves to, `None` for an unborn branch.
    pub id: Option<String>,
}

/// An opened repository with an absolute worktree root.
pub(crate) struct OpenRepo {
    pub(crate) repo: gix::Repository,
    /// The worktree root as gix reports it, made absolute.
    pub(crate) workdir: PathBuf,
}

/// Discover the repository containing `dir` and require it to have a worktree.
pub(crate) fn open(dir: &Path) -> Result<OpenRepo, WorkspaceError> {
    let repo = gix::discover(dir).map_err(|source| classify_discover_error(dir, source))?;
    let Some(workdir) = repo.workdir() else {
        return Err(WorkspaceError::BareRepository {
            git_dir: repo.git_dir().to_owned(),
        });
    };
    let workdir = std::path::absolute(workdir).unwrap_or_else(|_| workdir.to_owned());
    Ok(OpenRepo { repo, workdir })
}

fn classify_discover_error(dir: &Path, source: gix::Error) -> WorkspaceError {
    use gix::discover::upwards::Error as Upwards;
    let not_found = matches!(
        source.downcast_any_ref::<Upwards>(),
        Some(
            Upwards::NoGitRepository { .. }
                | Upwards::NoGitRepositoryWithinCeiling { .. }
                | Upwards::NoGitRepositoryWithinFs { .. }
        )
    );
    if not_found {
        WorkspaceError::NotARepository {
            path: dir.to_owned(),
        }
    } else {
        WorkspaceError::Open {
            path: dir.to_owned(),
            source,
        }
    }
}

/// Read `HEAD`'s symbolic name and commit id.
pub(crate) fn read_head(open: &OpenRepo) -> Result<Head, WorkspaceError> {
    let head = open.repo.head().map_err(WorkspaceError::git(
        &open.workdir,
        "reading HEAD",
        "check that .git/HEAD and the branch it names are readable",
    ))?;
    Ok(Head {
        name: head.referent_name().map(|name| name.as_bstr().to_string()),
        id: head.id().map(|id| id.detach().to_string()),
    })
}

/// The ignore rules of `open`'s worktree (its `.gitignore` files, `info/exclude` and
/// `core.excludesFile`), to ask about paths the index does not track.
///
/// The stack is built over an empty index on purpose. Ignore rules only judge untracked paths,
/// and every caller checks trackedness against the real index itself (an untracked candidate has
/// no index entry; an ignored directory that holds tracked files is still walked). Given the real
/// index, gix would map each `.gitignore` it lists to a blob id, a pass over the whole index on
/// every call; without it, `.gitignore` files are read from the worktree only, which is where the
/// rules for untracked files live. The one difference from git: a `.gitignore` that a sparse
/// checkout keeps out of the worktree (skip-worktree), whose rules git reads from the index, is
/// not read.
pub(crate) fn worktree_excludes(open: &OpenRepo) -> Result<gix::AttributeStack<'_>, gix::Error> {
    let empty = gix::index::State::new(open.repo.object_hash());
    open.repo.excludes(
        &empty,
        None,
        gix::worktree::stack::state::ignore::Source::WorktreeThenIdMappingIfNotSkipped,
    )
}

/// Turn `path` (absolute, or relative to `base`) into a repo-relative `/`-separated path.
///
/// The last component is never resolved (it may be a symlink or not exist yet); parents are
/// canonicalized only when a purely lexical comparison fails (e.g. `/tmp` vs `/private/tmp`).
/// Returns an empty string for the worktree root itself.
pub(crate) fn repo_relative(
    workdir: &Path,
    base: &Path,
    path: &Path,
) -> Result<String, WorkspaceError> {
    let absolute = normalize_lexically(&if path.is_absolute() {
        path.to_owned()
    } else {
        base.join(path)
    });
    let root = normalize_lexically(workdir);
    if let Ok(rel) = absolute.strip_prefix(&root) {
        return Ok(slash_or_root(rel));
    }
    let canonical_root = root.canonicalize().unwrap_or(root);
    if let Ok(rel) = absolute.strip_prefix(&canonical_root) {
        return Ok(slash_or_root(rel));
    }
    // Resolve the parent directories (not the last component) and retry.
    if let (Some(parent), Some(name)) = (absolute.parent(), absolute.file_name()) {
        let mut existing = parent.to_owned();
        let mut missing = Vec::new();
        loop {
            if let Ok(canonical) = existing.canonicalize() {
                let mut full = canonical;
                full.extend(missing.iter().rev());
                full.push(name);
                if let Ok(rel) = full.strip_prefix(&canonical_root) {
                    return Ok(slash_or_root(rel));
                }
                break;
            }
            match (
                existing.file_name().map(ToOwned::to_owned),
                existing.parent(),
            ) {
                (Some(component), Some(up)) => {
                    missing.push(component);
                    existing = up.to_owned();
                }
                _ => break,
            }
        }
    }
    Err(WorkspaceError::PathOutsideWorktree {
        repo: workdir.to_owned(),
        path: path.to_owned(),
    })
}

/// Remove `.` components and resolve `..` against the preceding component, without touching the
/// file system.
pub fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push(component);
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// `rel` as a [`RepoPath`] string, or the empty string for the worktree root itself.
fn slash_or_root(rel: &Path) -> String {
    RepoPath::from_relative(rel)
        .map(RepoPath::into_string)
        .unwrap_or_default()
}

/// Absolute path of a repo-relative `/`-separated path.
pub(crate) fn worktree_path(workdir: &Path, rela: &str) -> PathBuf {
    let mut path = workdir.to_owned();
    path.extend(rela.split('/').filter(|part| !part.is_empty()));
    path
}

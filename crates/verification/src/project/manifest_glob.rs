//! Owns finding the manifests a verification policy's `PROJECT.manifests` glob matches
//! (`packages/*/package.json`): a bounded walk of the repository worktree that honours
//! `.gitignore` as `check` does, never follows a symbolic link, and names every match it cannot
//! use (a symlink, a name that is not UTF-8 or holds a control or invisible character) instead
//! of skipping it silently.

use globset::{GlobBuilder, GlobMatcher};
use pi_native_hooks_base::RepoPath;
use pi_native_hooks_policy::unsafe_command_char;
use std::path::Path;

/// The most projects one glob may match; past it the others are named as not matched.
pub const MAX_GLOB_PROJECTS: usize = 64;
/// The most worktree entries one glob's walk visits.
pub const MAX_GLOB_WALK_ENTRIES: usize = 50_000;
/// How deep a glob with `**` is followed below the repository root.
const MAX_GLOB_DEPTH: usize = 16;

/// What a glob matched.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GlobMatches {
    /// The directories of the matched manifests, relative to the repository root (`None` for a
    /// manifest at the root), sorted.
    pub dirs: Vec<Option<RepoPath>>,
    /// Matches that cannot be projects, and limits that were hit.
    pub skipped: Vec<GlobSkip>,
}

/// A match of a glob that is not a project, or a limit of the walk.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GlobSkip {
    /// A symbolic link where the glob would look for a project: never followed (it could lead
    /// outside the repository).
    #[error("{path}: a symbolic link, not followed")]
    Symlink {
        /// The link, relative to the repository root (lossy when not UTF-8).
        path: String,
    },
    /// A directory whose name is not UTF-8, or holds a control or invisible character: its
    /// command could not be named exactly.
    #[error("{path}: {reason}; rename the directory to make it a project")]
    BadName {
        /// The manifest, relative to the repository root (lossy when not UTF-8).
        path: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// More than [`MAX_GLOB_PROJECTS`] matches.
    #[error(
        "more than {MAX_GLOB_PROJECTS} manifests match; from {first_unused} on they are not projects"
    )]
    TooManyProjects {
        /// The first match left out.
        first_unused: String,
    },
    /// The walk visited [`MAX_GLOB_WALK_ENTRIES`] entries and stopped.
    #[error(
        "the walk stopped after {MAX_GLOB_WALK_ENTRIES} entries; manifests beyond are not projects (narrow the glob)"
    )]
    WalkLimit,
    /// The walk could not read part of the worktree.
    #[error("{0}")]
    Walk(String),
}

/// The glob as the walk matches it.
struct Glob {
    matcher: GlobMatcher,
    depth: usize,
}

/// Finds the manifests under `root` (a git worktree root) that `glob` matches. The glob was
/// validated when its policy loaded; one that does not compile matches nothing.
pub fn match_manifests(root: &Path, glob: &str) -> GlobMatches {
    let mut out = GlobMatches::default();
    let Ok(compiled) = GlobBuilder::new(glob).literal_separator(true).build() else {
        return out;
    };
    let glob = Glob {
        matcher: compiled.compile_matcher(),
        depth: if glob.contains("**") {
            MAX_GLOB_DEPTH
        } else {
            glob.split('/').count()
        },
    };
    let manifest = glob
        .matcher
        .glob()
        .glob()
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .to_owned();
    let walk = ignore::WalkBuilder::new(root)
        .max_depth(Some(glob.depth))
        .follow_links(false)
        .require_git(false)
        .sort_by_file_path(Ord::cmp)
        .build();
    let mut visited = 0usize;
    for entry in walk {
        visited += 1;
        if visited > MAX_GLOB_WALK_ENTRIES {
            out.skipped.push(GlobSkip::WalkLimit);
            break;
        }
        let entry = match entry {
            Ok(entry) => entry,
            Err(error) => {
                out.skipped.push(GlobSkip::Walk(error.to_string()));
                continue;
            }
        };
        let Ok(relative) = entry.path().strip_prefix(root) else {
            continue;
        };
        if relative.as_os_str().is_empty() {
            continue;
        }
        let lossy = relative.to_string_lossy().into_owned();
        let Some(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_symlink() {
            if glob.matcher.is_match(relative.join(&manifest)) || glob.matcher.is_match(relative) {
                out.skipped.push(GlobSkip::Symlink { path: lossy });
            }
            continue;
        }
        if kind.is_dir() || !glob.matcher.is_match(relative) {
            continue;
        }
        let Some(text) = relative.to_str() else {
            out.skipped.push(GlobSkip::BadName {
                path: lossy,
                reason: "the path is not valid UTF-8",
            });
            continue;
        };
        let dir = text.rsplit_once('/').map(|(dir, _)| dir);
        if let Some(dir) = dir
            && (unsafe_command_char(dir).is_some() || dir.contains(['\t', '\n']))
        {
            out.skipped.push(GlobSkip::BadName {
                path: lossy,
                reason: "the directory name holds a control, Unicode space or invisible character",
            });
            continue;
        }
        let dir = match dir.map(RepoPath::new).transpose() {
            Ok(dir) => dir,
            Err(error) => {
                out.skipped.push(GlobSkip::Walk(error.to_string()));
                continue;
            }
        };
        if out.dirs.len() == MAX_GLOB_PROJECTS {
            out.skipped.push(GlobSkip::TooManyProjects {
                first_unused: lossy,
            });
            break;
        }
        out.dirs.push(dir);
    }
    out.dirs.sort();
    out.dirs.dedup();
    out
}

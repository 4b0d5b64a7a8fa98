//! Owns how a path relative to a repository (or to a scan root) is written: [`RepoPath`], and the
//! one way a file-system path becomes one ([`RepoPath::from_relative`], [`relative_to`]).
//! Findings, diagnostics, change sets, the CLI's targets and the doctor all name files this way.

use serde::{Deserialize, Serialize};
use std::borrow::Borrow;
use std::fmt;
use std::path::{Component, Path};

/// A file's path relative to a repository's worktree (or a scan root): `/`-separated, never
/// empty, never absolute, with no `.` or `..` segment, no empty segment and no NUL.
///
/// It is validated once, when it is made ([`RepoPath::new`], [`RepoPath::from_relative`]), so a
/// holder never checks it again. It serializes as the plain string, so JSON output and state
/// files are the same as with a `String`.
///
/// Names that are not valid UTF-8: a `RepoPath` is text, so [`RepoPath::from_relative`] writes
/// such a component lossily (U+FFFD). Files with such names never reach analysis by this path:
/// `check` names a TS/TSX one as not analyzed ("the file name is not valid UTF-8") and the config
/// root refuses to load them; the lossy form only names them.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct RepoPath(String);

/// Why a string is not a [`RepoPath`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RepoPathError {
    /// The empty string (the root itself is not a file path).
    #[error("the path is empty")]
    Empty,
    /// Starts with `/`.
    #[error("{0:?} is absolute, not relative to the repository")]
    Absolute(String),
    /// Has a `.`, `..` or empty segment.
    #[error("{0:?} has a `.`, `..` or empty segment")]
    Segment(String),
    /// Contains a NUL byte.
    #[error("{0:?} contains a NUL byte")]
    Nul(String),
}

impl RepoPath {
    /// Validates `path` as a repository-relative, `/`-separated path.
    ///
    /// # Errors
    /// [`RepoPathError`] names the rule `path` breaks.
    pub fn new(path: impl Into<String>) -> Result<Self, RepoPathError> {
        let path = path.into();
        if path.is_empty() {
            return Err(RepoPathError::Empty);
        }
        if path.contains('\0') {
            return Err(RepoPathError::Nul(path));
        }
        if path.starts_with('/') {
            return Err(RepoPathError::Absolute(path));
        }
        if path
            .split('/')
            .any(|segment| segment.is_empty() || segment == "." || segment == "..")
        {
            return Err(RepoPathError::Segment(path));
        }
        Ok(RepoPath(path))
    }

    /// The relative file-system path `relative` (already stripped of its root) written with `/`
    /// separators; `.` components are dropped, a non-UTF-8 component is written lossily.
    ///
    /// # Errors
    /// [`RepoPathError::Empty`] for the root itself, and the error of [`RepoPath::new`] when
    /// `relative` is absolute or climbs out with `..`.
    pub fn from_relative(relative: &Path) -> Result<Self, RepoPathError> {
        let mut out = String::new();
        for component in relative.components() {
            let part = match component {
                Component::CurDir => continue,
                Component::Normal(part) => part.to_string_lossy(),
                Component::ParentDir => "..".into(),
                Component::RootDir | Component::Prefix(_) => {
                    return Err(RepoPathError::Absolute(
                        relative.to_string_lossy().into_owned(),
                    ));
                }
            };
            if !out.is_empty() {
                out.push('/');
            }
            out.push_str(&part);
        }
        RepoPath::new(out)
    }

    /// The path as a string.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The path as an owned string.
    pub fn into_string(self) -> String {
        self.0
    }
}

/// `path` relative to `root` with `/` separators, or `None` when it lies outside `root` or is
/// `root` itself. Compares lexically first and falls back to canonical paths (the parent
/// resolved, the last component kept, since it may be a symlink or not exist yet) when the
/// lexical comparison fails, e.g. for a symlinked temporary directory.
pub fn relative_to(root: &Path, path: &Path) -> Option<RepoPath> {
    let lexical = path.strip_prefix(root).ok().map(Path::to_path_buf);
    let relative = lexical.or_else(|| {
        let canonical_root = root.canonicalize().ok()?;
        let parent = path.parent()?.canonicalize().ok()?;
        let full = parent.join(path.file_name()?);
        full.strip_prefix(canonical_root)
            .ok()
            .map(Path::to_path_buf)
    })?;
    RepoPath::from_relative(&relative).ok()
}

impl TryFrom<String> for RepoPath {
    type Error = RepoPathError;

    fn try_from(path: String) -> Result<Self, Self::Error> {
        RepoPath::new(path)
    }
}

impl From<RepoPath> for String {
    fn from(path: RepoPath) -> Self {
        path.0
    }
}

impl AsRef<str> for RepoPath {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for RepoPath {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for RepoPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_accepts_slash_separated_relative_paths() {
        assert_eq!(RepoPath::new("src/a.ts").unwrap().as_str(), "src/a.ts");
        assert_eq!(RepoPath::new("a").unwrap().to_string(), "a");
    }

    #[test]
    fn new_rejects_what_is_not_a_repository_path() {
        assert_eq!(RepoPath::new(""), Err(RepoPathError::Empty));
        assert!(matches!(
            RepoPath::new("/a"),
            Err(RepoPathError::Absolute(_))
        ));
        for bad in ["a/../b", "..", "a//b", "a/", "./a"] {
            assert!(
                matches!(RepoPath::new(bad), Err(RepoPathError::Segment(_))),
                "{bad}"
            );
        }
        assert!(matches!(RepoPath::new("a\0b"), Err(RepoPathError::Nul(_))));
    }

    #[test]
    fn from_relative_joins_components_with_slashes() {
        let path = Path::new("src").join("lib").join("a.ts");
        assert_eq!(
            RepoPath::from_relative(&path).unwrap().as_str(),
            "src/lib/a.ts"
        );
        assert_eq!(
            RepoPath::from_relative(Path::new("./a/./b"))
                .unwrap()
                .as_str(),
            "a/b"
        );
        assert_eq!(
            RepoPath::from_relative(Path::new("")),
            Err(RepoPathError::Empty)
        );
        assert!(RepoPath::from_relative(Path::new("../a")).is_err());
        assert!(RepoPath::from_relative(Path::new("/a")).is_err());
    }

    #[test]
    fn relative_to_strips_the_root_or_says_outside() {
        let root = Path::new("/repo");
        assert_eq!(
            relative_to(root, Path::new("/repo/src/a.ts")).map(RepoPath::into_string),
            Some("src/a.ts".to_owned())
        );
        assert_eq!(relative_to(root, Path::new("/repo")), None);
        assert_eq!(relative_to(root, Path::new("/elsewhere/a.ts")), None);
    }

    #[test]
    fn serializes_as_the_plain_string_and_validates_on_read() {
        let path = RepoPath::new("src/a.ts").unwrap();
        assert_eq!(serde_json::to_string(&path).unwrap(), "\"src/a.ts\"");
        let back: RepoPath = serde_json::from_str("\"src/a.ts\"").unwrap();
        assert_eq!(back, path);
        assert!(serde_json::from_str::<RepoPath>("\"../x\"").is_err());
    }

    #[cfg(unix)]
    #[test]
    fn a_non_utf8_component_is_written_lossily() {
        use std::os::unix::ffi::OsStrExt;
        let name = std::ffi::OsStr::from_bytes(b"a\xffb.ts");
        let path = RepoPath::from_relative(Path::new(name)).unwrap();
        assert_eq!(path.as_str(), "a\u{fffd}b.ts");
    }
}

//! Where configuration comes from, and whether it can be trusted.
//!
//! Files: `root` (the personal root, `personal_root`, from the OS user record), `trust/` (the
//! trust checks over the whole path to a root and the descriptor-relative reads below it),
//! `project` (the ast-grep project in a root: `sgconfig.yml`, `ruleDirs`, `utilDirs`), `yaml`
//! (YAML read as ast-grep reads it, and `YamlError`, the one error a file that does not parse is
//! reported as, for `sgconfig.yml` and the analysis's rule files alike), `settings/`
//! (`settings.toml`: the typed `Settings` with defaults and bounds, each problem by file, line and
//! key; `docs/settings.md`), `builtin` (the built-in pack compiled into the binary), this file
//! (`ConfigSource`, the choice between a root and the built-in pack) and `analyzer_key`
//! (`AnalyzerKey`, the key of the analyzer each source makes: `ast-grep:personal`,
//! `ast-grep:builtin`).

// What is not re-exported from this root is `pub(crate)`: the curated list below is the API.
#![warn(unreachable_pub)]

mod analyzer_key;
pub mod builtin;
mod project;
mod root;
pub mod settings;
pub mod trust;
mod yaml;

pub use analyzer_key::AnalyzerKey;
pub use project::{MAX_RULE_DIR_DEPTH, ProjectFiles, SGCONFIG_FILE, read_project, read_project_in};
pub use root::{ROOT_BELOW_HOME, RootError, personal_root};
pub use yaml::{YamlError, parse_yaml, parse_yaml_documents};

use std::path::PathBuf;

/// The text of one configuration file and the path it is reported under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigFile {
    /// Where the file lives (for the built-in pack: its path in the source tree).
    pub path: PathBuf,
    /// The whole file (embedded in the binary for the built-in pack).
    pub text: String,
}

/// A configuration file or directory that could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigProblem {
    /// The file failed a trust check or could not be read.
    #[error(transparent)]
    Trust(#[from] trust::TrustError),
    /// The file is not valid YAML for what it configures.
    #[error(transparent)]
    Yaml(#[from] YamlError),
    /// A `ruleDirs` or `utilDirs` entry of `sgconfig.yml` that does not name a directory inside
    /// the config root.
    #[error(
        "{}{}: `{key}` entry {entry:?} {fault}; list a directory inside the config root as a relative path (no leading `/`, no `..` above the root, no symbolic link) and keep the rules there",
        config.display(),
        line.map(|l| format!(":{l}")).unwrap_or_default()
    )]
    ProjectDir {
        /// The `sgconfig.yml` that lists the entry.
        config: PathBuf,
        /// The 1-based line of the entry, when it can be found.
        line: Option<u64>,
        /// `ruleDirs` or `utilDirs`.
        key: &'static str,
        /// The entry as written.
        entry: PathBuf,
        /// What is wrong with it.
        fault: DirFault,
    },
}

/// Why a `ruleDirs`/`utilDirs` entry is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DirFault {
    /// The entry is an absolute path.
    #[error("is an absolute path")]
    Absolute,
    /// Its `..` components climb above the config root.
    #[error("leaves the config root through `..`")]
    LeavesRoot,
    /// A component of it is a symbolic link.
    #[error("passes through the symbolic link {}", .0.display())]
    Symlink(PathBuf),
}

/// Why no config source could be chosen.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigSourceError {
    /// `--config DIR` names something that is not a directory.
    #[error("--config {}: not a directory", .0.display())]
    NotADirectory(PathBuf),
    /// No `--config DIR` was given and the personal root cannot be found.
    #[error(transparent)]
    Root(#[from] RootError),
}

/// Where the rules and policies of a session or a `check` come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigSource {
    /// A config root directory (the personal root or `--config DIR`).
    Root(PathBuf),
    /// The default pack compiled into the binary.
    BuiltIn,
}

impl ConfigSource {
    /// The explicit root if given, else the personal root if it exists, else the built-in pack.
    pub fn select(
        explicit: Option<&std::path::Path>,
        personal: Option<PathBuf>,
    ) -> Result<Self, ConfigSourceError> {
        match (explicit, personal) {
            (Some(dir), _) if dir.is_dir() => Ok(Self::Root(dir.to_path_buf())),
            (Some(dir), _) => Err(ConfigSourceError::NotADirectory(dir.to_path_buf())),
            (None, Some(root)) => Ok(Self::root_or_builtin(root)),
            (None, None) => Ok(Self::BuiltIn),
        }
    }

    /// `root` when anything is there (even something its trust checks will refuse, so a broken
    /// root is reported rather than replaced), else the built-in pack. `check` without
    /// `--config` and a Pi session choose the same way.
    pub fn root_or_builtin(root: PathBuf) -> Self {
        if std::fs::symlink_metadata(&root).is_ok() {
            Self::Root(root)
        } else {
            Self::BuiltIn
        }
    }

    /// The analyzer key policies name: `ast-grep:personal` or `ast-grep:builtin`.
    pub fn analyzer_key(&self) -> AnalyzerKey {
        match self {
            Self::Root(_) => AnalyzerKey::personal(),
            Self::BuiltIn => AnalyzerKey::builtin(),
        }
    }
}

impl std::fmt::Display for ConfigSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Root(dir) => write!(f, "{}", dir.display()),
            Self::BuiltIn => f.write_str("the built-in default pack"),
        }
    }
}

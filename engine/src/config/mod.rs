//! Where configuration comes from: the personal config root, its trust checks, the ast-grep
//! project in it, and the built-in default pack compiled into the binary.

pub mod builtin;
pub mod project;
pub mod trust;

use std::path::PathBuf;

/// The text of one configuration file and the path it is reported under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigFile {
    /// Where the file lives (for the built-in pack: its path in the source tree).
    pub path: PathBuf,
    /// The file's content.
    pub text: String,
}

/// A configuration file or directory that could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigProblem {
    /// The file failed a trust check or could not be read.
    #[error(transparent)]
    Trust(#[from] trust::TrustError),
    /// The file is not valid YAML for what it configures.
    #[error("{}{}: {message}", path.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
    Yaml {
        /// The file.
        path: PathBuf,
        /// The 1-based line, when the parser knows it.
        line: Option<u64>,
        /// The parser's message.
        message: String,
    },
}

//! Owns how a YAML configuration file that does not parse is reported: `sgconfig.yml` here, the
//! rule and utility files where the analysis compiles them. Both read YAML the way ast-grep reads
//! its own files (`ast_grep_config::from_str`), so they share one error, worded once.

use serde::Deserialize;
use std::fmt::Display;
use std::path::{Path, PathBuf};

/// A configuration file that is not valid YAML for what it configures (a syntax error, an unknown
/// key, a wrong type), named with the line the parser reports.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{}: {message}", path.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
pub struct YamlError {
    /// The file.
    pub path: PathBuf,
    /// The 1-based line, when the parser reports one.
    pub line: Option<u64>,
    /// What the parser reported.
    pub message: String,
}

impl YamlError {
    /// The error of the file at `path`, at `line` when known.
    pub fn new(path: &Path, line: Option<u64>, message: impl Display) -> Self {
        Self {
            path: path.to_path_buf(),
            line,
            message: message.to_string(),
        }
    }
}

/// Parses `text`, the file at `path`, as one YAML document.
///
/// # Errors
/// [`YamlError`] when `text` is not a `T`.
pub fn parse_yaml<'de, T: Deserialize<'de>>(path: &Path, text: &'de str) -> Result<T, YamlError> {
    ast_grep_config::from_str(text)
        .map_err(|error| YamlError::new(path, error.location().map(|l| l.line()), error))
}

/// Parses `text`, the file at `path`, as YAML documents separated by `---`, each a `T`.
///
/// # Errors
/// [`YamlError`] when a document is not a `T`.
pub fn parse_yaml_documents<'de, T: Deserialize<'de>>(
    path: &Path,
    text: &'de str,
) -> Result<Vec<T>, YamlError> {
    ast_grep_config::from_multiple(text)
        .map_err(|error| YamlError::new(path, error.location().map(|l| l.line()), error))
}

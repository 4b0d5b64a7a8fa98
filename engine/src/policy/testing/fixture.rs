//! The fixture file format: one YAML file per policy under `policies/tests/`, listing cases of
//! TS/TSX snippets with the expected diagnostics (diagnostic policies) or changed paths with the
//! expected requirements (verification policies).

use crate::ids::RuleId;
use serde::Deserialize;

/// The directory under a config root that holds policy fixtures.
pub const FIXTURE_DIR: &str = "policies/tests";

/// One fixture file.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct FixtureFile {
    /// The id of the policy under test.
    pub policy: String,
    /// The cases, run in order.
    pub cases: Vec<FixtureCase>,
}

/// One case: either `files` + `expect` (diagnostic) or `changed` + `requires` (verification).
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct FixtureCase {
    /// A short description, unique within the file.
    pub name: String,
    /// Diagnostic cases: the sources analyzed as one wave.
    #[serde(default)]
    pub files: Vec<SourceFile>,
    /// Diagnostic cases: every diagnostic the policy must produce (empty for valid input).
    #[serde(default)]
    pub expect: Option<Vec<ExpectedDiagnostic>>,
    /// Verification cases: the changed paths.
    #[serde(default)]
    pub changed: Vec<String>,
    /// Verification cases: the ids of every requirement the change needs (empty when none).
    #[serde(default)]
    pub requires: Option<Vec<String>>,
}

/// An in-memory source file.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct SourceFile {
    /// Repository-relative path; the extension picks the language (`.ts`, `.tsx`).
    pub path: String,
    /// The file's content.
    pub source: String,
}

/// A diagnostic a case expects. `column` is compared only when given.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ExpectedDiagnostic {
    /// The rule id.
    pub rule: RuleId,
    /// The source file's path, as the case's `files` names it.
    pub path: String,
    /// The 1-based line.
    pub line: usize,
    /// The 1-based column, if it matters.
    #[serde(default)]
    pub column: Option<usize>,
}

/// A fixture file that is not valid YAML or not the fixture shape: the parser's message, which
/// names the line and the field.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct FixtureSyntaxError {
    /// The YAML parser's message.
    pub message: String,
}

impl FixtureFile {
    /// Parses a fixture file's YAML.
    ///
    /// # Errors
    /// [`FixtureSyntaxError`] when the text is not a fixture.
    pub fn parse(text: &str) -> Result<Self, FixtureSyntaxError> {
        ast_grep_config::from_str(text).map_err(|error| FixtureSyntaxError {
            message: error.to_string(),
        })
    }
}

//! The fixture file format: one YAML file per policy under `policies/tests/`, listing cases of
//! TS/TSX snippets with the expected diagnostics (diagnostic policies) or changed paths with the
//! expected requirements (verification policies). The same types give the fixture files' JSON
//! Schema ([`fixture_schema`]), which `schemas/policy-fixture.schema.json` holds for editors.

use pi_native_hooks_base::RuleId;
use pi_native_hooks_base::did_you_mean;
use schemars::JsonSchema;
use serde::Deserialize;

/// The directory under a config root that holds policy fixtures.
pub const FIXTURE_DIR: &str = "policies/tests";

/// One fixture file.
#[derive(Clone, Debug, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
#[schemars(
    title = "pi-native-hooks policy fixture",
    description = "The cases `pi-native-hooks test` runs one policy on (policies/tests/<id>.yml)."
)]
pub struct FixtureFile {
    /// The id of the policy under test.
    pub policy: String,
    /// The cases, run in order.
    pub cases: Vec<FixtureCase>,
}

/// One case: either `files` + `expect` (diagnostic) or `changed` + `requires` (verification).
#[derive(Clone, Debug, Deserialize, JsonSchema, PartialEq, Eq)]
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
    /// Diagnostic cases: the analyzer's findings in `files`, given instead of computed. Needed
    /// for a policy whose analyzer the test runner does not run (`ANALYZER = "typescript"`: the
    /// type checker needs the project's TypeScript); for an ast-grep policy it replaces the
    /// rules' findings, so the case tests the policy alone.
    #[serde(default)]
    pub findings: Option<Vec<GivenFinding>>,
    /// Verification cases: the changed paths.
    #[serde(default)]
    pub changed: Vec<String>,
    /// Verification cases: the ids of every requirement the change needs (empty when none).
    #[serde(default)]
    pub requires: Option<Vec<String>>,
}

/// An in-memory source file.
#[derive(Clone, Debug, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct SourceFile {
    /// Repository-relative path; the extension picks the language (`.ts`, `.tsx`).
    pub path: String,
    /// The file's content.
    pub source: String,
}

/// A finding a case gives the policy, as its analyzer would have reported it. Given findings are
/// `warning`s, as the type checker's are.
#[derive(Clone, Debug, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct GivenFinding {
    /// The rule id (`TS2322` for a type error).
    #[schemars(with = "String")]
    pub rule: RuleId,
    /// The source file's path, as the case's `files` names it.
    pub path: String,
    /// The 1-based line the finding starts on.
    #[schemars(range(min = 1))]
    pub line: usize,
    /// The 1-based column (in characters) the finding starts at.
    #[schemars(range(min = 1))]
    pub column: usize,
    /// The 1-based line the finding ends on; the start line when not given.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub end_line: Option<usize>,
    /// The 1-based column the finding ends before; the end of its end line when not given.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub end_column: Option<usize>,
    /// The analyzer's message.
    pub message: String,
}

/// A diagnostic a case expects. `column` is compared only when given.
#[derive(Clone, Debug, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ExpectedDiagnostic {
    /// The rule id.
    #[schemars(with = "String")]
    pub rule: RuleId,
    /// The source file's path, as the case's `files` names it.
    pub path: String,
    /// The 1-based line.
    #[schemars(range(min = 1))]
    pub line: usize,
    /// The 1-based column, if it matters.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub column: Option<usize>,
}

/// A fixture file that is not valid YAML or not the fixture shape: the parser's message (with a
/// did-you-mean for an unknown key) and where it is.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct FixtureSyntaxError {
    /// The YAML parser's message, without its position.
    pub message: String,
    /// The 1-based line, when known.
    pub line: Option<usize>,
    /// The 1-based column, when known.
    pub column: Option<usize>,
}

impl FixtureFile {
    /// Parses a fixture file's YAML.
    ///
    /// # Errors
    /// [`FixtureSyntaxError`] when the text is not a fixture.
    pub fn parse(text: &str) -> Result<Self, FixtureSyntaxError> {
        ast_grep_config::from_str(text).map_err(|error| {
            let at = error
                .location()
                .map(|l| (usize::try_from(l.line()), usize::try_from(l.column())));
            let (line, column) = match at {
                Some((Ok(line), Ok(column))) if line > 0 => (Some(line), Some(column)),
                _ => (None, None),
            };
            let mut message = error.without_snippet().to_string();
            if let (Some(line), Some(column)) = (line, column)
                && let Some(stripped) =
                    message.strip_suffix(&format!(" at line {line}, column {column}"))
            {
                message = stripped.to_owned();
            }
            message.push_str(&unknown_key_hint(&message));
            FixtureSyntaxError {
                message,
                line,
                column,
            }
        })
    }
}

/// The did-you-mean for serde's `unknown field `X`, expected one of a, b` (or `expected a or b`).
fn unknown_key_hint(message: &str) -> String {
    let Some(rest) = message.strip_prefix("unknown field `") else {
        return String::new();
    };
    let Some((key, expected)) = rest.split_once('`') else {
        return String::new();
    };
    let expected = expected
        .trim_start_matches(", expected ")
        .trim_start_matches("one of ");
    let known = expected
        .split([',', ' '])
        .map(|name| name.trim_matches('`'))
        .filter(|name| !name.is_empty() && *name != "or");
    did_you_mean(key, known)
}

/// The JSON Schema (draft 2020-12) of a fixture file, as `schemas/policy-fixture.schema.json`
/// holds it, pretty-printed with a final newline.
pub fn fixture_schema() -> String {
    let schema = schemars::schema_for!(FixtureFile);
    // Serializing a JSON value to a string cannot fail.
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::FixtureFile;

    fn error(text: &str) -> (String, Option<usize>, Option<usize>) {
        let error = FixtureFile::parse(text).unwrap_err();
        (error.message, error.line, error.column)
    }

    #[test]
    fn syntax_errors_carry_their_position_and_a_suggestion() {
        assert_eq!(
            error("policy: x\ncases:\n  - name: a\n    fils: []\n"),
            (
                "unknown field `fils`, expected one of name, files, expect, findings, changed, \
                 requires; \
                 did you mean `files`?"
                    .to_owned(),
                Some(4),
                Some(5)
            )
        );
        assert_eq!(
            error("policy: x\ncases: [\n"),
            ("unclosed bracket '['".to_owned(), Some(2), Some(8))
        );
        let (message, ..) = error("policy: x\ncases:\n  - name: a\n    qqqq: []\n");
        assert!(!message.contains("did you mean"), "{message}");
    }
}

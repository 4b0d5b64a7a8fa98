//! One normalized analyzer finding: what matched, where, and how loud it is.

use pi_native_hooks_base::ContentHash;
use pi_native_hooks_base::{RuleId, SharedText};
use serde::Serialize;
use std::cmp::Ordering;
use std::fmt;

/// How loud a finding is. Steering rules never block, so `error` does not exist here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// A kind reminder (also used for unused suppression comments).
    Hint,
    /// A suggestion.
    Info,
    /// Code that should change.
    Warning,
}

impl Severity {
    /// The lowercase name used in YAML, JSON and policies.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Hint => "hint",
            Severity::Info => "info",
            Severity::Warning => "warning",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A zero-based position; `column` counts Unicode scalar values (characters), like ast-grep.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Position {
    /// Zero-based line.
    pub line: usize,
    /// Zero-based column in characters.
    pub column: usize,
}

/// A zero-based, end-exclusive source range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct SourceRange {
    /// First character of the match.
    pub start: Position,
    /// Position just after the match.
    pub end: Position,
}

/// A half-open range of byte offsets into a file's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct ByteRange {
    /// Offset of the first byte.
    pub start: usize,
    /// Offset just after the last byte.
    pub end: usize,
}

/// The rewrite a rule's `fix:` proposes for one finding, exactly as ast-grep's fixer computes it
/// (its first fix when the rule lists several; `expandStart`/`expandEnd` widen the range).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct FindingFix {
    /// The replaced range, zero-based (columns in characters), as [`Finding::range`].
    pub range: SourceRange,
    /// The replaced range in bytes.
    pub bytes: ByteRange,
    /// The text that replaces the range.
    pub text: String,
    /// The hash of the file text the fix was computed on: it applies to those bytes only.
    #[serde(skip)]
    pub content: ContentHash,
    /// The length in bytes of that text: a file of another length has changed, and is not read.
    #[serde(skip)]
    pub content_len: usize,
}

/// A normalized finding. Ordering is deterministic: path, range, rule.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Finding {
    /// The rule id, e.g. `typescript-no-non-null-assertion-ts`.
    pub rule: RuleId,
    /// The rule's severity.
    pub severity: Severity,
    /// The rule's message for this match (shared with the rule's other findings when it has no
    /// metavariable).
    pub message: SharedText,
    /// The rule's note (guidance and the suppression form), if any; shared with the rule's
    /// other findings.
    pub note: Option<SharedText>,
    /// Repository-relative path with `/` separators (shared with the file's other findings).
    pub path: SharedText,
    /// Zero-based range of the match.
    pub range: SourceRange,
    /// Stable hash (xxh3-64, hex) of the matched text with its whitespace normalised (runs of
    /// whitespace collapsed to one space, trimmed).
    pub text_hash: String,
    /// The rule's rewrite for this match, when the rule has a `fix:`. Not part of the finding's
    /// identity: fingerprints and the introduced-findings comparison never read it. Boxed, so a
    /// finding without one (nearly all of them) stays as small as before.
    pub fix: Option<Box<FindingFix>>,
}

impl Finding {
    /// The key findings are sorted by.
    fn sort_key(&self) -> (&str, SourceRange, &str) {
        (&self.path, self.range, &self.rule)
    }
}

impl PartialOrd for Finding {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Finding {
    fn cmp(&self, other: &Self) -> Ordering {
        self.sort_key()
            .cmp(&other.sort_key())
            .then_with(|| self.text_hash.cmp(&other.text_hash))
            .then_with(|| self.message.cmp(&other.message))
    }
}

/// The human-readable line: `path:line:column rule message`, 1-based.
impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{} {} {}",
            self.path,
            self.range.start.line + 1,
            self.range.start.column + 1,
            self.rule,
            self.message
        )
    }
}

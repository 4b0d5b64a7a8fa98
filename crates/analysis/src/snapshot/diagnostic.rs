//! Owns what reaches the model about a finding: a [`PolicyDiagnostic`], worded by a diagnostic
//! policy or, for a rule no policy consumes, by the analyzer itself. It sits here, beside the
//! findings it speaks of, so the policies that produce diagnostics and the delivery that sends
//! them share it without depending on each other.

use crate::snapshot::finding::Severity;
use pi_native_hooks_base::{PolicyId, RuleId, SharedText};
use serde::Serialize;

/// One diagnostic a policy produced. Lines and columns are 1-based.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PolicyDiagnostic {
    /// Repository-relative path (one of the snapshot's paths).
    pub path: SharedText,
    /// 1-based line.
    pub line: usize,
    /// 1-based column in characters.
    pub column: usize,
    /// 1-based end line (defaults to `line`).
    pub end_line: usize,
    /// 1-based end column (defaults to `column`).
    pub end_column: usize,
    /// The rule the diagnostic is about (one of the policy's `RULES`).
    pub rule: RuleId,
    /// The id of the policy that produced it.
    pub policy: PolicyId,
    /// How loud it is (defaults to `warning`).
    pub severity: Severity,
    /// As the policy worded it.
    pub message: SharedText,
    /// What the agent should do about it.
    pub guidance: SharedText,
}

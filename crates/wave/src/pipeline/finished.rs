//! Owns what a finished wave hands to the layers above the coordinator (the verification gate):
//! each call with its input and outcome, and the baseline and post-wave snapshots the changes were
//! computed from. The [`WaveReport`] says what happened; a [`FinishedWave`] also carries what a consumer
//! needs to judge it.

use crate::coordinator::report::WaveReport;
use pi_native_hooks_base::CallId;
use serde_json::Value;
use std::sync::Arc;

/// How a call that got a `tool_result` ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallResult {
    /// Whether the tool reported an error.
    pub is_error: bool,
    /// The exit code the tool reported (`bash` results carry one), when it did.
    pub exit_code: Option<i64>,
}

/// One call of a finished wave, in source order.
#[derive(Clone, Debug, PartialEq)]
pub struct FinishedCall {
    /// The tool call id.
    pub id: CallId,
    /// The tool's name, as Pi reports it.
    pub tool: String,
    /// The call's arguments.
    pub input: Value,
    /// Whether the call may have changed files (`write`, `edit`, `bash`, unknown tools).
    pub potentially_mutating: bool,
    /// The result, or `None` when the call got no `tool_result` (invalid, blocked, lost).
    pub result: Option<CallResult>,
}

/// A finished wave: its report, its calls and its snapshots.
#[expect(missing_docs, reason = "`report` names what it holds")]
#[derive(Debug)]
pub struct FinishedWave<S> {
    pub report: WaveReport,
    /// The calls, in source order.
    pub calls: Vec<FinishedCall>,
    /// The workspace when the wave began: its baseline snapshot, of the wave's scope (`None`
    /// when the wave took none: read-only, outside git, or the baseline failed or was late).
    /// What changed between the previous wave and this one shows as a difference between it and
    /// the previous wave's `after`.
    pub before: Option<Arc<S>>,
    /// The workspace after the wave (`None` when the wave took no post-wave snapshot:
    /// read-only, outside git, no baseline, or the snapshot failed).
    pub after: Option<Arc<S>>,
}

//! Owns the gate's input for one finished wave of tool calls ([`WaveObservation`]): what the wave
//! changed in the workspace, the workspace state before and after it, and each call with its
//! outcome. Plain serde data, so the wave coordinator, the Rust binding or a JSON caller can all
//! build it.

use crate::gate::record::WorkspaceObservation;
use pi_native_hooks_base::CallId;
use pi_native_hooks_workspace::ChangeSet;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::path::PathBuf;

/// What a wave changed in the workspace.
#[expect(missing_docs, reason = "`paths` names what it holds")]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum ObservedChanges {
    /// Exactly these paths (relative to the git root) may have changed; empty for no change.
    Paths { paths: BTreeSet<String> },
    /// No safe path set exists (a `bash` call outside git, a snapshot failure, a coordinator
    /// timeout): armed requirements become `unknown`.
    Unknown {
        /// Why, for the status and the continuation message.
        reason: String,
    },
}

impl From<ChangeSet> for ObservedChanges {
    fn from(changes: ChangeSet) -> Self {
        match changes {
            ChangeSet::Paths(paths) => ObservedChanges::Paths { paths },
            ChangeSet::Unknown { reason } => ObservedChanges::Unknown { reason },
        }
    }
}

/// How a call ended, as Pi reported it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum CallOutcome {
    /// The call got a `tool_result`.
    Finished {
        /// Whether the tool reported an error.
        is_error: bool,
        /// The exit code the tool reported (a `bash` result carries one), when it did.
        exit_code: Option<i64>,
    },
    /// No `tool_result` arrived: invalid arguments, blocked, aborted before a result, or the
    /// coordinator stopped waiting.
    NoResult,
}

/// One tool call of the wave.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObservedCall {
    /// Pi's tool call id.
    pub id: CallId,
    /// The tool's name (`bash`, `write`, ...).
    pub tool: String,
    /// The call's input as Pi passed it (`{"command": ...}` for `bash`).
    pub input: serde_json::Value,
    /// The directory the call ran in (Pi's `ctx.cwd`).
    pub cwd: PathBuf,
    /// Whether the call may have changed files: `write`, `edit`, `bash` and unknown tools, by the
    /// wave coordinator's classification.
    pub potentially_mutating: bool,
    /// Whether a `tool_result` arrived, and what it reported.
    pub outcome: CallOutcome,
}

/// One finished wave: a set of overlapping tool calls (all siblings of a parallel batch, or one
/// call of a sequential batch), observed after every call is terminal.
///
/// Every call of a wave started at the revision that was current when the wave began: the gate's
/// revision once it has applied what changed between the workspace it recorded and
/// `workspace_before`. Waves never overlap, and the gate changes its revision only between waves
/// (observing a wave, refreshing at settle, restoring).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaveObservation {
    /// What the wave changed.
    pub changes: ObservedChanges,
    /// The workspace when the wave began: its baseline snapshot (full, or path-limited for a
    /// wave whose only mutating calls were `write`/`edit`). The gate compares it with the
    /// workspace it recorded, so changes made between waves are applied before the wave's
    /// evidence instead of being absorbed. `None` when no baseline was taken (read-only wave,
    /// outside git, the snapshot failed); the post-wave snapshot is then compared with the
    /// record instead, after the evidence.
    #[serde(default)]
    pub workspace_before: Option<WorkspaceObservation>,
    /// The workspace after the wave: the post-wave snapshot the changes were computed from.
    /// `None` when no snapshot was taken because no call could change files.
    pub workspace_after: Option<WorkspaceObservation>,
    /// The wave's calls, in source order.
    pub calls: Vec<ObservedCall>,
}

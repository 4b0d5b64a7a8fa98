//! Owns turning a finished wave into the gate's input: its changes (unknown when events went
//! missing, since a call may still have been writing after the post-wave snapshot), the
//! baseline and post-wave workspace records, and each call with its outcome in the session's
//! directory.

use pi_native_hooks_verification::{
    CallOutcome, ObservedCall, ObservedChanges, WaveObservation, WorkspaceObservation,
};
use pi_native_hooks_wave::{FinishedWave, WaveEnd};
use pi_native_hooks_workspace::WorkspaceSnapshot;
use std::collections::BTreeSet;
use std::path::Path;

/// The gate's view of `wave`, whose calls ran in `cwd`. `None` for a wave closed by shutdown
/// (nothing was observed).
pub fn observe(wave: &FinishedWave<WorkspaceSnapshot>, cwd: &Path) -> Option<WaveObservation> {
    let report = &wave.report;
    let changes = match report.end {
        WaveEnd::Shutdown => return None,
        WaveEnd::EventsMissing => ObservedChanges::Unknown {
            reason: format!(
                "wave {} closed before every call ended: what it changed cannot be proven",
                report.wave
            ),
        },
        WaveEnd::Complete => match &report.changes {
            Some(changes) => changes.clone().into(),
            None => ObservedChanges::Paths {
                paths: BTreeSet::new(),
            },
        },
    };
    let calls = wave
        .calls
        .iter()
        .map(|call| ObservedCall {
            id: call.id.clone(),
            tool: call.tool.clone(),
            input: call.input.clone(),
            cwd: cwd.to_path_buf(),
            potentially_mutating: call.potentially_mutating,
            outcome: match call.result {
                Some(result) => CallOutcome::Finished {
                    is_error: result.is_error,
                    exit_code: result.exit_code,
                },
                None => CallOutcome::NoResult,
            },
        })
        .collect();
    Some(WaveObservation {
        changes,
        workspace_before: wave
            .before
            .as_deref()
            .map(WorkspaceObservation::of_snapshot),
        workspace_after: wave.after.as_deref().map(WorkspaceObservation::of_snapshot),
        calls,
    })
}

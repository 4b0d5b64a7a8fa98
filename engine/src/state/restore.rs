//! Owns restoring a gate from a session branch: the newest decodable state entry wins; malformed
//! and newer-version entries are skipped with a warning and the previous valid one is used; with
//! none, the gate starts fresh (the dirty workspace is an unarmed baseline).

use super::entry::{STATE_ENTRY_TYPE, StateProblem, decode};
use crate::verification::{VerificationGate, WorkspaceObservation};
use serde::{Deserialize, Serialize};
use std::fmt;

/// One `custom` entry of the current branch, as the binding reads it from
/// `ctx.sessionManager.getBranch()` (entries of other types can be passed or left out).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BranchEntry {
    /// The entry's id.
    pub id: String,
    /// Its `customType`.
    pub custom_type: String,
    /// Its `data`.
    pub data: serde_json::Value,
}

/// A state entry that was skipped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateWarning {
    /// The skipped entry's id.
    pub entry_id: String,
    /// Why.
    pub problem: StateProblem,
}

impl fmt::Display for StateWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "skipped verification state entry {}: {}",
            self.entry_id, self.problem
        )
    }
}

/// What a restore used.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RestoreReport {
    /// The entry restored from; `None` for a fresh start.
    pub entry_id: Option<String>,
    /// Entries skipped on the way, newest first.
    pub warnings: Vec<StateWarning>,
}

/// Restores `gate` from `branch` (root first, as `getBranch()` returns it) against the live
/// workspace. Call at session start (new, resume, fork) and after `/tree` navigation.
pub fn restore(
    gate: &mut VerificationGate,
    branch: &[BranchEntry],
    live: &WorkspaceObservation,
) -> RestoreReport {
    let mut report = RestoreReport::default();
    for entry in branch
        .iter()
        .rev()
        .filter(|entry| entry.custom_type == STATE_ENTRY_TYPE)
    {
        match decode(&entry.data) {
            Ok(snapshot) => {
                gate.restore(Some(snapshot), live);
                report.entry_id = Some(entry.id.clone());
                return report;
            }
            Err(problem) => report.warnings.push(StateWarning {
                entry_id: entry.id.clone(),
                problem,
            }),
        }
    }
    gate.restore(None, live);
    report
}

//! Owns restoring a gate from a session branch: the newest decodable state entry wins; malformed
//! and newer-version entries are skipped with a warning and the previous valid one is used. With
//! no state entry at all, the gate starts fresh (the dirty workspace is an unarmed baseline);
//! with state entries of which none can be read, it starts fail-closed: every requirement of the
//! matching policies is armed and `unknown`, because nothing says which ones were armed. An entry
//! written before requirements had digests restores, but its armed requirements are `unknown`
//! (the gate cannot tell whether their definitions changed), with a warning.

use super::entry::{STATE_ENTRY_TYPE, StateProblem, decode};
use crate::{VerificationGate, WorkspaceObservation};
use serde::{Deserialize, Serialize};
use std::fmt;

/// One `custom` entry of the current branch, as the binding reads it from
/// `ctx.sessionManager.getBranch()` (entries of other types can be passed or left out).
#[expect(missing_docs, reason = "`id` and `data` are Pi's fields")]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BranchEntry {
    pub id: String,
    /// The type name it was persisted under.
    pub custom_type: String,
    pub data: serde_json::Value,
}

/// Something a restore reports to the user.
#[expect(missing_docs, reason = "`problem` names what it holds")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StateWarning {
    /// A state entry was skipped.
    Skipped {
        /// The skipped entry's id.
        entry_id: String,
        problem: StateProblem,
    },
    /// The restored entry predates per-requirement digests: its armed requirements were made
    /// `unknown`.
    Undigested {
        /// The restored entry's id.
        entry_id: String,
        /// How many armed requirements had no digest.
        unknown: usize,
    },
    /// The branch has state entries but none could be read: the gate restored fail-closed.
    NoneReadable {
        /// How many state entries were skipped.
        skipped: usize,
        /// How many requirements were made `unknown`.
        unknown: usize,
    },
}

impl fmt::Display for StateWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StateWarning::Skipped { entry_id, problem } => {
                write!(f, "skipped verification state entry {entry_id}: {problem}")
            }
            StateWarning::Undigested { entry_id, unknown } => write!(
                f,
                "verification state entry {entry_id} was saved by an older version without \
                 per-check digests, so whether a check's definition changed since cannot be \
                 known: {unknown} armed check(s) are now `unknown` until they are rerun or waived"
            ),
            StateWarning::NoneReadable { skipped, unknown } => write!(
                f,
                "no verification state entry of this branch could be read ({skipped} skipped), \
                 so which checks were pending is unknown: {unknown} check(s) of the matching \
                 verification policies are now `unknown` until they are rerun or waived"
            ),
        }
    }
}

/// What a restore used.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RestoreReport {
    /// The entry restored from; `None` for a fresh or fail-closed start.
    pub entry_id: Option<String>,
    /// Entries skipped on the way, newest first, then [`StateWarning::NoneReadable`] when no
    /// entry could be read, or [`StateWarning::Undigested`] when the entry restored from predates
    /// per-requirement digests and held armed requirements.
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
                let undigested = snapshot
                    .requirements
                    .iter()
                    .filter(|requirement| requirement.is_armed() && requirement.digest.is_none())
                    .count();
                gate.restore(Some(snapshot), live);
                report.entry_id = Some(entry.id.clone());
                if undigested > 0 {
                    report.warnings.push(StateWarning::Undigested {
                        entry_id: entry.id.clone(),
                        unknown: undigested,
                    });
                }
                return report;
            }
            Err(problem) => report.warnings.push(StateWarning::Skipped {
                entry_id: entry.id.clone(),
                problem,
            }),
        }
    }
    let skipped = report.warnings.len();
    if skipped == 0 {
        gate.restore(None, live);
        return report;
    }
    let reason = format!(
        "the saved verification state of this branch could not be read ({skipped} entr{} \
         skipped), so whether this check was pending cannot be known",
        if skipped == 1 { "y" } else { "ies" }
    );
    gate.restore_unreadable(&reason, live);
    report.warnings.push(StateWarning::NoneReadable {
        skipped,
        unknown: gate
            .requirements()
            .iter()
            .filter(|requirement| requirement.unknown_reason().is_some())
            .count(),
    });
    report
}

//! Owns the verification side of a session: feeding finished waves to the gate in order,
//! restoring a branch's state, the settle decision, the waiver, and collecting the state entries
//! the binding must append. Every live workspace snapshot runs off the async threads.

use super::observe::observe;
use super::{GateState, KEPT_POLICY_FAILURES, Session};
use crate::state::{self, BranchEntry, StateEntry};
use crate::status::AnalyzerStatus;
use crate::verification::{
    SettleDecision, Waiver, WaiverError, WaiverRequest, WorkspaceObservation,
};
use crate::wave::{FinishedWave, ScanStats};
use crate::workspace::{CancelToken, WorkspaceSnapshot, capture_async};

/// What restoring a branch did.
#[derive(Clone, Debug, PartialEq)]
pub struct RestoreOutcome {
    /// The id of the state entry restored from; `None` for a fresh start.
    pub restored_from: Option<String>,
    /// Entries that were skipped (malformed, newer version), for a notification.
    pub warnings: Vec<String>,
    /// State entries to append.
    pub entries: Vec<StateEntry>,
}

/// What to do at a settle candidate.
#[derive(Clone, Debug, PartialEq)]
pub struct SettleOutcome {
    /// The continuation message (type `pi-native-hooks-verification`) when the agent must go on.
    pub message: Option<String>,
    /// A one-time notification for the user (the gate stopped forcing).
    pub notification: Option<String>,
    /// State entries to append.
    pub entries: Vec<StateEntry>,
}

/// What the waiver tool returns to the model.
#[derive(Clone, Debug, PartialEq)]
pub struct WaiverOutcome {
    /// The waiver, when it was recorded.
    pub waiver: Option<Waiver>,
    /// The tool result text: what was skipped and when it expires, or why nothing was recorded.
    pub message: String,
    /// State entries to append.
    pub entries: Vec<StateEntry>,
}

impl GateState {
    /// Moves the gate's pending transition, if any, into the entries to append.
    fn collect_entry(&mut self) {
        match state::take_entry(&mut self.gate) {
            Ok(Some(entry)) => self.entries.push(entry),
            Ok(None) => {}
            Err(error) => self.state_warnings.push(error.to_string()),
        }
    }

    fn fold_scans(&mut self, scans: &[ScanStats]) {
        for scan in scans {
            let status = self
                .analyzers
                .entry(scan.analyzer.clone())
                .or_insert_with(|| AnalyzerStatus {
                    key: scan.analyzer.clone(),
                    runs: 0,
                    last_duration_micros: None,
                    total_duration_micros: 0,
                    last_error: None,
                });
            let micros = u64::try_from(scan.duration.as_micros()).unwrap_or(u64::MAX);
            status.runs += 1;
            status.last_duration_micros = Some(micros);
            status.total_duration_micros = status.total_duration_micros.saturating_add(micros);
            status.last_error = scan.failure.clone();
        }
    }

    /// Keeps a wave's policy run failures for the status: a repeated failure moves to the end.
    fn fold_policy_failures(&mut self, failures: &[String]) {
        for failure in failures {
            self.policy_failures.retain(|kept| kept != failure);
            self.policy_failures.push(failure.clone());
        }
        let excess = self
            .policy_failures
            .len()
            .saturating_sub(KEPT_POLICY_FAILURES);
        self.policy_failures.drain(..excess);
    }
}

impl Session {
    /// Feeds every wave finished so far to the gate, in order. Cheap; never waits.
    pub(super) fn absorb_finished_waves(&self) {
        let Some(coordinator) = &self.coordinator else {
            return;
        };
        let finished: Vec<FinishedWave<WorkspaceSnapshot>> = coordinator.take_finished();
        if finished.is_empty() {
            return;
        }
        let mut state = self.gate();
        for wave in &finished {
            state.fold_scans(&wave.report.scans);
            state.fold_policy_failures(&wave.report.policy_failures);
            if let Some(observation) = observe(wave, &self.options.cwd) {
                let now = (self.options.clock)();
                state.gate.observe_wave(&observation, now);
                state.collect_entry();
            }
        }
    }

    /// Waits for every wave whose calls have ended, then feeds them to the gate.
    async fn settle_waves(&self) {
        if let Some(coordinator) = &self.coordinator {
            coordinator.idle().await;
        }
        self.absorb_finished_waves();
    }

    /// A full snapshot of the live workspace, taken on the blocking pool.
    async fn live_workspace(&self) -> WorkspaceObservation {
        WorkspaceObservation::of_capture(
            capture_async(self.options.cwd.clone(), CancelToken::new()).await,
        )
    }

    /// Restores the verification state of `branch` (the current session branch, root first):
    /// at session start, resume, fork and after `/tree` navigation.
    pub async fn restore(&self, branch: &[BranchEntry]) -> RestoreOutcome {
        self.settle_waves().await;
        let live = self.live_workspace().await;
        let mut state = self.gate();
        let report = state::restore(&mut state.gate, branch, &live);
        state.state_warnings = report.warnings.iter().map(ToString::to_string).collect();
        state.collect_entry();
        RestoreOutcome {
            restored_from: report.entry_id,
            warnings: state.state_warnings.clone(),
            entries: std::mem::take(&mut state.entries),
        }
    }

    /// `agent_before_settle`: refreshes the workspace and decides whether the agent may stop.
    pub async fn before_settle(&self) -> SettleOutcome {
        self.settle_waves().await;
        if self.gate().gate.requirements().is_empty() {
            // No verification policy matches this project: nothing to refresh or decide.
            return SettleOutcome {
                message: None,
                notification: None,
                entries: std::mem::take(&mut self.gate().entries),
            };
        }
        let live = self.live_workspace().await;
        let mut state = self.gate();
        let decision = state.gate.settle(&live);
        state.collect_entry();
        let (message, notification) = match decision {
            SettleDecision::Settle => (None, None),
            SettleDecision::Continue(continuation) => (Some(continuation.content), None),
            SettleDecision::Exhausted(exhaustion) => (None, exhaustion.notification),
        };
        SettleOutcome {
            message,
            notification,
            entries: std::mem::take(&mut state.entries),
        }
    }

    /// The waiver tool: waives every outstanding requirement with `reason`.
    pub async fn waive(&self, tool_call_id: &str, reason: &str) -> WaiverOutcome {
        self.settle_waves().await;
        let now = (self.options.clock)();
        let mut state = self.gate();
        let request = WaiverRequest {
            tool_call_id: tool_call_id.to_owned(),
            reason: reason.to_owned(),
        };
        let result = state.gate.waive(&request, now);
        state.collect_entry();
        let entries = std::mem::take(&mut state.entries);
        match result {
            Ok(waiver) => WaiverOutcome {
                message: waiver.message(),
                waiver: Some(waiver),
                entries,
            },
            Err(error) => WaiverOutcome {
                message: waiver_refusal(&error),
                waiver: None,
                entries,
            },
        }
    }

    /// State entries produced since the last call (e.g. a wave armed a requirement).
    pub fn take_state_entries(&self) -> Vec<StateEntry> {
        self.absorb_finished_waves();
        std::mem::take(&mut self.gate().entries)
    }
}

fn waiver_refusal(error: &WaiverError) -> String {
    format!("No waiver was recorded: {error}")
}

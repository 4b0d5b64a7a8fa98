//! Owns the verification side of a session: the gate's operations — feeding finished waves in
//! order, restoring a branch, the settle decision, the waiver — and the bounded waits in front of
//! them.
//!
//! Operations run one at a time, in call order, on tokio's blocking pool (feeding waves runs
//! verification policies). Each one ends by queueing the state entries the binding must append
//! and publishing what the synchronous calls read ([`Published`](crate::gate::worker::Published)). A background task feeds each
//! wave to the gate as soon as the coordinator records it, so the status never waits for the
//! next async call; `tool_result` also feeds its own wave before it returns, so the entries it
//! armed are ready when the binding asks.
//!
//! Every wait has the wave timeout ([`pi_native_hooks_wave::WaveConfig::timeout`]) as its deadline: the
//! wait for the waves still being processed before a restore, a settle or a waiver, and the live
//! workspace snapshot of a restore or a settle. When one expires, a coordinator failure is
//! recorded, the gate is told that what changed cannot be proven (armed requirements become
//! `unknown`, never `passed`), and the handler returns. A task blocked in a read is left behind,
//! never waited for again; after a wait for the waves expired no live snapshot is attempted (the
//! workspace is already unknown to the gate), so a handler returns within one deadline plus the
//! gate's own work, and within two when the waves finish but the snapshot does not.

use crate::gate::worker::Verifier;
use crate::open::gate_config;
use crate::state::Session;
use pi_native_hooks_base::CancelToken;
use pi_native_hooks_base::escape;
use pi_native_hooks_verification::state::{self, BranchEntry, StateEntry};
use pi_native_hooks_verification::{
    SettleDecision, Waiver, WaiverError, WaiverRequest, WorkspaceObservation,
};
use pi_native_hooks_wave::{CoordinatorFailure, StillBusy};
use pi_native_hooks_workspace::capture_async;
use std::time::Duration;

/// What restoring a branch did.
#[derive(Clone, Debug, PartialEq)]
pub struct RestoreOutcome {
    /// The id of the state entry restored from; `None` for a fresh start.
    pub restored_from: Option<String>,
    /// Entries that were skipped (malformed, newer version), for a notification (escaped).
    pub warnings: Vec<String>,
    /// State entries to append.
    pub entries: Vec<StateEntry>,
}

/// What to do at a settle candidate.
#[derive(Clone, Debug, PartialEq)]
pub struct SettleOutcome {
    /// The continuation message (type `pi-native-hooks-verification`) when the agent must go on.
    pub message: Option<String>,
    /// Diagnostics that arrived after the tool results of their wave were shown (a type check
    /// that outlasted the wave's wait), as one block: the agent goes on with them too.
    pub late_findings: Option<String>,
    /// A one-time notification for the user (the gate stopped forcing, or failed).
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

/// The text shown when a gate operation panicked (a defect): the state stays as it was.
const GATE_FAILED: &str =
    "the verification gate failed; its state is unchanged (see /hooks-status and /hooks-doctor)";

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// The waves were still being processed when the gate had to look at the workspace: what they
/// changed cannot be proven. Its text is the gate's reason for `unknown`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "tool calls were still being processed after {} ms, so what they changed cannot be proven",
    .0.timeout_ms
)]
pub(crate) struct WavesUnfinished(StillBusy);

impl Session {
    /// Waits, at most the wave timeout, until every wave whose calls have ended is processed.
    /// `Err` says the wait expired (the coordinator recorded the failure).
    pub(crate) async fn wait_for_waves(&self) -> Result<(), WavesUnfinished> {
        let Some(coordinator) = self.state.coordinator() else {
            return Ok(());
        };
        coordinator.idle().await.map_err(WavesUnfinished)
    }

    /// A full snapshot of the live workspace on the blocking pool, at most the wave timeout;
    /// past it the snapshot is cancelled (a read that blocks is left behind), a coordinator
    /// failure is recorded and the workspace is unavailable to the gate.
    async fn live_workspace(&self, purpose: &str) -> WorkspaceObservation {
        let deadline = self.wave.timeout;
        let cancel = CancelToken::new();
        let capture = capture_async(self.options.cwd.clone(), cancel.clone());
        if let Ok(capture) = tokio::time::timeout(deadline, capture).await {
            return WorkspaceObservation::of_capture(capture);
        }
        cancel.cancel();
        let failure = CoordinatorFailure::SnapshotTimedOut {
            purpose: purpose.to_owned(),
            timeout_ms: millis(deadline),
        };
        let reason = failure.to_string();
        if let Some(coordinator) = self.state.coordinator() {
            coordinator.record_failure(failure);
        }
        WorkspaceObservation::Unavailable { reason }
    }

    /// Restores the verification state of `branch` (the current session branch, root first):
    /// at session start, resume, fork and after `/tree` navigation.
    pub async fn restore(&self, branch: &[BranchEntry]) -> RestoreOutcome {
        let waves = self.wait_for_waves().await;
        let live = match &waves {
            Ok(()) => self.live_workspace("the restore").await,
            Err(unfinished) => WorkspaceObservation::Unavailable {
                reason: unfinished.to_string(),
            },
        };
        let branch = branch.to_vec();
        let restored = self
            .verifier
            .run(move |verifier, state| {
                verifier.feed(state);
                let report = state::restore(&mut state.gate, &branch, &live);
                state.state_warnings = report.warnings.iter().map(ToString::to_string).collect();
                state.collect_entry();
                if let Err(unfinished) = waves {
                    verifier.observe_unknown(state, unfinished.to_string());
                }
                (report.entry_id, state.state_warnings.clone())
            })
            .await;
        let (restored_from, warnings) =
            restored.unwrap_or_else(|| (None, vec![format!("restore failed: {GATE_FAILED}")]));
        RestoreOutcome {
            restored_from,
            warnings: warnings.iter().map(|w| escape(w).into_owned()).collect(),
            entries: self.verifier.take_entries(),
        }
    }

    /// `agent_before_settle`: delivers what arrived late, refreshes the workspace and decides
    /// whether the agent may stop.
    ///
    /// When a wave's type check outlasted its wait, the analyzers are asked once more (at most
    /// the wave timeout) and what they introduced goes with the settle's continuation — alone
    /// when nothing else keeps the agent going, at most `continuation_cap` times in a row; past
    /// the cap it stays pending for the next wave, named in the status.
    pub async fn before_settle(&self) -> SettleOutcome {
        use std::sync::atomic::Ordering;
        let unknown = self.wait_for_waves().await.err().map(|e| e.to_string());
        let cap = gate_config(&self.options, &self.settings.settings).continuation_cap;
        let late = match (&unknown, self.state.coordinator()) {
            (None, Some(coordinator)) if self.late_continuations.load(Ordering::SeqCst) < cap => {
                coordinator.late_block().await
            }
            _ => None,
        };
        let mut outcome = self.decide_settle(unknown).await;
        match (&outcome.message, &late) {
            (None, None) => self.late_continuations.store(0, Ordering::SeqCst),
            (None, Some(_)) => {
                self.late_continuations.fetch_add(1, Ordering::SeqCst);
            }
            (Some(_), _) => {}
        }
        outcome.late_findings = late;
        outcome
    }

    /// The gate's part of the settle: refreshes the workspace and decides whether the agent may
    /// stop.
    async fn decide_settle(&self, unknown: Option<String>) -> SettleOutcome {
        let told = unknown.clone();
        let tracked = self
            .verifier
            .run(move |verifier, state| {
                verifier.feed(state);
                if let Some(reason) = told {
                    verifier.observe_unknown(state, reason);
                }
                !state.gate.requirements().is_empty()
            })
            .await;
        let failed = |verifier: &Verifier| SettleOutcome {
            message: None,
            late_findings: None,
            notification: Some(format!("pi-native-hooks: {GATE_FAILED}")),
            entries: verifier.take_entries(),
        };
        match tracked {
            None => return failed(&self.verifier),
            // No verification policy matches this project: nothing to refresh or decide.
            Some(false) => {
                return SettleOutcome {
                    message: None,
                    late_findings: None,
                    notification: None,
                    entries: self.verifier.take_entries(),
                };
            }
            Some(true) => {}
        }
        let live = match unknown {
            None => self.live_workspace("the settle check").await,
            Some(reason) => WorkspaceObservation::Unavailable { reason },
        };
        let decision = self
            .verifier
            .run(move |_, state| state.gate.settle(&live))
            .await;
        let (message, notification) = match decision {
            None => return failed(&self.verifier),
            Some(SettleDecision::Settle) => (None, None),
            Some(SettleDecision::Continue(continuation)) => (Some(continuation.content), None),
            Some(SettleDecision::Exhausted(exhaustion)) => (None, exhaustion.notification),
        };
        SettleOutcome {
            message,
            late_findings: None,
            notification,
            entries: self.verifier.take_entries(),
        }
    }

    /// The waiver tool: waives every outstanding requirement with `reason`.
    pub async fn waive(&self, tool_call_id: &str, reason: &str) -> WaiverOutcome {
        let waves = self.wait_for_waves().await;
        let now = (self.options.clock)();
        let request = WaiverRequest {
            tool_call_id: tool_call_id.into(),
            reason: reason.to_owned(),
        };
        let result = self
            .verifier
            .run(move |verifier, state| {
                verifier.feed(state);
                if let Err(unfinished) = waves {
                    verifier.observe_unknown(state, unfinished.to_string());
                }
                state.gate.waive(&request, now)
            })
            .await;
        let entries = self.verifier.take_entries();
        match result {
            Some(Ok(waiver)) => WaiverOutcome {
                message: waiver.message(),
                waiver: Some(waiver),
                entries,
            },
            Some(Err(error)) => WaiverOutcome {
                message: waiver_refusal(&error),
                waiver: None,
                entries,
            },
            None => WaiverOutcome {
                message: format!("No waiver was recorded: {GATE_FAILED}"),
                waiver: None,
                entries,
            },
        }
    }

    /// State entries produced since the last call (e.g. a wave armed a requirement). Never waits:
    /// waves are fed to the gate by `tool_result` and in the background.
    pub fn take_state_entries(&self) -> Vec<StateEntry> {
        self.verifier.take_entries()
    }
}

fn waiver_refusal(error: &WaiverError) -> String {
    format!("No waiver was recorded: {error}")
}

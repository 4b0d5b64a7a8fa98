//! Owns the verification side of a session: the gate's operations — feeding finished waves in
//! order, restoring a branch, the settle decision, the waiver — and the bounded waits in front of
//! them.
//!
//! Operations run one at a time, in call order, on tokio's blocking pool (feeding waves runs
//! verification policies). Each one ends by queueing the state entries the binding must append
//! and publishing what the synchronous calls read ([`Published`]). A background task feeds each
//! wave to the gate as soon as the coordinator records it, so the status never waits for the
//! next async call; `tool_result` also feeds its own wave before it returns, so the entries it
//! armed are ready when the binding asks.
//!
//! Every wait has the wave timeout ([`crate::wave::WaveConfig::timeout`]) as its deadline: the
//! wait for the waves still being processed before a restore, a settle or a waiver, and the live
//! workspace snapshot of a restore or a settle. When one expires, a coordinator failure is
//! recorded, the gate is told that what changed cannot be proven (armed requirements become
//! `unknown`, never `passed`), and the handler returns. A task blocked in a read is left behind,
//! never waited for again; after a wait for the waves expired no live snapshot is attempted (the
//! workspace is already unknown to the gate), so a handler returns within one deadline plus the
//! gate's own work, and within two when the waves finish but the snapshot does not.

use super::observe::observe;
use super::options::Clock;
use super::report::Published;
use super::{GateState, KEPT_POLICY_FAILURES, Session};
use crate::cancel::CancelToken;
use crate::policy::PolicyFailure;
use crate::state::{self, BranchEntry, StateEntry};
use crate::status::AnalyzerStatus;
use crate::text::escape;
use crate::verification::{
    ObservedChanges, SettleDecision, Waiver, WaiverError, WaiverRequest, WaveObservation,
    WorkspaceObservation,
};
use crate::wave::{CoordinatorFailure, ScanStats, WaveCoordinator};
use crate::workspace::capture_async;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;
use tokio::sync::watch;

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

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// The gate side of a session, shared with the background task that feeds it finished waves.
pub(super) struct Verifier {
    cwd: PathBuf,
    clock: Clock,
    /// Where finished waves come from: the session's coordinator while it runs, `None` for an
    /// idle session (the gate then only restores, settles and waives).
    coordinator: Option<WaveCoordinator>,
    /// Admits one gate operation at a time, in call order.
    turn: tokio::sync::Mutex<()>,
    /// The gate; locked only by the operation holding `turn`, on the blocking pool.
    state: Mutex<GateState>,
    /// What the last operation published; locked only to swap or clone the `Arc`.
    published: Mutex<Arc<Published>>,
    /// State entries waiting for the binding, oldest first.
    outbox: Mutex<Vec<StateEntry>>,
}

impl Verifier {
    /// The gate side over `state`. With a coordinator, starts the task that feeds the gate each
    /// wave as it finishes (it ends when the coordinator is dropped).
    pub(super) fn start(
        cwd: PathBuf,
        clock: Clock,
        coordinator: Option<WaveCoordinator>,
        state: GateState,
    ) -> Arc<Self> {
        let published = Arc::new(Published::of(&state));
        let signal = coordinator.as_ref().map(WaveCoordinator::finished_signal);
        let verifier = Arc::new(Verifier {
            cwd,
            clock,
            coordinator,
            turn: tokio::sync::Mutex::new(()),
            state: Mutex::new(state),
            published: Mutex::new(published),
            outbox: Mutex::new(Vec::new()),
        });
        if let Some(signal) = signal {
            spawn_feeder(&verifier, signal);
        }
        verifier
    }

    /// What the last gate operation published.
    pub(super) fn published(&self) -> Arc<Published> {
        Arc::clone(&lock(&self.published))
    }

    /// The state entries produced so far, oldest first.
    pub(super) fn take_entries(&self) -> Vec<StateEntry> {
        std::mem::take(&mut *lock(&self.outbox))
    }

    /// Runs `op` on the gate on the blocking pool, after every operation called before it, then
    /// queues its entries and publishes the new state. `None` when `op` panicked (the state
    /// published before stays).
    async fn run<T: Send + 'static>(
        self: &Arc<Self>,
        op: impl FnOnce(&Verifier, &mut GateState) -> T + Send + 'static,
    ) -> Option<T> {
        let turn = self.turn.lock().await;
        self.run_in_turn(turn, op).await
    }

    /// [`Verifier::run`] once the caller holds the turn.
    async fn run_in_turn<T: Send + 'static>(
        self: &Arc<Self>,
        _turn: tokio::sync::MutexGuard<'_, ()>,
        op: impl FnOnce(&Verifier, &mut GateState) -> T + Send + 'static,
    ) -> Option<T> {
        let this = Arc::clone(self);
        crate::blocking::run_blocking(move || {
            let mut state = lock(&this.state);
            let value = op(&this, &mut state);
            state.collect_entry();
            lock(&this.outbox).append(&mut state.entries);
            *lock(&this.published) = Arc::new(Published::of(&state));
            value
        })
        .await
        .ok()
    }

    /// Feeds every wave finished so far to the gate, in order. Once an operation already
    /// running has ended (it may be feeding the very wave the caller waits for), does nothing
    /// when no wave is left to feed.
    pub(super) async fn feed_finished(self: &Arc<Self>) {
        let turn = self.turn.lock().await;
        if self
            .coordinator
            .as_ref()
            .is_some_and(WaveCoordinator::has_finished)
        {
            self.run_in_turn(turn, |verifier, state| verifier.feed(state))
                .await;
        }
    }

    fn feed(&self, state: &mut GateState) {
        let Some(coordinator) = &self.coordinator else {
            return;
        };
        for wave in coordinator.take_finished() {
            state.fold_scans(&wave.report.scans);
            state.fold_policy_failures(&wave.report.policy_failures);
            if let Some(observation) = observe(&wave, &self.cwd) {
                state.gate.observe_wave(&observation, (self.clock)());
                state.collect_entry();
            }
        }
    }

    /// Tells the gate that the workspace changed in a way nobody can prove (`reason`): armed
    /// requirements become `unknown` at a new revision.
    fn observe_unknown(&self, state: &mut GateState, reason: String) {
        let observation = WaveObservation {
            changes: ObservedChanges::Unknown { reason },
            workspace_before: None,
            workspace_after: None,
            calls: Vec::new(),
        };
        state.gate.observe_wave(&observation, (self.clock)());
        state.collect_entry();
    }
}

/// Feeds the gate each wave the coordinator records, off the caller's thread. Holds the verifier
/// only while feeding, so the task ends once the session and its coordinator are gone.
fn spawn_feeder(verifier: &Arc<Verifier>, mut signal: watch::Receiver<u64>) {
    let verifier = Arc::downgrade(verifier);
    tokio::spawn(async move {
        while signal.changed().await.is_ok() {
            let Some(verifier) = verifier.upgrade() else {
                break;
            };
            verifier.feed_finished().await;
        }
    });
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
                    not_analyzed: Default::default(),
                });
            let micros = u64::try_from(scan.duration.as_micros()).unwrap_or(u64::MAX);
            status.runs += 1;
            status.last_duration_micros = Some(micros);
            status.total_duration_micros = status.total_duration_micros.saturating_add(micros);
            status.last_error = scan.failure.clone();
            status.not_analyzed = scan.not_analyzed.clone();
        }
    }

    /// Keeps a wave's policy run failures for the status: a repeated failure moves to the end.
    fn fold_policy_failures(&mut self, failures: &[PolicyFailure]) {
        for failure in failures.iter().map(ToString::to_string) {
            self.policy_failures.retain(|kept| *kept != failure);
            self.policy_failures.push(failure);
        }
        let excess = self
            .policy_failures
            .len()
            .saturating_sub(KEPT_POLICY_FAILURES);
        self.policy_failures.drain(..excess);
    }
}

impl Session {
    /// Waits, at most the wave timeout, until every wave whose calls have ended is processed.
    /// `Err` carries why the workspace cannot be proven when the wait expired (the coordinator
    /// recorded the failure).
    async fn wait_for_waves(&self) -> Result<(), String> {
        let Some(coordinator) = self.state.coordinator() else {
            return Ok(());
        };
        coordinator.idle().await.map_err(|busy| {
            format!(
                "tool calls were still being processed after {} ms, so what they changed cannot be proven",
                busy.timeout_ms
            )
        })
    }

    /// A full snapshot of the live workspace on the blocking pool, at most the wave timeout;
    /// past it the snapshot is cancelled (a read that blocks is left behind), a coordinator
    /// failure is recorded and the workspace is unavailable to the gate.
    async fn live_workspace(&self, purpose: &str) -> WorkspaceObservation {
        let deadline = self.options.wave.timeout;
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
            Err(reason) => WorkspaceObservation::Unavailable {
                reason: reason.clone(),
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
                if let Err(reason) = waves {
                    verifier.observe_unknown(state, reason);
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

    /// `agent_before_settle`: refreshes the workspace and decides whether the agent may stop.
    pub async fn before_settle(&self) -> SettleOutcome {
        let unknown = self.wait_for_waves().await.err();
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
            notification: Some(format!("pi-native-hooks: {GATE_FAILED}")),
            entries: verifier.take_entries(),
        };
        match tracked {
            None => return failed(&self.verifier),
            // No verification policy matches this project: nothing to refresh or decide.
            Some(false) => {
                return SettleOutcome {
                    message: None,
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
            notification,
            entries: self.verifier.take_entries(),
        }
    }

    /// The waiver tool: waives every outstanding requirement with `reason`.
    pub async fn waive(&self, tool_call_id: &str, reason: &str) -> WaiverOutcome {
        let waves = self.wait_for_waves().await;
        let now = (self.options.clock)();
        let request = WaiverRequest {
            tool_call_id: tool_call_id.to_owned(),
            reason: reason.to_owned(),
        };
        let result = self
            .verifier
            .run(move |verifier, state| {
                verifier.feed(state);
                if let Err(reason) = waves {
                    verifier.observe_unknown(state, reason);
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

//! Owns the gate side of a session: the gate and what it folds from finished waves
//! ([`GateState`]), what each operation publishes for the synchronous calls ([`Published`]) and
//! the [`Verifier`] that runs operations one at a time, in call order, on tokio's blocking pool,
//! with the background task that feeds it each wave as it finishes. The session's operations
//! (`verify`) and its status (`report`) are built on these.

use crate::gate::observe::observe;
use crate::options::Clock;
use crate::status::{AnalyzerStatus, VerificationStatus};
use pi_native_hooks_analysis::AnalyzerKey;
use pi_native_hooks_policy::PolicyFailure;
use pi_native_hooks_verification::state::{self, StateEntry};
use pi_native_hooks_verification::{
    ObservedChanges, RequirementState, VerificationGate, WaveObservation,
};
use pi_native_hooks_wave::{NotAnalyzed, ScanStats, WaveCoordinator};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use tokio::sync::watch;
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What the gate side of a session keeps between calls. Only gate operations (on the blocking
/// pool, one at a time) lock it.
pub(crate) struct GateState {
    pub(crate) gate: VerificationGate,
    /// State entries of the current operation, moved to the outbox when it ends.
    pub(crate) entries: Vec<StateEntry>,
    /// Warnings from the last restore.
    pub(crate) state_warnings: Vec<String>,
    /// Per analyzer: runs, timing, health and the files it could not analyze, folded from
    /// finished waves.
    pub(crate) analyzers: BTreeMap<AnalyzerKey, AnalyzerStatus>,
    /// Policies that failed while running, folded from finished waves: distinct messages (each
    /// naming the file and the reason), most recent last, at most [`KEPT_POLICY_FAILURES`].
    pub(crate) policy_failures: Vec<String>,
}

impl GateState {
    /// The state of a session that has only its gate: no entries, warnings or folded waves yet.
    pub(crate) fn new(gate: VerificationGate) -> Self {
        Self {
            gate,
            entries: Vec::new(),
            state_warnings: Vec::new(),
            analyzers: BTreeMap::new(),
            policy_failures: Vec::new(),
        }
    }
}

/// How many distinct policy run failures the status keeps.
const KEPT_POLICY_FAILURES: usize = 20;

/// What the last gate operation left for the synchronous calls: built on the blocking pool when
/// the operation ends, read by cloning an `Arc`, so no reader waits for a policy run.
pub(crate) struct Published {
    pub(crate) verification: VerificationStatus,
    pub(crate) analyzers: Vec<AnalyzerStatus>,
    pub(crate) policy_failures: Vec<String>,
    pub(crate) state_warnings: Vec<String>,
    pub(crate) passed: usize,
    pub(crate) pending: usize,
    pub(crate) waived: usize,
    pub(crate) exhausted: bool,
}

impl Published {
    pub(crate) fn of(state: &GateState) -> Self {
        let mut published = Published {
            verification: VerificationStatus::of(&state.gate),
            analyzers: state.analyzers.values().cloned().collect(),
            policy_failures: state.policy_failures.clone(),
            state_warnings: state.state_warnings.clone(),
            passed: 0,
            pending: 0,
            waived: 0,
            exhausted: state.gate.cap().is_exhausted(),
        };
        for requirement in state.gate.requirements() {
            match requirement.state() {
                RequirementState::Passed => published.passed += 1,
                RequirementState::Waived => published.waived += 1,
                RequirementState::NotRun
                | RequirementState::Failed
                | RequirementState::Stale
                | RequirementState::Unknown => published.pending += 1,
                RequirementState::Inactive => {}
            }
        }
        published
    }
}

/// The gate side of a session, shared with the background task that feeds it finished waves.
pub(crate) struct Verifier {
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
    pub(crate) fn start(
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
    pub(crate) fn published(&self) -> Arc<Published> {
        Arc::clone(&lock(&self.published))
    }

    /// Queues `entries` for the binding ahead of anything produced later (a reload hands over
    /// the entries its predecessor had not delivered).
    pub(crate) fn queue(&self, mut entries: Vec<StateEntry>) {
        let mut outbox = lock(&self.outbox);
        entries.append(&mut outbox);
        *outbox = entries;
    }

    /// The state entries produced so far, oldest first.
    pub(crate) fn take_entries(&self) -> Vec<StateEntry> {
        std::mem::take(&mut *lock(&self.outbox))
    }

    /// Runs `op` on the gate on the blocking pool, after every operation called before it, then
    /// queues its entries and publishes the new state. `None` when `op` panicked (the state
    /// published before stays).
    pub(crate) async fn run<T: Send + 'static>(
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
        pi_native_hooks_base::run_blocking(move || {
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
    pub(crate) async fn feed_finished(self: &Arc<Self>) {
        let turn = self.turn.lock().await;
        if self
            .coordinator
            .as_ref()
            .is_some_and(WaveCoordinator::has_finished)
        {
            self.run_in_turn(turn, Verifier::feed).await;
        }
    }

    pub(crate) fn feed(&self, state: &mut GateState) {
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
    pub(crate) fn observe_unknown(&self, state: &mut GateState, reason: String) {
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
    pub(crate) fn collect_entry(&mut self) {
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
                    not_analyzed: NotAnalyzed::default(),
                    trees: None,
                });
            let micros = u64::try_from(scan.duration.as_micros()).unwrap_or(u64::MAX);
            status.runs += 1;
            status.last_duration_micros = Some(micros);
            status.total_duration_micros = status.total_duration_micros.saturating_add(micros);
            status.last_error.clone_from(&scan.failure);
            status.not_analyzed = scan.not_analyzed.clone();
            status.trees = scan.trees;
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

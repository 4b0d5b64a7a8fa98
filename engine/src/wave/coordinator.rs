//! Owns the execution-wave coordinator: the async API the Pi binding drives with Pi's tool
//! events. Event methods return at once; `tool_call` waits (bounded) for the wave's baseline
//! snapshot, `tool_result` waits (bounded) for the wave's outcome, `idle` waits (bounded) for
//! every background task. Finished waves are processed in background tasks
//! ([`super::pipeline`]) that are serialized on one lane, so snapshots, scans and the delivery
//! memory are never used by two waves at once; each one recorded is announced on a watch channel
//! ([`WaveCoordinator::finished_signal`]) so a consumer can take it off the caller's thread.

use super::analysis::AnalysisCoordinator;
use super::config::WaveConfig;
use super::event::{AssistantMessage, ResultDecision, ToolCallInfo, ToolResult};
use super::finished::{FinishedCall, FinishedWave};
use super::pipeline;
use super::plan::{BaselineOutcome, BaselineStart, BaselineWait, Coverage, Effects, Wait};
use super::snapshots::{GitWorkspace, SnapshotScope, SnapshotSource, relative_to};
use super::status::{CoordinatorFailure, WaveReport, WaveStatus, WaveTotals};
use super::tracker::Tracker;
use crate::delivery::DeliveryMemory;
use crate::policy::Cancellation;
use crate::workspace::CancelToken;
use std::collections::BTreeSet;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use tokio::runtime::Handle;
use tokio::sync::watch;

/// The coordinator could not be created.
#[derive(Debug, thiserror::Error)]
pub enum WaveError {
    /// [`WaveCoordinator::new`] was called outside a tokio runtime.
    #[error("the wave coordinator must be created inside a tokio runtime")]
    NoRuntime,
}

/// [`WaveCoordinator::idle`] ran out of time with background tasks still running.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{busy} wave tasks were still running after {timeout_ms} ms")]
pub struct StillBusy {
    /// Background tasks still running.
    pub busy: usize,
    /// The deadline that expired.
    pub timeout_ms: u64,
}

/// What only one wave at a time may use: the analyzers (and their caches), the delivery memory
/// and the workspace revision.
pub(super) struct Lane {
    pub(super) analysis: AnalysisCoordinator,
    pub(super) memory: DeliveryMemory,
    pub(super) revision: u64,
}

pub(super) struct Inner<W: SnapshotSource> {
    pub(super) config: WaveConfig,
    pub(super) source: Arc<W>,
    runtime: Handle,
    tracker: Mutex<Tracker<W::Snapshot>>,
    pub(super) lane: Arc<tokio::sync::Mutex<Lane>>,
    status: Mutex<WaveStatus>,
    /// Finished waves not yet taken by [`WaveCoordinator::take_finished`].
    finished: Mutex<Vec<FinishedWave<W::Snapshot>>>,
    busy: Arc<watch::Sender<usize>>,
    /// Counts the waves recorded so far; see [`WaveCoordinator::finished_signal`].
    recorded: watch::Sender<u64>,
    /// Cancels post-wave snapshots at shutdown.
    pub(super) stop: CancelToken,
    /// Cancels running policies at shutdown.
    pub(super) policy_stop: Cancellation,
}

/// Decrements the background task count when a task ends, however it ends.
struct Busy(Arc<watch::Sender<usize>>);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.send_modify(|n| *n = n.saturating_sub(1));
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<W: SnapshotSource> Inner<W> {
    pub(super) fn tracker(&self) -> MutexGuard<'_, Tracker<W::Snapshot>> {
        lock(&self.tracker)
    }

    /// Records a coordinator failure in the status.
    pub(super) fn fail(&self, failure: CoordinatorFailure) {
        lock(&self.status).fail(failure, self.config.history);
    }

    /// Records a finished wave in the status and hands it to [`WaveCoordinator::take_finished`].
    pub(super) fn record(
        &self,
        report: WaveReport,
        calls: Vec<FinishedCall>,
        before: Option<Arc<W::Snapshot>>,
        after: Option<Arc<W::Snapshot>>,
    ) {
        lock(&self.status).record(report.clone(), self.config.history);
        lock(&self.finished).push(FinishedWave {
            report,
            calls,
            before,
            after,
        });
        self.recorded.send_modify(|n| *n += 1);
    }

    pub(super) fn revision(&self) -> u64 {
        lock(&self.status).revision
    }

    /// Runs `task` in the background, counted for [`WaveCoordinator::idle`].
    fn spawn(&self, task: impl Future<Output = ()> + Send + 'static) {
        self.busy.send_modify(|n| *n += 1);
        let busy = Busy(Arc::clone(&self.busy));
        self.runtime.spawn(async move {
            let _busy = busy;
            task.await;
        });
    }

    fn apply(self: &Arc<Self>, effects: Effects<W::Snapshot>) {
        for failure in effects.failures {
            self.fail(failure);
        }
        for plan in effects.plans {
            self.spawn(pipeline::finish(Arc::clone(self), plan));
        }
    }

    /// Captures a wave's baseline after the waves before it are done, and publishes it.
    fn start_baseline(self: &Arc<Self>, start: BaselineStart<W::Snapshot>) {
        let inner = Arc::clone(self);
        self.spawn(async move {
            let lane = Arc::clone(&inner.lane).lock_owned().await;
            let cancel = start.handle.cancel.clone();
            let outcome = match inner.capture(&start.handle.coverage, cancel).await {
                Ok(snapshot) => BaselineOutcome::Ready(Arc::new(snapshot)),
                Err(reason) => BaselineOutcome::Failed(reason),
            };
            drop(lane);
            start.tx.send_replace(Some(outcome));
        });
    }

    /// The snapshot scope for `coverage`: targets outside the worktree are left out.
    pub(super) fn scope(&self, coverage: &Coverage) -> SnapshotScope {
        match coverage {
            Coverage::Full => SnapshotScope::Full,
            Coverage::Targets(paths) => SnapshotScope::Paths(
                paths
                    .iter()
                    .filter(|path| {
                        self.source
                            .git_root()
                            .is_some_and(|root| relative_to(root, path).is_some())
                    })
                    .cloned()
                    .collect(),
            ),
        }
    }

    /// A post-wave snapshot of `coverage` and its difference from `before`, on the blocking
    /// pool. Returns the changed paths and the post-wave snapshot.
    pub(super) async fn diff_since(
        &self,
        coverage: &Coverage,
        before: Arc<W::Snapshot>,
        cancel: CancelToken,
    ) -> Result<(BTreeSet<String>, Arc<W::Snapshot>), String> {
        if cancel.is_cancelled() {
            return Err("cancelled".into());
        }
        let scope = self.scope(coverage);
        let source = Arc::clone(&self.source);
        let diff = tokio::task::spawn_blocking(move || {
            let after = source.capture(&scope, &cancel)?;
            let paths = source.changed_paths(&before, &after)?;
            Ok::<_, crate::workspace::WorkspaceError>((paths, Arc::new(after)))
        });
        match diff.await {
            Ok(Ok(diff)) => Ok(diff),
            Ok(Err(error)) => Err(error.to_string()),
            Err(error) => Err(format!("the snapshot task failed: {error}")),
        }
    }

    /// One snapshot of `coverage` on the blocking pool.
    async fn capture(
        &self,
        coverage: &Coverage,
        cancel: CancelToken,
    ) -> Result<W::Snapshot, String> {
        if cancel.is_cancelled() {
            return Err("cancelled".into());
        }
        let scope = self.scope(coverage);
        let source = Arc::clone(&self.source);
        match tokio::task::spawn_blocking(move || source.capture(&scope, &cancel)).await {
            Ok(Ok(snapshot)) => Ok(snapshot),
            Ok(Err(error)) => Err(error.to_string()),
            Err(error) => Err(format!("the snapshot task failed: {error}")),
        }
    }
}

/// Turns Pi's tool events into waves, finds what each wave changed, analyzes it once and tells
/// each `tool_result` handler whether to append a block.
///
/// Cheap to clone (all clones share one session). Create it inside a tokio runtime; await its
/// async methods inside one too.
pub struct WaveCoordinator<W: SnapshotSource = GitWorkspace> {
    inner: Arc<Inner<W>>,
}

impl<W: SnapshotSource> Clone for WaveCoordinator<W> {
    fn clone(&self) -> Self {
        Self {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl<W: SnapshotSource> WaveCoordinator<W> {
    /// A coordinator for one session over `source` (the session's workspace) and `analysis`.
    pub fn new(
        config: WaveConfig,
        source: W,
        analysis: AnalysisCoordinator,
    ) -> Result<Self, WaveError> {
        let runtime = Handle::try_current().map_err(|_| WaveError::NoRuntime)?;
        let tracker = Tracker::new(
            config.tools.clone(),
            source.cwd().to_path_buf(),
            source.git_root().is_some(),
        );
        let lane = Lane {
            analysis,
            memory: DeliveryMemory::new(),
            revision: 0,
        };
        Ok(Self {
            inner: Arc::new(Inner {
                config,
                source: Arc::new(source),
                runtime,
                tracker: Mutex::new(tracker),
                lane: Arc::new(tokio::sync::Mutex::new(lane)),
                status: Mutex::new(WaveStatus::default()),
                finished: Mutex::new(Vec::new()),
                busy: Arc::new(watch::channel(0).0),
                recorded: watch::channel(0).0,
                stop: CancelToken::new(),
                policy_stop: Cancellation::new(),
            }),
        })
    }

    /// `turn_start`: later waves are reported under `turn`.
    pub fn turn_start(&self, turn: u64) {
        self.inner.tracker().turn_start(turn);
    }

    /// `turn_end`: every call of the turn has ended, so a wave still open lost events; it is
    /// finished with what is known and a coordinator failure is recorded.
    pub fn turn_end(&self) {
        let effects = self.inner.tracker().turn_end();
        self.inner.apply(effects);
    }

    /// An assistant `message_end` with its tool calls in source order. A parallel message forms
    /// one wave; a sequential one forms a wave per call.
    pub fn assistant_message(&self, message: AssistantMessage) {
        let effects = self.inner.tracker().assistant_message(message);
        self.inner.apply(effects);
    }

    /// `tool_execution_start`.
    pub fn tool_execution_start(&self, call: ToolCallInfo) {
        let effects = self.inner.tracker().tool_execution_start(call);
        self.inner.apply(effects);
    }

    /// `tool_call` (the preflight before the tool runs). Before the first potentially mutating
    /// call of a wave this takes the baseline snapshot; it returns once the baseline is taken or
    /// after the timeout (the wave's changes are then unknown). It never blocks the call.
    pub async fn tool_call(&self, call: ToolCallInfo) {
        let (effects, wait) = self.inner.tracker().tool_call(call);
        self.inner.apply(effects);
        let handle = match wait {
            BaselineWait::Proceed => return,
            BaselineWait::Await(handle) => handle,
            BaselineWait::Start(start) => {
                let handle = start.handle.clone();
                self.inner.start_baseline(start);
                handle
            }
        };
        let mut rx = handle.rx.clone();
        let ready = tokio::time::timeout(self.inner.config.timeout, rx.wait_for(Option::is_some))
            .await
            .is_ok_and(|slot| slot.is_ok());
        if !ready {
            handle.cancel.cancel();
        }
    }

    /// `tool_result`: waits until the call's wave is finished and analyzed (at most the
    /// timeout) and returns whether to append a block to this result. Read-only waves return at
    /// once. Never turns a result into an error: a decision only appends text.
    pub async fn tool_result(&self, result: &ToolResult) -> ResultDecision {
        let id = result.call.id.clone();
        let (effects, wait) = self.inner.tracker().tool_result(
            result.call.clone(),
            result.is_error,
            result.exit_code,
        );
        self.inner.apply(effects);
        let (wave, mut rx) = match wait {
            Wait::Immediate(decision) => return decision,
            Wait::Wave { wave, rx } => (wave, rx),
        };
        let timeout = self.inner.config.timeout;
        match tokio::time::timeout(timeout, &mut rx).await {
            Ok(Ok(decision)) => decision,
            Ok(Err(_)) => ResultDecision::Unchanged,
            Err(_) => {
                let millis = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
                let failure = self.inner.tracker().abandon_waiter(wave, &id, millis);
                if let Some(failure) = failure {
                    self.inner.fail(failure);
                }
                rx.try_recv().unwrap_or(ResultDecision::Unchanged)
            }
        }
    }

    /// `tool_execution_end`: terminal for a call that got no `tool_result` (invalid arguments,
    /// blocked); the normal closing event otherwise.
    pub fn tool_execution_end(&self, id: &str) {
        let effects = self.inner.tracker().tool_execution_end(id);
        self.inner.apply(effects);
    }

    /// Releases every waiting handler unchanged, cancels running snapshots and policies, and
    /// ignores later events.
    pub fn shutdown(&self) {
        let (effects, released) = self.inner.tracker().shutdown();
        self.inner.stop.cancel();
        self.inner.policy_stop.cancel();
        for waiter in released.into_iter().flat_map(|r| r.waiters) {
            let _ = waiter.1.send(ResultDecision::Unchanged);
        }
        self.inner.apply(effects);
    }

    /// Waits until no wave is being processed and no baseline is being captured, at most the
    /// timeout. On expiry a coordinator failure is recorded and the tasks keep running (a task
    /// blocked in a read is never waited for again); the caller must treat what they change as
    /// unknown.
    pub async fn idle(&self) -> Result<(), StillBusy> {
        let mut rx = self.inner.busy.subscribe();
        let timeout = self.inner.config.timeout;
        // An inner error means the sender is gone: nothing is running any more.
        let idle = tokio::time::timeout(timeout, rx.wait_for(|n| *n == 0))
            .await
            .is_ok();
        if idle {
            return Ok(());
        }
        let busy = *self.inner.busy.borrow();
        let timeout_ms = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
        self.inner
            .fail(CoordinatorFailure::IdleTimedOut { busy, timeout_ms });
        Err(StillBusy { busy, timeout_ms })
    }

    /// Takes the waves finished since the last call, in the order they finished (which is wave
    /// order: waves are processed one at a time). Await [`WaveCoordinator::idle`] first to
    /// include every wave whose calls have all ended.
    pub fn take_finished(&self) -> Vec<FinishedWave<W::Snapshot>> {
        std::mem::take(&mut *lock(&self.inner.finished))
    }

    /// True when a finished wave waits for [`WaveCoordinator::take_finished`].
    pub fn has_finished(&self) -> bool {
        !lock(&self.inner.finished).is_empty()
    }

    /// A receiver that changes each time a finished wave is recorded (and so can be taken with
    /// [`WaveCoordinator::take_finished`]). Its sender lives as long as the coordinator: once
    /// every clone is dropped, `changed()` returns an error.
    pub fn finished_signal(&self) -> watch::Receiver<u64> {
        self.inner.recorded.subscribe()
    }

    /// Records a failure of a wait the layers above own (a session's workspace snapshot), so the
    /// status lists it with the coordinator's own.
    pub fn record_failure(&self, failure: CoordinatorFailure) {
        self.inner.fail(failure);
    }

    /// The longest any wait of this coordinator lasts (its [`WaveConfig::timeout`]).
    pub fn timeout(&self) -> std::time::Duration {
        self.inner.config.timeout
    }

    /// Totals, the workspace revision, recent wave reports and coordinator failures.
    pub fn status(&self) -> WaveStatus {
        lock(&self.inner.status).clone()
    }

    /// The running totals alone (cheap: no report history is copied).
    pub fn totals(&self) -> WaveTotals {
        lock(&self.inner.status).totals.clone()
    }
}

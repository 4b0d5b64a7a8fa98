//! Owns the execution-wave coordinator: the async API the Pi binding drives with Pi's tool
//! events. Event methods return at once; `tool_call` waits (bounded) for the wave's baseline
//! snapshot, `tool_result` waits (bounded) for the wave's outcome, `idle` waits (bounded) for
//! every background task. Finished waves are processed in background tasks
//! ([`crate::pipeline`]) over the shared [`runtime`] that are serialized on one lane, so snapshots, scans and the delivery
//! memory are never used by two waves at once; each one recorded is announced on a watch channel
//! ([`WaveCoordinator::finished_signal`]) so a consumer can take it off the caller's thread.

pub(crate) mod report;
pub(crate) mod runtime;

use crate::config::WaveConfig;
use crate::event::{AssistantMessage, ResultDecision, ToolCallInfo, ToolResult};
use crate::pipeline;
use crate::pipeline::analysis::AnalysisCoordinator;
use crate::pipeline::finished::FinishedWave;
use crate::pipeline::snapshots::{GitWorkspace, SnapshotSource};
use crate::tracker::plan::{BaselineWait, Effects, Wait};
use report::{CoordinatorFailure, WaveHistory, WaveTotals};
use runtime::WaveRuntime;
use std::sync::Arc;
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

// Defined here rather than in `runtime` so the runtime does not depend on the pipeline that
// uses it.
impl<W: SnapshotSource> WaveRuntime<W> {
    /// Records the failures of `effects` and processes each wave plan it hands over.
    fn apply(self: &Arc<Self>, effects: Effects<W::Snapshot>) {
        for failure in effects.failures {
            self.fail(failure);
        }
        for plan in effects.plans {
            self.spawn(pipeline::finish(Arc::clone(self), plan));
        }
    }
}

/// Turns Pi's tool events into waves, finds what each wave changed, analyzes it once and tells
/// each `tool_result` handler whether to append a block.
///
/// Cheap to clone (all clones share one session). Create it inside a tokio runtime; await its
/// async methods inside one too.
pub struct WaveCoordinator<W: SnapshotSource = GitWorkspace> {
    inner: Arc<WaveRuntime<W>>,
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
        Ok(Self {
            inner: Arc::new(WaveRuntime::new(config, source, analysis, runtime)),
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

    /// Marks the call started; a second start for the same call is a `DuplicateEvent` failure.
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
        let ready = tokio::time::timeout(self.inner.config().timeout, rx.wait_for(Option::is_some))
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
        let timeout = self.inner.config().timeout;
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
        self.inner.stop();
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
        let mut rx = self.inner.busy();
        let timeout = self.inner.config().timeout;
        // An inner error means the sender is gone: nothing is running any more.
        let idle = tokio::time::timeout(timeout, rx.wait_for(|n| *n == 0))
            .await
            .is_ok();
        if idle {
            return Ok(());
        }
        let busy = self.inner.busy_now();
        let timeout_ms = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
        self.inner
            .fail(CoordinatorFailure::IdleTimedOut { busy, timeout_ms });
        Err(StillBusy { busy, timeout_ms })
    }

    /// At the settle, after [`WaveCoordinator::idle`]: asks the analyzers once more for what a
    /// wave left pending (a type check that outlasted its wave's wait), waiting at most the
    /// timeout, and returns the block of what that check introduced, recorded as delivered, for
    /// the settle to send. `None` when nothing was pending or nothing new arrived; what is still
    /// pending stays so, named in the status.
    pub async fn late_block(&self) -> Option<String> {
        let wait = self.inner.config().timeout;
        pipeline::late::late_block(&self.inner, wait)
            .await
            .map(|block| block.text)
    }

    /// Takes the waves finished since the last call, in the order they finished (which is wave
    /// order: waves are processed one at a time). Await [`WaveCoordinator::idle`] first to
    /// include every wave whose calls have all ended.
    pub fn take_finished(&self) -> Vec<FinishedWave<W::Snapshot>> {
        self.inner.take_finished()
    }

    /// True when a finished wave waits for [`WaveCoordinator::take_finished`].
    pub fn has_finished(&self) -> bool {
        self.inner.has_finished()
    }

    /// A receiver that changes each time a finished wave is recorded (and so can be taken with
    /// [`WaveCoordinator::take_finished`]). Its sender lives as long as the coordinator: once
    /// every clone is dropped, `changed()` returns an error.
    pub fn finished_signal(&self) -> watch::Receiver<u64> {
        self.inner.finished_signal()
    }

    /// Records a failure of a wait the layers above own (a session's workspace snapshot), so the
    /// status lists it with the coordinator's own.
    pub fn record_failure(&self, failure: CoordinatorFailure) {
        self.inner.fail(failure);
    }

    /// The longest any wait of this coordinator lasts (its [`WaveConfig::timeout`]).
    pub fn timeout(&self) -> std::time::Duration {
        self.inner.config().timeout
    }

    /// Totals, the workspace revision, recent wave reports and coordinator failures.
    pub fn status(&self) -> WaveHistory {
        self.inner.status()
    }

    /// The state of the watcher behind whole-worktree snapshots, if there is one.
    pub fn watch_status(&self) -> Option<pi_native_hooks_workspace::WatchStatus> {
        self.inner.source().watch_status()
    }

    /// The running totals alone (cheap: no report history is copied).
    pub fn totals(&self) -> WaveTotals {
        self.inner.totals()
    }
}

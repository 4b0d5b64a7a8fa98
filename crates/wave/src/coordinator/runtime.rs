//! Owns the shared state of one coordinator: the tracker, the lane that serializes waves, the
//! status, the finished waves waiting to be taken, the background task count and the stop
//! tokens. The coordinator's event methods and the pipeline use it through its methods only.

use crate::config::WaveConfig;
use crate::coordinator::report::{
    CoordinatorFailure, LaneStores, WaveHistory, WaveReport, WaveTotals,
};
use crate::pipeline::analysis::{AnalysisCoordinator, WaveAnalysis};
use crate::pipeline::finished::{FinishedCall, FinishedWave};
use crate::pipeline::prior::Priors;
use crate::pipeline::snapshots::{SnapshotFailure, SnapshotScope, SnapshotSource};
use crate::tracker::Tracker;
use crate::tracker::plan::{BaselineOutcome, BaselineStart, Coverage};
use pi_native_hooks_base::CancelToken;
use pi_native_hooks_base::relative_to;
use pi_native_hooks_base::{lock, run_blocking};
use pi_native_hooks_delivery::{DeliveryMemory, FindingHistory};
use pi_native_hooks_workspace::RevisionBlob;
use std::collections::BTreeSet;
use std::future::Future;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::runtime::Handle;
use tokio::sync::{OwnedMutexGuard, watch};

/// What only one wave at a time may use: the analyzers (and their caches), the delivery memory,
/// the findings each file held when last analyzed, and the workspace revision.
pub(crate) struct Lane {
    analysis: AnalysisCoordinator,
    memory: DeliveryMemory,
    history: FindingHistory,
    revision: u64,
}

impl Lane {
    /// Counts a new workspace revision when the wave changed something (or may have); returns
    /// the revision the wave leaves.
    pub(crate) fn advance(&mut self, changed: bool) -> u64 {
        if changed {
            self.revision += 1;
        }
        self.revision
    }

    /// Runs every analyzer and the diagnostic policies over `paths` below `root`.
    pub(crate) fn analyze(
        &mut self,
        root: &Path,
        paths: &BTreeSet<String>,
        edits: &[(String, pi_native_hooks_analysis::EditHint)],
        cancel: &CancelToken,
    ) -> WaveAnalysis {
        self.analysis.run_edited(root, paths, edits, cancel)
    }

    /// Whether an analyzer has files of an earlier wave still waiting for their analysis.
    pub(crate) fn has_pending(&self) -> bool {
        self.analysis.has_pending()
    }

    /// Analyzes once more what is pending, waiting at most `wait` per analyzer.
    pub(crate) fn flush(
        &mut self,
        root: &Path,
        wait: std::time::Duration,
        cancel: &CancelToken,
    ) -> WaveAnalysis {
        self.analysis.flush(root, wait, cancel)
    }

    /// What was delivered per file in earlier waves.
    pub(crate) fn memory(&mut self) -> &mut DeliveryMemory {
        &mut self.memory
    }

    /// What each file of `analysis` held before the wave: remembered, else read from the
    /// `HEAD` blobs `head_blobs(paths, limit)` returns.
    pub(crate) fn priors(
        &self,
        analysis: &WaveAnalysis,
        head_blobs: impl FnOnce(&[String], u64) -> Vec<RevisionBlob>,
    ) -> Priors {
        Priors::gather(analysis, &self.analysis, &self.history, head_blobs)
    }

    /// What each file held when last analyzed.
    pub(crate) fn history(&mut self) -> &mut FindingHistory {
        &mut self.history
    }

    /// How full the delivery memory and the finding history are.
    pub(crate) fn stores(&self) -> LaneStores {
        LaneStores {
            delivered: self.memory.usage(),
            history: self.history.usage(),
        }
    }
}

/// The state one coordinator and all its clones share.
pub(crate) struct WaveRuntime<W: SnapshotSource> {
    config: WaveConfig,
    source: Arc<W>,
    runtime: Handle,
    tracker: Mutex<Tracker<W::Snapshot>>,
    lane: Arc<tokio::sync::Mutex<Lane>>,
    status: Mutex<WaveHistory>,
    /// Finished waves not yet taken by [`WaveRuntime::take_finished`].
    finished: Mutex<Vec<FinishedWave<W::Snapshot>>>,
    busy: Arc<watch::Sender<usize>>,
    /// Counts the waves recorded so far; see [`WaveRuntime::finished_signal`].
    recorded: watch::Sender<u64>,
    /// Cancels post-wave snapshots and running policies at shutdown.
    stop: CancelToken,
}

/// Decrements the background task count when a task ends, however it ends.
struct Busy(Arc<watch::Sender<usize>>);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.send_modify(|n| *n = n.saturating_sub(1));
    }
}

impl<W: SnapshotSource> WaveRuntime<W> {
    /// The state of a new coordinator over `source` and `analysis`, spawning on `runtime`.
    pub(crate) fn new(
        config: WaveConfig,
        source: W,
        analysis: AnalysisCoordinator,
        runtime: Handle,
    ) -> Self {
        let tracker = Tracker::new(
            config.tools.clone(),
            source.cwd().to_path_buf(),
            source.git_root().is_some(),
        );
        let lane = Lane {
            analysis,
            memory: DeliveryMemory::new(),
            history: FindingHistory::new(),
            revision: 0,
        };
        Self {
            config,
            source: Arc::new(source),
            runtime,
            tracker: Mutex::new(tracker),
            lane: Arc::new(tokio::sync::Mutex::new(lane)),
            status: Mutex::new(WaveHistory::default()),
            finished: Mutex::new(Vec::new()),
            busy: Arc::new(watch::channel(0).0),
            recorded: watch::channel(0).0,
            stop: CancelToken::new(),
        }
    }

    pub(crate) fn config(&self) -> &WaveConfig {
        &self.config
    }

    /// The session's workspace.
    pub(crate) fn source(&self) -> &W {
        &self.source
    }

    /// The session's workspace, to move into a blocking task.
    pub(crate) fn shared_source(&self) -> Arc<W> {
        Arc::clone(&self.source)
    }

    pub(crate) fn tracker(&self) -> MutexGuard<'_, Tracker<W::Snapshot>> {
        lock(&self.tracker)
    }

    /// Waits until no other wave holds the lane.
    pub(crate) async fn lane(&self) -> OwnedMutexGuard<Lane> {
        Arc::clone(&self.lane).lock_owned().await
    }

    /// True once [`WaveRuntime::stop`] ran.
    pub(crate) fn is_stopped(&self) -> bool {
        self.stop.is_cancelled()
    }

    /// Cancels running snapshots and policies.
    pub(crate) fn stop(&self) {
        self.stop.cancel();
    }

    /// The token that cancels running policies at shutdown.
    pub(crate) fn policy_cancellation(&self) -> CancelToken {
        self.stop.clone()
    }

    /// Records a coordinator failure in the status.
    pub(crate) fn fail(&self, failure: CoordinatorFailure) {
        lock(&self.status).fail(failure, self.config.history);
    }

    /// Records a finished wave in the status and hands it to [`WaveRuntime::take_finished`].
    pub(crate) fn record(
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

    /// Records how full the lane's stores are, for the status.
    pub(crate) fn note_stores(&self, stores: LaneStores) {
        lock(&self.status).stores = stores;
    }

    /// The workspace revision of the last recorded wave.
    pub(crate) fn revision(&self) -> u64 {
        lock(&self.status).revision
    }

    /// A copy of the status.
    pub(crate) fn status(&self) -> WaveHistory {
        lock(&self.status).clone()
    }

    /// The running totals alone.
    pub(crate) fn totals(&self) -> WaveTotals {
        lock(&self.status).totals.clone()
    }

    /// Takes the finished waves recorded so far.
    pub(crate) fn take_finished(&self) -> Vec<FinishedWave<W::Snapshot>> {
        std::mem::take(&mut *lock(&self.finished))
    }

    /// True when a finished wave waits to be taken.
    pub(crate) fn has_finished(&self) -> bool {
        !lock(&self.finished).is_empty()
    }

    /// A receiver that changes each time a finished wave is recorded.
    pub(crate) fn finished_signal(&self) -> watch::Receiver<u64> {
        self.recorded.subscribe()
    }

    /// A receiver of the background task count.
    pub(crate) fn busy(&self) -> watch::Receiver<usize> {
        self.busy.subscribe()
    }

    /// How many background tasks run now.
    pub(crate) fn busy_now(&self) -> usize {
        *self.busy.borrow()
    }

    /// Runs `task` in the background, counted by [`WaveRuntime::busy`].
    pub(crate) fn spawn(&self, task: impl Future<Output = ()> + Send + 'static) {
        self.busy.send_modify(|n| *n += 1);
        let busy = Busy(Arc::clone(&self.busy));
        self.runtime.spawn(async move {
            let _busy = busy;
            task.await;
        });
    }

    /// Captures a wave's baseline after the waves before it are done, and publishes it.
    pub(crate) fn start_baseline(self: &Arc<Self>, start: BaselineStart<W::Snapshot>) {
        let runtime = Arc::clone(self);
        self.spawn(async move {
            let lane = runtime.lane().await;
            let cancel = start.handle.cancel.clone();
            let outcome = match runtime.capture(&start.handle.coverage, cancel).await {
                Ok(snapshot) => BaselineOutcome::Ready(Arc::new(snapshot)),
                Err(failure) => BaselineOutcome::Failed(failure.into()),
            };
            drop(lane);
            start.tx.send_replace(Some(outcome));
        });
    }

    /// The snapshot scope for `coverage`: targets outside the worktree are left out.
    pub(crate) fn scope(&self, coverage: &Coverage) -> SnapshotScope {
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
    /// pool; cancelled at shutdown. Returns the changed paths and the post-wave snapshot.
    pub(crate) async fn diff_since(
        &self,
        coverage: &Coverage,
        before: Arc<W::Snapshot>,
    ) -> Result<(BTreeSet<String>, Arc<W::Snapshot>), SnapshotFailure> {
        let cancel = self.stop.clone();
        if cancel.is_cancelled() {
            return Err(SnapshotFailure::Cancelled);
        }
        let scope = self.scope(coverage);
        let source = Arc::clone(&self.source);
        let diff = run_blocking(move || {
            let after = source.capture(&scope, &cancel)?;
            let paths = source.changed_paths(&before, &after)?;
            Ok::<_, pi_native_hooks_workspace::WorkspaceError>((paths, Arc::new(after)))
        });
        match diff.await {
            Ok(diff) => Ok(diff?),
            Err(error) => Err(SnapshotFailure::Task(error)),
        }
    }

    /// One snapshot of `coverage` on the blocking pool.
    async fn capture(
        &self,
        coverage: &Coverage,
        cancel: CancelToken,
    ) -> Result<W::Snapshot, SnapshotFailure> {
        if cancel.is_cancelled() {
            return Err(SnapshotFailure::Cancelled);
        }
        let scope = self.scope(coverage);
        let source = Arc::clone(&self.source);
        match run_blocking(move || source.capture(&scope, &cancel)).await {
            Ok(snapshot) => Ok(snapshot?),
            Err(error) => Err(SnapshotFailure::Task(error)),
        }
    }
}

//! Owns what the coordinator tells the status model (never the model itself): one
//! [`WaveReport`] per finished wave, running totals (the binding's scan counter), and the
//! coordinator failures — missing or inconsistent events, timeouts, failed snapshots.

use crate::event::ToolEvent;
use crate::pipeline::snapshots::SnapshotScope;
use pi_native_hooks_analysis::{AnalysisSnapshot, SkipReason, SkippedFile};
use pi_native_hooks_analysis::{AnalyzerKey, TreeCacheStats};
use pi_native_hooks_base::TaskFailed;
use pi_native_hooks_base::{CallId, StoreUse};
use pi_native_hooks_policy::PolicyFailure;
use pi_native_hooks_workspace::ChangeSet;
use serde::Serialize;
use std::collections::VecDeque;
use std::time::Duration;

/// A problem coordinating a wave. None of them changes a tool result or blocks a call.
#[expect(missing_docs, reason = "variant fields name what they hold")]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum CoordinatorFailure {
    /// A `tool_result` handler waited the whole timeout for its wave and was released unchanged.
    #[error(
        "wave {wave}: `{call}` waited {timeout_ms} ms for {pending:?} and was released unchanged"
    )]
    WaiterTimedOut {
        /// The wave's number (1 for the session's first).
        wave: u64,
        /// The released call.
        call: CallId,
        /// Calls of the wave still without a terminal event, if any (else processing was slow).
        pending: Vec<CallId>,
        timeout_ms: u64,
    },
    /// The wave was closed while some started calls never got a terminal event.
    #[error("wave {wave}: {calls:?} never reported `tool_result` or `tool_execution_end` ({at})")]
    EventsMissing {
        /// The wave's number (1 for the session's first).
        wave: u64,
        /// The calls without a terminal event.
        calls: Vec<CallId>,
        /// What closed the wave, e.g. `turn_end`.
        at: String,
    },
    /// A mutating call of a git workspace ran without a baseline snapshot.
    #[error("wave {wave}: no baseline snapshot before the calls ran ({reason})")]
    Baseline {
        /// The wave's number (1 for the session's first).
        wave: u64,
        /// Why there is none.
        reason: String,
    },
    /// The post-wave snapshot or the diff failed.
    #[error("wave {wave}: post-wave snapshot failed: {message}")]
    PostSnapshot {
        /// The wave's number (1 for the session's first).
        wave: u64,
        message: String,
    },
    /// The analysis task panicked or was lost.
    #[error("wave {wave}: the analysis task failed: {error}")]
    Processing {
        /// The wave's number (1 for the session's first).
        wave: u64,
        /// Why the task did not return.
        #[serde(rename = "message")]
        error: TaskFailed,
    },
    /// A bounded wait for the waves still being processed (before a settle, a restore or a
    /// waiver) ended with tasks still running: what those waves changed is unknown to the gate.
    #[error(
        "{busy} wave tasks were still running after {timeout_ms} ms; what they change cannot be proven"
    )]
    IdleTimedOut {
        /// Background tasks (baseline captures, finished waves) still running.
        busy: usize,
        timeout_ms: u64,
    },
    /// A session's workspace snapshot (at a settle or a restore) did not finish in time: the
    /// gate treats the workspace as unknown.
    #[error("the workspace snapshot for {purpose} did not finish within {timeout_ms} ms")]
    SnapshotTimedOut {
        /// What the snapshot was for, e.g. `the settle check`.
        purpose: String,
        timeout_ms: u64,
    },
    /// An event for a call whose wave had already ended.
    #[error("`{event}` for `{call}` arrived after its wave ended")]
    LateEvent {
        call: CallId,
        /// The event that came late.
        event: ToolEvent,
    },
    /// The same event twice for one call.
    #[error("duplicate `{event}` for `{call}`")]
    DuplicateEvent {
        call: CallId,
        /// The event that came twice.
        event: ToolEvent,
    },
}

/// How a wave ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum WaveEnd {
    /// Every call reported a terminal event.
    Complete,
    /// Closed by a later event (turn end, next assistant message) with calls still open.
    EventsMissing,
    /// Closed by shutdown: nothing was analyzed.
    Shutdown,
}

/// One analyzer run, for the status.
#[expect(missing_docs, reason = "`analyzer` names what it holds")]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScanStats {
    pub analyzer: AnalyzerKey,
    /// Paths requested.
    pub files: usize,
    /// Files parsed.
    pub parsed: usize,
    /// Files served from the content cache.
    pub cached: usize,
    /// Files skipped (with any reason, deletions included).
    pub skipped: usize,
    /// The skipped files other than deletions, by name and reason.
    pub not_analyzed: NotAnalyzed,
    /// Wall time of the scan.
    pub duration: Duration,
    /// Set when the scan failed as a whole or in part.
    pub failure: Option<String>,
    /// The analyzer's held trees and analysis counts after the scan, when it holds trees.
    pub trees: Option<TreeCacheStats>,
}

/// How many skipped files a [`NotAnalyzed`] names.
pub const NAMED_SKIPS: usize = 20;

/// The files a scan could not analyze for a reason other than their deletion: the first
/// [`NAMED_SKIPS`] by name and reason, and how many more there were.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct NotAnalyzed {
    /// The named files, in the scan's order.
    pub files: Vec<SkippedFile>,
    /// Further files not named.
    pub more: usize,
}

impl NotAnalyzed {
    /// The files of `snapshot` that were skipped for a reason other than their deletion.
    pub(crate) fn of(snapshot: &AnalysisSnapshot) -> Self {
        let mut skipped = snapshot
            .skipped
            .iter()
            .filter(|skipped| skipped.reason != SkipReason::Vanished);
        let files: Vec<SkippedFile> = skipped.by_ref().take(NAMED_SKIPS).cloned().collect();
        NotAnalyzed {
            files,
            more: skipped.count(),
        }
    }
}

/// What happened in one wave.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WaveReport {
    /// The wave's number (1-based, per coordinator).
    pub wave: u64,
    /// The turn it belonged to, when the binding reported turns.
    pub turn: Option<u64>,
    /// The calls, in source order.
    pub calls: Vec<CallId>,
    /// Whether every call reported a terminal event, or a shutdown closed the wave.
    pub end: WaveEnd,
    /// False for read-only waves: no snapshot, no analysis.
    pub mutating: bool,
    /// What the wave's snapshots covered; `None` when it took none.
    pub scope: Option<SnapshotScope>,
    /// Snapshots taken (baseline and post-wave).
    pub snapshots: usize,
    /// What changed: `None` for read-only waves; [`ChangeSet::Unknown`] when no safe path set
    /// exists (`bash` outside git, a failed snapshot).
    #[serde(serialize_with = "serialize_changes")]
    pub changes: Option<ChangeSet>,
    /// The workspace revision after the wave.
    pub revision: u64,
    /// Analyzer runs (at most one per key).
    pub scans: Vec<ScanStats>,
    /// Policies that failed in this wave: which policy, its file and function, and why.
    /// Serialized as their text.
    #[serde(serialize_with = "serialize_as_text")]
    pub policy_failures: Vec<PolicyFailure>,
    /// Current diagnostics of the analyzed files.
    pub diagnostics: usize,
    /// Diagnostics shown to the model in this wave.
    pub delivered: usize,
    /// New diagnostics cut by the line cap or without a carrier (shown when their file changes).
    pub undelivered: usize,
    /// Current diagnostics not repeated because they were delivered before.
    pub known: usize,
    /// New-to-the-model diagnostics left out because their findings were in the file before the
    /// wave (counted per file in the block).
    pub pre_existing: usize,
    /// Remembered diagnostics that the analysis no longer reports.
    pub resolved: usize,
    /// The call whose result carried the block.
    pub carrier: Option<CallId>,
    /// Coordinator failures of this wave.
    pub failures: Vec<CoordinatorFailure>,
    /// Time from the last terminal event to the release of the waiters.
    pub duration: Duration,
}

/// Running totals.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WaveTotals {
    /// Waves finished.
    pub waves: u64,
    /// Of which mutating.
    pub mutating_waves: u64,
    /// Analyzer runs (the binding's scan counter).
    pub scans: u64,
    /// Files parsed by ast-grep (not served from the content cache).
    pub files_parsed: u64,
    /// Files served from the content cache.
    pub files_cached: u64,
    /// Diagnostics delivered.
    pub delivered: u64,
    /// Coordinator failures recorded, including those no longer in the recent list.
    pub coordinator_failures: u64,
}

/// The coordinator's record of its waves: totals, the workspace revision and the most recent
/// reports and failures. The user-facing status (the session crate's `status`) shows it.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WaveHistory {
    /// Running totals.
    pub totals: WaveTotals,
    /// The workspace revision: advanced once per wave that changed (or may have changed) files.
    pub revision: u64,
    /// The most recent wave reports, oldest first.
    pub recent: VecDeque<WaveReport>,
    /// The most recent coordinator failures, oldest first.
    pub failures: VecDeque<CoordinatorFailure>,
    /// How full the delivery's per-session stores were after the last wave that delivered.
    pub stores: LaneStores,
}

/// The per-session stores a wave's delivery keeps, each bounded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LaneStores {
    /// Diagnostics remembered as delivered, so they are not repeated.
    pub delivered: StoreUse,
    /// Paths whose findings at their last analysis are remembered, to tell what a wave introduced.
    pub history: StoreUse,
}

impl WaveHistory {
    /// Records a finished wave, keeping at most `keep` reports.
    pub(crate) fn record(&mut self, report: WaveReport, keep: usize) {
        let totals = &mut self.totals;
        totals.waves += 1;
        totals.mutating_waves += u64::from(report.mutating);
        totals.scans += report.scans.len() as u64;
        totals.files_parsed += report.scans.iter().map(|s| s.parsed as u64).sum::<u64>();
        totals.files_cached += report.scans.iter().map(|s| s.cached as u64).sum::<u64>();
        totals.delivered += report.delivered as u64;
        self.revision = self.revision.max(report.revision);
        self.recent.push_back(report);
        while self.recent.len() > keep.max(1) {
            self.recent.pop_front();
        }
    }

    /// Records a coordinator failure, keeping at most `keep`.
    pub(crate) fn fail(&mut self, failure: CoordinatorFailure, keep: usize) {
        self.totals.coordinator_failures += 1;
        self.failures.push_back(failure);
        while self.failures.len() > keep.max(1) {
            self.failures.pop_front();
        }
    }
}

/// `null`, `{"paths": [...]}` or `{"unknown": "<reason>"}`.
fn serialize_as_text<S: serde::Serializer, T: std::fmt::Display>(
    items: &[T],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(items.iter().map(ToString::to_string))
}

// serde's `serialize_with` passes the field by reference, so the signature takes `&Option`.
#[expect(clippy::ref_option)]
fn serialize_changes<S: serde::Serializer>(
    changes: &Option<ChangeSet>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let Some(changes) = changes else {
        return serializer.serialize_none();
    };
    let mut map = serializer.serialize_map(Some(1))?;
    match changes {
        ChangeSet::Paths(paths) => map.serialize_entry("paths", paths)?,
        ChangeSet::Unknown { reason } => map.serialize_entry("unknown", reason)?,
    }
    map.end()
}

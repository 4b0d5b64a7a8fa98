//! Owns the processing of a finished wave: the post-wave snapshot and the changed paths (or the
//! non-git fallback), the workspace revision, one analysis with what each file held before it,
//! delivery selection (new to the model and introduced by the wave), the carrier and
//! its block, the release of every waiter and the wave's report.

pub(crate) mod analysis;
pub(crate) mod finished;
pub(crate) mod late;
pub(crate) mod prior;
pub(crate) mod snapshots;

use crate::coordinator::report::{CoordinatorFailure, ScanStats, WaveEnd, WaveReport};
use crate::coordinator::runtime::{Lane, WaveRuntime};
use crate::event::ResultDecision;
use crate::tracker::carrier;
use crate::tracker::plan::{
    BaselineFailure, BaselineHandle, BaselineOutcome, Coverage, PlannedCall, WavePlan,
};
use analysis::WaveAnalysis;
use finished::FinishedCall;
use pi_native_hooks_analysis::PolicyDiagnostic;
use pi_native_hooks_base::CallId;
use pi_native_hooks_base::run_blocking;
use pi_native_hooks_base::{RepoPath, relative_to};
use pi_native_hooks_delivery::diagnostic_start;
use pi_native_hooks_delivery::{Block, CarrierInfo, KeyedDiagnostic, Warnings, render};
use pi_native_hooks_workspace::{ChangeSet, MutatingCall, changeset_without_git};
use prior::{Judged, Priors};
use snapshots::{SnapshotScope, SnapshotSource};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{OwnedMutexGuard, oneshot};

/// Processes `plan` and releases its waiters: measures what the wave changed, analyses it,
/// delivers the block, and records the report assembled from those three parts.
pub(crate) async fn finish<W: SnapshotSource>(
    runtime: Arc<WaveRuntime<W>>,
    plan: WavePlan<W::Snapshot>,
) {
    let started = Instant::now();
    let scope = plan.baseline.as_ref().map(|h| runtime.scope(&h.coverage));
    if plan.end == WaveEnd::Shutdown || !plan.is_mutating() || runtime.is_stopped() {
        release_unchanged(&runtime, &plan, scope, None, Vec::new(), started);
        return;
    }
    let baseline = match &plan.baseline {
        Some(handle) => Some((
            baseline_outcome(handle, runtime.config().timeout).await,
            handle.coverage.clone(),
        )),
        None => None,
    };
    let mut lane = runtime.lane().await;
    if runtime.is_stopped() {
        release_unchanged(&runtime, &plan, scope, None, Vec::new(), started);
        return;
    }
    let measured = measure_changes(&runtime, &plan, baseline, &mut lane).await;
    let analysed = analyse(
        &runtime,
        &plan,
        &measured.changes,
        measured.after.clone(),
        lane,
    )
    .await;
    let (lane, analysis, priors) = match analysed {
        Ok(analysed) => analysed,
        Err(failure) => {
            runtime.fail(failure.clone());
            release_unchanged(
                &runtime,
                &plan,
                scope,
                Some(&measured),
                vec![failure],
                started,
            );
            return;
        }
    };
    for failure in &measured.failures {
        runtime.fail(failure.clone());
    }
    let delivery = deliver(
        &runtime,
        &plan,
        &analysis,
        &priors,
        &measured.failures,
        lane,
    );
    let report = WaveReport {
        revision: measured.revision,
        scans: analysis.runs.iter().map(scan_stats).collect(),
        policy_failures: analysis
            .runs
            .iter()
            .flat_map(|r| r.policies.failures.iter().cloned())
            .collect(),
        diagnostics: delivery.diagnostics,
        delivered: delivery.delivered,
        undelivered: delivery.undelivered,
        known: delivery.known,
        pre_existing: delivery.pre_existing,
        resolved: delivery.resolved,
        carrier: delivery.block.as_ref().map(|(id, _)| id.clone()),
        failures: measured
            .failures
            .into_iter()
            .chain(delivery.failures)
            .collect(),
        duration: started.elapsed(),
        ..report_of(&plan, scope, measured.snapshots, Some(measured.changes))
    };
    // Recorded before any waiter is released: once a `tool_result` handler returns, its wave is
    // in the status and in `take_finished`.
    runtime.record(
        report,
        finished_calls(&plan),
        measured.before,
        measured.after,
    );
    for (id, waiter) in delivery.waiters {
        let decision = match &delivery.block {
            Some((carrier, block)) if *carrier == id => ResultDecision::Append(block.text.clone()),
            _ => ResultDecision::Unchanged,
        };
        let _ = waiter.send(decision);
    }
}

/// What a wave changed, with the snapshots and the revision it leaves.
struct Measured<S> {
    changes: ChangeSet,
    /// Snapshots taken: 0, 1 (baseline) or 2 (baseline and post-wave).
    snapshots: usize,
    /// The workspace revision after the wave.
    revision: u64,
    before: Option<Arc<S>>,
    after: Option<Arc<S>>,
    /// Baseline or post-wave snapshot failures.
    failures: Vec<CoordinatorFailure>,
}

/// Measures what the wave changed and advances the revision when it changed something.
async fn measure_changes<W: SnapshotSource>(
    runtime: &WaveRuntime<W>,
    plan: &WavePlan<W::Snapshot>,
    baseline: Option<(BaselineOutcome<W::Snapshot>, Coverage)>,
    lane: &mut Lane,
) -> Measured<W::Snapshot> {
    let mut failures = Vec::new();
    let (changes, snapshots, (before, after)) =
        changes(runtime, plan, baseline, &mut failures).await;
    let advanced = match &changes {
        ChangeSet::Paths(paths) => !paths.is_empty(),
        ChangeSet::Unknown { .. } => true,
    };
    Measured {
        changes,
        snapshots,
        revision: lane.advance(advanced),
        before,
        after,
        failures,
    }
}

/// Runs one analysis of what the wave changed on the blocking pool, holding the lane, and
/// gathers what each analyzed file held before the wave (remembered, else its `HEAD` blob);
/// gives the lane back with both, or a processing failure when the task died.
async fn analyse<W: SnapshotSource>(
    runtime: &WaveRuntime<W>,
    plan: &WavePlan<W::Snapshot>,
    changes: &ChangeSet,
    after: Option<Arc<W::Snapshot>>,
    mut lane: OwnedMutexGuard<Lane>,
) -> Result<(OwnedMutexGuard<Lane>, WaveAnalysis, Priors), CoordinatorFailure> {
    let (root, paths) = analysis_paths(runtime, plan, changes);
    if paths.is_empty() {
        return Ok((lane, WaveAnalysis::default(), Priors::default()));
    }
    let edits = edit_hints(&plan.calls, &root);
    let cancel = runtime.policy_cancellation();
    let source = runtime.shared_source();
    run_blocking(move || {
        let analysis = lane.analyze(&root, &paths, &edits, &cancel);
        let priors = lane.priors(&analysis, |paths, limit| {
            source.head_blobs(paths, after.as_deref(), limit)
        });
        (lane, analysis, priors)
    })
    .await
    .map_err(|error| CoordinatorFailure::Processing {
        wave: plan.wave,
        error,
    })
}

/// What reached the model from one wave, and the waiters to release.
struct Delivery {
    diagnostics: usize,
    delivered: usize,
    undelivered: usize,
    known: usize,
    pre_existing: usize,
    resolved: usize,
    /// The carrier call and its block.
    block: Option<(CallId, Block)>,
    waiters: Vec<(CallId, oneshot::Sender<ResultDecision>)>,
    /// Failures met while releasing the wave.
    failures: Vec<CoordinatorFailure>,
}

/// Selects the diagnostics not delivered before that report findings the wave introduced,
/// renders them in one block on the carrier with a count of the pre-existing ones per file, and
/// updates the delivery memory and the findings history; releases the lane.
fn deliver<W: SnapshotSource>(
    runtime: &WaveRuntime<W>,
    plan: &WavePlan<W::Snapshot>,
    analysis: &WaveAnalysis,
    priors: &Priors,
    earlier_failures: &[CoordinatorFailure],
    mut lane: OwnedMutexGuard<Lane>,
) -> Delivery {
    let wave_diagnostics = analysis.diagnostics();
    let selection = lane.memory().select(&wave_diagnostics);
    let judged = Judged::new(analysis, priors);
    let (fresh, old) = introduced(&selection.fresh, &judged);
    let pre_existing = pre_existing_per_file(&old);
    let released = runtime.tracker().release(plan.wave);
    let waiting: BTreeSet<&str> = released.waiters.iter().map(|(id, _)| id.as_str()).collect();
    let carrier = carrier::choose(&plan.calls, &waiting);
    let warnings = Warnings {
        policy_failures: analysis.policy_failures(),
        analyzer_failures: analysis.analyzer_failures(),
        files_not_analyzed: analysis.files_not_analyzed(),
        files_not_type_checked: analysis.files_not_type_checked(),
        coordinator_failures: earlier_failures.len() + released.failures.len(),
    };
    let diagnostics: Vec<&PolicyDiagnostic> = fresh.iter().map(|k| &k.diagnostic).collect();
    let block = carrier.and_then(|call| {
        let info = CarrierInfo {
            tool: &call.name,
            is_error: call.result == Some(true),
        };
        render(
            info,
            &diagnostics,
            &pre_existing,
            &warnings,
            runtime.config().render,
        )
        .map(|block| (call.id.clone(), block))
    });
    let shown = block
        .as_ref()
        .map_or(&[][..], |(_, block)| &block.shown[..]);
    let (delivered, resolved) = remember(
        &mut lane,
        analysis,
        &judged,
        &wave_diagnostics,
        &fresh,
        shown,
    );
    runtime.note_stores(lane.stores());
    drop(lane);
    Delivery {
        diagnostics: wave_diagnostics.diagnostics.len(),
        delivered,
        undelivered: fresh.len() - delivered,
        known: selection.known,
        pre_existing: old.len(),
        resolved,
        block,
        waiters: released.waiters,
        failures: released.failures,
    }
}

/// The diagnostics new to the model split into those the wave introduced (to deliver) and those
/// whose findings the files already held before it (to count).
pub(crate) fn introduced<'a>(
    fresh: &[&'a KeyedDiagnostic],
    judged: &Judged,
) -> (Vec<&'a KeyedDiagnostic>, Vec<&'a KeyedDiagnostic>) {
    fresh
        .iter()
        .copied()
        .partition(|keyed| !judged.is_pre_existing(keyed))
}

/// How many pre-existing diagnostics each file has, in path order.
pub(crate) fn pre_existing_per_file<'a>(old: &[&'a KeyedDiagnostic]) -> Vec<(&'a str, usize)> {
    let mut per_file: BTreeMap<&str, usize> = BTreeMap::new();
    for keyed in old {
        *per_file.entry(keyed.diagnostic.path.as_str()).or_default() += 1;
    }
    per_file.into_iter().collect()
}

/// Records what the block listed (`shown`, indices into `fresh`) as delivered and what each
/// analyzed file held, keeping the introduced diagnostics the block left out for a later block;
/// returns how many were delivered and how many earlier deliveries resolved.
pub(crate) fn remember(
    lane: &mut Lane,
    analysis: &WaveAnalysis,
    judged: &Judged,
    wave_diagnostics: &pi_native_hooks_delivery::WaveDiagnostics,
    fresh: &[&KeyedDiagnostic],
    shown: &[usize],
) -> (usize, usize) {
    let delivered: Vec<&KeyedDiagnostic> = shown.iter().map(|&i| fresh[i]).collect();
    let shown: HashSet<_> = delivered
        .iter()
        .map(|k| diagnostic_start(&k.diagnostic))
        .collect();
    let undelivered_starts: HashSet<_> = fresh
        .iter()
        .map(|k| diagnostic_start(&k.diagnostic))
        .filter(|start| !shown.contains(start))
        .collect();
    judged.remember(analysis, lane.history(), &undelivered_starts);
    let resolved = lane
        .memory()
        .settle(wave_diagnostics, delivered.iter().copied());
    (delivered.len(), resolved)
}

/// The report of a wave that delivered nothing: identity, scope, and what was measured.
fn report_of<S>(
    plan: &WavePlan<S>,
    scope: Option<SnapshotScope>,
    snapshots: usize,
    changes: Option<ChangeSet>,
) -> WaveReport {
    WaveReport {
        wave: plan.wave,
        turn: plan.turn,
        calls: plan.calls.iter().map(|c| c.id.clone()).collect(),
        end: plan.end,
        mutating: plan.is_mutating(),
        scope,
        snapshots,
        changes,
        revision: 0,
        scans: Vec::new(),
        policy_failures: Vec::new(),
        diagnostics: 0,
        delivered: 0,
        undelivered: 0,
        known: 0,
        pre_existing: 0,
        resolved: 0,
        carrier: None,
        failures: Vec::new(),
        duration: Duration::ZERO,
    }
}

fn finished_calls<S>(plan: &WavePlan<S>) -> Vec<FinishedCall> {
    plan.calls.iter().map(PlannedCall::finished).collect()
}

/// Releases every waiter of `plan` unchanged and records the report (read-only wave, shutdown
/// or a failed analysis, with what was measured before it failed).
fn release_unchanged<W: SnapshotSource>(
    runtime: &WaveRuntime<W>,
    plan: &WavePlan<W::Snapshot>,
    scope: Option<SnapshotScope>,
    measured: Option<&Measured<W::Snapshot>>,
    mut failures: Vec<CoordinatorFailure>,
    started: Instant,
) {
    let released = runtime.tracker().release(plan.wave);
    failures.extend(released.failures);
    let report = WaveReport {
        revision: runtime.revision(),
        failures,
        duration: started.elapsed(),
        ..report_of(
            plan,
            scope,
            measured.map_or(0, |m| m.snapshots),
            measured.map(|m| m.changes.clone()),
        )
    };
    runtime.record(report, finished_calls(plan), None, None);
    for (_, waiter) in released.waiters {
        let _ = waiter.send(ResultDecision::Unchanged);
    }
}

/// The baseline once published (bounded by `timeout`). A baseline whose `tool_call` stopped
/// waiting for it was taken too late to trust.
async fn baseline_outcome<S>(handle: &BaselineHandle<S>, timeout: Duration) -> BaselineOutcome<S> {
    let mut rx = handle.rx.clone();
    let outcome = match tokio::time::timeout(timeout, rx.wait_for(Option::is_some)).await {
        Ok(Ok(slot)) => slot.clone(),
        Ok(Err(_)) => None,
        Err(_) => {
            handle.cancel.cancel();
            Some(BaselineOutcome::Failed(BaselineFailure::NotTakenWithin(
                timeout,
            )))
        }
    };
    if handle.cancel.is_cancelled() {
        return BaselineOutcome::Failed(BaselineFailure::NotReadyBeforeCalls);
    }
    outcome.unwrap_or(BaselineOutcome::Failed(BaselineFailure::CaptureTaskEnded))
}

/// The baseline and post-wave snapshots of a wave, each when it was taken.
type Snapshots<S> = (Option<Arc<S>>, Option<Arc<S>>);

/// What the wave changed: the diff of the baseline and a post-wave snapshot of the same scope in
/// git; the explicit targets outside git; unknown when no safe path set exists. Also returns the
/// number of snapshots taken and those that were kept.
async fn changes<W: SnapshotSource>(
    runtime: &WaveRuntime<W>,
    plan: &WavePlan<W::Snapshot>,
    baseline: Option<(BaselineOutcome<W::Snapshot>, Coverage)>,
    failures: &mut Vec<CoordinatorFailure>,
) -> (ChangeSet, usize, Snapshots<W::Snapshot>) {
    let executed: Vec<&PlannedCall> = plan
        .calls
        .iter()
        .filter(|c| c.executed && c.class.is_mutating())
        .collect();
    if runtime.source().git_root().is_none() {
        let calls: Vec<MutatingCall> = executed
            .iter()
            .map(|call| match &call.class {
                crate::tracker::tools::ToolClass::Targeted { path } => MutatingCall::Targeted {
                    tool: call.name.clone(),
                    path: path.clone(),
                },
                _ => MutatingCall::Untargeted {
                    tool: call.name.clone(),
                },
            })
            .collect();
        return (
            changeset_without_git(runtime.source().cwd(), &calls),
            0,
            (None, None),
        );
    }
    let unknown = |failure: BaselineFailure, failures: &mut Vec<CoordinatorFailure>| {
        let reason = failure.to_string();
        let change = format!("no baseline snapshot: {reason}");
        failures.push(CoordinatorFailure::Baseline {
            wave: plan.wave,
            reason,
        });
        (ChangeSet::Unknown { reason: change }, 0, (None, None))
    };
    let (before, coverage) = match baseline {
        None if executed.is_empty() => {
            return (ChangeSet::Paths(BTreeSet::new()), 0, (None, None));
        }
        None => {
            return unknown(BaselineFailure::NoToolCall, failures);
        }
        Some((BaselineOutcome::Failed(reason), _)) => return unknown(reason, failures),
        Some((BaselineOutcome::Ready(before), coverage)) => (before, coverage),
    };
    let diff = runtime.diff_since(&coverage, Arc::clone(&before)).await;
    match diff {
        Ok((paths, after)) => (ChangeSet::Paths(paths), 2, (Some(before), Some(after))),
        Err(failure) => {
            let message = failure.to_string();
            let reason = format!("post-wave snapshot failed: {message}");
            failures.push(CoordinatorFailure::PostSnapshot {
                wave: plan.wave,
                message,
            });
            (ChangeSet::Unknown { reason }, 1, (Some(before), None))
        }
    }
}

/// The analysis root and the relative paths to analyze: the changed paths, or — when the
/// change set is unknown — the explicit targets of the calls that ran.
fn analysis_paths<W: SnapshotSource>(
    runtime: &WaveRuntime<W>,
    plan: &WavePlan<W::Snapshot>,
    changes: &ChangeSet,
) -> (PathBuf, BTreeSet<String>) {
    let root = runtime
        .source()
        .git_root()
        .unwrap_or_else(|| runtime.source().cwd())
        .to_path_buf();
    let paths = match changes {
        ChangeSet::Paths(paths) => paths
            .iter()
            .filter(|path| !Path::new(path).is_absolute())
            .cloned()
            .collect(),
        ChangeSet::Unknown { .. } => plan
            .calls
            .iter()
            .filter(|call| call.executed)
            .filter_map(|call| match &call.class {
                crate::tracker::tools::ToolClass::Targeted { path } => {
                    relative_to(&root, path).map(RepoPath::into_string)
                }
                _ => None,
            })
            .collect(),
    };
    (root, paths)
}

/// The replacement of each file (relative to `root`) that exactly one call of the wave targeted,
/// when that call was an `edit` of one replacement that ran. The analyzer uses a hint only when
/// it turns the file's held text into the text it reads (else it compares the two texts), so a
/// file also changed by an untargeted call (`bash`) costs at most the hint's check.
fn edit_hints(
    calls: &[PlannedCall],
    root: &Path,
) -> Vec<(String, pi_native_hooks_analysis::EditHint)> {
    let mut by_path: BTreeMap<String, Vec<&PlannedCall>> = BTreeMap::new();
    for call in calls {
        if let crate::tracker::tools::ToolClass::Targeted { path } = &call.class
            && let Some(relative) = relative_to(root, path)
        {
            by_path
                .entry(relative.into_string())
                .or_default()
                .push(call);
        }
    }
    by_path
        .into_iter()
        .filter_map(|(path, calls)| match calls.as_slice() {
            [only] if only.executed => {
                crate::tracker::tools::edit_hint(&only.name, &only.input).map(|hint| (path, hint))
            }
            _ => None,
        })
        .collect()
}

fn scan_stats(run: &analysis::AnalyzerRun) -> ScanStats {
    let snapshot = &run.snapshot;
    ScanStats {
        analyzer: snapshot.analyzer.clone(),
        files: run.request.paths.len(),
        parsed: snapshot.parsed_files,
        cached: snapshot.cached_files,
        skipped: snapshot.skipped.len(),
        not_analyzed: crate::coordinator::report::NotAnalyzed::of(snapshot),
        duration: snapshot.duration,
        failure: snapshot.failure.as_ref().map(ToString::to_string),
        trees: run.trees,
    }
}

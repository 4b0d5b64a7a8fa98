//! Owns the processing of a finished wave: the post-wave snapshot and the changed paths (or the
//! non-git fallback), the workspace revision, one analysis, delivery selection, the carrier and
//! its block, the release of every waiter and the wave's report.

use super::coordinator::Inner;
use super::finished::FinishedCall;
use super::plan::{BaselineHandle, BaselineOutcome, Coverage, PlannedCall, WavePlan};
use super::snapshots::{SnapshotSource, relative_to};
use super::status::{CoordinatorFailure, ScanStats, WaveEnd, WaveReport};
use super::{analysis::WaveAnalysis, carrier, event::ResultDecision};
use crate::delivery::{CarrierInfo, KeyedDiagnostic, Warnings, render};
use crate::policy::PolicyDiagnostic;
use crate::workspace::{ChangeSet, MutatingCall, changeset_without_git};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Processes `plan` and releases its waiters.
pub(super) async fn finish<W: SnapshotSource>(inner: Arc<Inner<W>>, plan: WavePlan<W::Snapshot>) {
    let started = Instant::now();
    let mut report = WaveReport {
        wave: plan.wave,
        turn: plan.turn,
        calls: plan.calls.iter().map(|c| c.id.clone()).collect(),
        end: plan.end,
        mutating: plan.is_mutating(),
        scope: plan.baseline.as_ref().map(|h| inner.scope(&h.coverage)),
        snapshots: 0,
        changes: None,
        revision: 0,
        scans: Vec::new(),
        policy_failures: Vec::new(),
        diagnostics: 0,
        delivered: 0,
        undelivered: 0,
        known: 0,
        resolved: 0,
        carrier: None,
        failures: Vec::new(),
        duration: Duration::ZERO,
    };
    if plan.end == WaveEnd::Shutdown || !report.mutating || inner.stop.is_cancelled() {
        release_unchanged(&inner, &plan, &mut report, started);
        return;
    }
    let baseline = match &plan.baseline {
        Some(handle) => Some((
            baseline_outcome(handle, inner.config.timeout).await,
            handle.coverage.clone(),
        )),
        None => None,
    };
    let mut lane = Arc::clone(&inner.lane).lock_owned().await;
    if inner.stop.is_cancelled() {
        release_unchanged(&inner, &plan, &mut report, started);
        return;
    }
    let mut failures = Vec::new();
    let (changes, (before, after)) =
        changes(&inner, &plan, baseline, &mut report, &mut failures).await;
    let advanced = match &changes {
        ChangeSet::Paths(paths) => !paths.is_empty(),
        ChangeSet::Unknown { .. } => true,
    };
    if advanced {
        lane.revision += 1;
    }
    report.revision = lane.revision;
    let (root, paths) = analysis_paths(&inner, &plan, &changes);
    report.changes = Some(changes);

    let analysis = if paths.is_empty() {
        WaveAnalysis::default()
    } else {
        let cancel = inner.policy_stop.clone();
        let joined = tokio::task::spawn_blocking(move || {
            let analysis = lane.analysis.run(&root, &paths, &cancel);
            (lane, analysis)
        })
        .await;
        match joined {
            Ok((back, analysis)) => {
                lane = back;
                analysis
            }
            Err(error) => {
                let failure = CoordinatorFailure::Processing {
                    wave: plan.wave,
                    message: error.to_string(),
                };
                inner.fail(failure.clone());
                report.failures.push(failure);
                release_unchanged(&inner, &plan, &mut report, started);
                return;
            }
        }
    };

    for failure in &failures {
        inner.fail(failure.clone());
    }
    let wave_diagnostics = analysis.diagnostics();
    let selection = lane.memory.select(&wave_diagnostics);
    let released = inner.tracker().release(plan.wave);
    failures.extend(released.failures);
    let waiting: BTreeSet<&str> = released.waiters.iter().map(|(id, _)| id.as_str()).collect();
    let carrier = carrier::choose(&plan.calls, &waiting);
    let warnings = Warnings {
        policy_failures: analysis.policy_failures(),
        analyzer_failures: analysis.analyzer_failures(),
        files_not_analyzed: analysis.files_not_analyzed(),
        coordinator_failures: failures.len(),
    };
    let fresh: Vec<&PolicyDiagnostic> = selection.fresh.iter().map(|k| &k.diagnostic).collect();
    let block = carrier.and_then(|call| {
        let info = CarrierInfo {
            tool: &call.name,
            is_error: call.result == Some(true),
        };
        render(info, &fresh, &warnings, inner.config.render).map(|block| (call.id.clone(), block))
    });
    let delivered: Vec<&KeyedDiagnostic> = block
        .iter()
        .flat_map(|(_, block)| block.shown.iter().map(|&i| selection.fresh[i]))
        .collect();
    report.resolved = lane
        .memory
        .settle(&wave_diagnostics, delivered.iter().copied());
    report.diagnostics = wave_diagnostics.diagnostics.len();
    report.delivered = delivered.len();
    report.undelivered = selection.fresh.len() - delivered.len();
    report.known = selection.known;
    report.scans = analysis.runs.iter().map(scan_stats).collect();
    report.policy_failures = analysis
        .runs
        .iter()
        .flat_map(|r| r.policies.failures.iter().map(ToString::to_string))
        .collect();
    report.failures = failures;
    report.carrier = block.as_ref().map(|(id, _)| id.clone());
    drop(lane);
    report.duration = started.elapsed();
    // Recorded before any waiter is released: once a `tool_result` handler returns, its wave is
    // in the status and in `take_finished`.
    inner.record(report, finished_calls(&plan), before, after);
    for (id, waiter) in released.waiters {
        let decision = match &block {
            Some((carrier, block)) if *carrier == id => ResultDecision::Append(block.text.clone()),
            _ => ResultDecision::Unchanged,
        };
        let _ = waiter.send(decision);
    }
}

fn finished_calls<S>(plan: &WavePlan<S>) -> Vec<FinishedCall> {
    plan.calls.iter().map(PlannedCall::finished).collect()
}

/// Releases every waiter of `plan` unchanged and records the report (read-only wave, shutdown
/// or a failed analysis).
fn release_unchanged<W: SnapshotSource>(
    inner: &Inner<W>,
    plan: &WavePlan<W::Snapshot>,
    report: &mut WaveReport,
    started: Instant,
) {
    let released = inner.tracker().release(plan.wave);
    report.failures.extend(released.failures);
    report.revision = inner.revision();
    report.duration = started.elapsed();
    inner.record(report.clone(), finished_calls(plan), None, None);
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
            Some(BaselineOutcome::Failed(format!(
                "not taken within {} ms",
                timeout.as_millis()
            )))
        }
    };
    if handle.cancel.is_cancelled() {
        return BaselineOutcome::Failed("it was not ready before the calls ran".into());
    }
    outcome.unwrap_or_else(|| BaselineOutcome::Failed("the capture task ended without one".into()))
}

/// The baseline and post-wave snapshots of a wave, each when it was taken.
type Snapshots<S> = (Option<Arc<S>>, Option<Arc<S>>);

/// What the wave changed: the diff of the baseline and a post-wave snapshot of the same scope in
/// git; the explicit targets outside git; unknown when no safe path set exists. Also returns the
/// baseline and post-wave snapshots that were taken.
async fn changes<W: SnapshotSource>(
    inner: &Arc<Inner<W>>,
    plan: &WavePlan<W::Snapshot>,
    baseline: Option<(BaselineOutcome<W::Snapshot>, Coverage)>,
    report: &mut WaveReport,
    failures: &mut Vec<CoordinatorFailure>,
) -> (ChangeSet, Snapshots<W::Snapshot>) {
    let executed: Vec<&PlannedCall> = plan
        .calls
        .iter()
        .filter(|c| c.executed && c.class.is_mutating())
        .collect();
    if inner.source.git_root().is_none() {
        let calls: Vec<MutatingCall> = executed
            .iter()
            .map(|call| match &call.class {
                super::tools::ToolClass::Targeted { path } => MutatingCall::Targeted {
                    tool: call.name.clone(),
                    path: path.clone(),
                },
                _ => MutatingCall::Untargeted {
                    tool: call.name.clone(),
                },
            })
            .collect();
        return (
            changeset_without_git(inner.source.cwd(), &calls),
            (None, None),
        );
    }
    let unknown = |reason: String, failures: &mut Vec<CoordinatorFailure>| {
        failures.push(CoordinatorFailure::Baseline {
            wave: plan.wave,
            reason: reason.clone(),
        });
        (
            ChangeSet::Unknown {
                reason: format!("no baseline snapshot: {reason}"),
            },
            (None, None),
        )
    };
    let (before, coverage) = match baseline {
        None if executed.is_empty() => return (ChangeSet::Paths(BTreeSet::new()), (None, None)),
        None => {
            return unknown(
                "no `tool_call` was reported before the calls ran".into(),
                failures,
            );
        }
        Some((BaselineOutcome::Failed(reason), _)) => return unknown(reason, failures),
        Some((BaselineOutcome::Ready(before), coverage)) => (before, coverage),
    };
    report.snapshots = 1;
    let diff = inner
        .diff_since(&coverage, Arc::clone(&before), inner.stop.clone())
        .await;
    match diff {
        Ok((paths, after)) => {
            report.snapshots = 2;
            (ChangeSet::Paths(paths), (Some(before), Some(after)))
        }
        Err(message) => {
            failures.push(CoordinatorFailure::PostSnapshot {
                wave: plan.wave,
                message: message.clone(),
            });
            (
                ChangeSet::Unknown {
                    reason: format!("post-wave snapshot failed: {message}"),
                },
                (Some(before), None),
            )
        }
    }
}

/// The analysis root and the relative paths to analyze: the changed paths, or — when the
/// change set is unknown — the explicit targets of the calls that ran.
fn analysis_paths<W: SnapshotSource>(
    inner: &Inner<W>,
    plan: &WavePlan<W::Snapshot>,
    changes: &ChangeSet,
) -> (PathBuf, BTreeSet<String>) {
    let root = inner
        .source
        .git_root()
        .unwrap_or_else(|| inner.source.cwd())
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
                super::tools::ToolClass::Targeted { path } => relative_to(&root, path),
                _ => None,
            })
            .collect(),
    };
    (root, paths)
}

fn scan_stats(run: &super::analysis::AnalyzerRun) -> ScanStats {
    let snapshot = &run.snapshot;
    ScanStats {
        analyzer: snapshot.analyzer.clone(),
        files: run.request.paths.len(),
        parsed: snapshot.parsed_files,
        cached: snapshot.cached_files,
        skipped: snapshot.skipped.len(),
        not_analyzed: super::status::NotAnalyzed::of(snapshot),
        duration: snapshot.duration,
        failure: snapshot.failure.clone(),
    }
}

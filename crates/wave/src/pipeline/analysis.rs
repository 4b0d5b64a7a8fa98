//! Owns the analysis coordinator: from a wave's changed paths, one request per analyzer that has
//! rules of its own or a diagnostic policy consuming it, coalesced by analyzer key; each key
//! scanned at most once per wave (never for a read-only wave or when no changed path is
//! relevant); the one immutable `Arc<AnalysisSnapshot>` fanned out to every interested policy, a
//! failing policy isolated.
//!
//! The findings of rules no policy consumes reach the model as they are, exactly as `check`
//! prints them ([`DiagnosticRun::results`]): with the rule's own message and note. A policy that
//! consumes a rule speaks for its findings instead. They are diagnostics of the analyzer itself
//! ([`analyzer_policy_id`]), delivered and remembered like a policy's.
//!
//! Analyzers sit behind the analysis crate's port ([`WaveAnalyzer`]) and policies behind
//! [`DiagnosticPolicies`], so the coordinator knows neither, and tests can count scans.

use pi_native_hooks_analysis::{
    AnalysisSnapshot, AnalyzerKey, EditHint, PolicyDiagnostic, ScanRequest, SkipReason,
    TreeCacheStats, WaveAnalyzer,
};
use pi_native_hooks_base::CancelToken;
use pi_native_hooks_base::{PolicyId, SharedText};
use pi_native_hooks_delivery::{Coverage, FindingIndex, WaveDiagnostics};
use pi_native_hooks_policy::{CheckResult, DiagnosticRun, PolicyRegistry};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// The diagnostic policies of a session.
pub trait DiagnosticPolicies: Send + Sync {
    /// The ids of the diagnostic policies that consume snapshots of `analyzer`.
    fn consumers(&self, analyzer: &AnalyzerKey) -> Vec<PolicyId>;
    /// Runs every interested policy over `snapshot`; a failing policy is reported, not fatal.
    fn evaluate(&self, snapshot: &Arc<AnalysisSnapshot>, cancel: &CancelToken) -> DiagnosticRun;
}

impl DiagnosticPolicies for PolicyRegistry {
    fn consumers(&self, analyzer: &AnalyzerKey) -> Vec<PolicyId> {
        self.diagnostic_consumers(analyzer)
            .map(|(policy, _)| policy.contract.id.clone())
            .collect()
    }

    fn evaluate(&self, snapshot: &Arc<AnalysisSnapshot>, cancel: &CancelToken) -> DiagnosticRun {
        self.evaluate_diagnostics(snapshot, cancel)
    }
}

/// What one analyzer must scan for the policies that consume it.
#[expect(missing_docs, reason = "`analyzer` names what it holds")]
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AnalyzerRequest {
    pub analyzer: AnalyzerKey,
    /// The changed paths it handles.
    pub paths: BTreeSet<String>,
    /// The policies waiting for its snapshot (none when only the analyzer's own rules asked for
    /// it).
    pub policies: BTreeSet<PolicyId>,
}

/// One analyzer run of a wave and what the policies made of it.
#[expect(missing_docs, reason = "`request` names what it holds")]
#[derive(Clone, Debug)]
pub struct AnalyzerRun {
    pub request: AnalyzerRequest,
    /// The immutable snapshot every policy saw.
    pub snapshot: Arc<AnalysisSnapshot>,
    /// The policies' diagnostics, failures and logs.
    pub policies: DiagnosticRun,
    /// The findings of rules no policy that ran consumes, as diagnostics of the analyzer itself
    /// ([`unreported_diagnostics`]).
    pub unreported: Vec<PolicyDiagnostic>,
    /// The analyzer's held trees and analysis counts after the scan.
    pub trees: Option<TreeCacheStats>,
}

impl AnalyzerRun {
    /// The run of `request` in which `analyzer` produced `snapshot`, with the interested policies
    /// run over it and the findings none of them consumed.
    fn of(
        request: AnalyzerRequest,
        snapshot: Arc<AnalysisSnapshot>,
        analyzer: &dyn WaveAnalyzer,
        policies: &dyn DiagnosticPolicies,
        cancel: &CancelToken,
    ) -> Self {
        let trees = analyzer.tree_cache_stats();
        let policies = policies.evaluate(&snapshot, cancel);
        let unreported = unreported_diagnostics(&policies, &snapshot);
        Self {
            request,
            snapshot,
            policies,
            unreported,
            trees,
        }
    }
}

/// The policy id unconsumed rules' findings are delivered under: the analyzer's key (e.g.
/// `ast-grep:personal`). A policy's `ID` has no `:`, so it never names a real policy.
pub fn analyzer_policy_id(analyzer: &AnalyzerKey) -> PolicyId {
    PolicyId::from(analyzer.as_str())
}

/// What the model is told to do about an unused `ast-grep-ignore` comment (ast-grep's
/// `unused-suppression` hint has a message but no note).
const UNUSED_SUPPRESSION_GUIDANCE: &str =
    "Remove the `ast-grep-ignore` comment, or correct the rule id it names.";

/// The findings of `snapshot` whose rule no policy of `run` consumed and that no diagnostic
/// reports — the same [`CheckResult::Unreported`] results `check` prints — as diagnostics of the
/// analyzer: the rule's severity, message and position, its note as the guidance (empty when it
/// has none).
pub fn unreported_diagnostics(
    run: &DiagnosticRun,
    snapshot: &AnalysisSnapshot,
) -> Vec<PolicyDiagnostic> {
    let policy = analyzer_policy_id(&snapshot.analyzer);
    let unused_suppression = SharedText::from(UNUSED_SUPPRESSION_GUIDANCE);
    run.results(snapshot)
        .into_iter()
        .filter_map(|result| match result {
            CheckResult::Unreported(finding) => Some(finding),
            CheckResult::Policy { .. } => None,
        })
        .map(|f| {
            let guidance = if f.rule == ast_grep_config::UNUSED_SUPPRESSION_ID {
                unused_suppression.clone()
            } else {
                f.note.clone().unwrap_or_default()
            };
            PolicyDiagnostic {
                path: f.path.clone(),
                line: f.range.start.line + 1,
                column: f.range.start.column + 1,
                end_line: f.range.end.line + 1,
                end_column: f.range.end.column + 1,
                rule: f.rule.clone(),
                policy: policy.clone(),
                severity: f.severity,
                message: f.message.clone(),
                guidance,
            }
        })
        .collect()
}

/// All analyzer runs of one wave.
#[derive(Clone, Debug, Default)]
pub struct WaveAnalysis {
    /// At most one run per analyzer key.
    pub runs: Vec<AnalyzerRun>,
}

impl WaveAnalysis {
    /// The fingerprinted diagnostics (the policies' and the unconsumed findings') and which
    /// `(path, policy)` results are complete. The analyzer's own result for a path is complete
    /// whenever the path's analysis is, whichever policy failed (a failed policy's rules are then
    /// among the unconsumed ones).
    pub fn diagnostics(&self) -> WaveDiagnostics {
        let mut keyed = Vec::new();
        let mut coverage = Coverage::default();
        for run in &self.runs {
            let index = FindingIndex::new(&run.snapshot);
            keyed.extend(
                run.policies
                    .diagnostics
                    .iter()
                    .chain(&run.unreported)
                    .cloned()
                    .map(|d| index.key(d)),
            );
            if run.snapshot.failure.is_some() || run.snapshot.omitted_findings > 0 {
                continue;
            }
            let failed: BTreeSet<&str> = run
                .policies
                .failures
                .iter()
                .map(|f| f.policy.as_str())
                .collect();
            // The snapshot's paths: the requested ones, and any the analyzer added (the
            // TypeScript analyzer's dependents).
            let paths: BTreeSet<&String> = run
                .request
                .paths
                .iter()
                .chain(&run.snapshot.paths)
                .collect();
            for path in paths {
                let skipped = run
                    .snapshot
                    .skipped
                    .iter()
                    .any(|s| s.path == *path && s.reason != SkipReason::Vanished);
                if skipped {
                    continue;
                }
                for policy in &run.request.policies {
                    if !failed.contains(policy.as_str()) {
                        coverage.add(path, policy);
                    }
                }
                coverage.add(path, &analyzer_policy_id(&run.request.analyzer));
            }
        }
        WaveDiagnostics::new(keyed, coverage)
    }

    /// Policies that failed, over all runs.
    pub fn policy_failures(&self) -> usize {
        self.runs.iter().map(|r| r.policies.failures.len()).sum()
    }

    /// Runs whose analysis failed as a whole or in part.
    pub fn analyzer_failures(&self) -> usize {
        self.runs
            .iter()
            .filter(|r| r.snapshot.failure.is_some())
            .count()
    }

    /// Files skipped for a reason other than having been deleted or an incomplete type check,
    /// plus runs whose findings were truncated.
    pub fn files_not_analyzed(&self) -> usize {
        self.runs
            .iter()
            .map(|r| {
                let skipped = r
                    .snapshot
                    .skipped
                    .iter()
                    .filter(|s| s.reason != SkipReason::Vanished && !s.reason.is_type_check())
                    .count();
                skipped + usize::from(r.snapshot.omitted_findings > 0)
            })
            .sum()
    }

    /// Files whose type check is incomplete (pending, unavailable, or cut by the dependents
    /// bound).
    pub fn files_not_type_checked(&self) -> usize {
        self.runs
            .iter()
            .flat_map(|r| &r.snapshot.skipped)
            .filter(|s| s.reason.is_type_check())
            .count()
    }
}

/// The analysis coordinator could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum AnalysisSetupError {
    /// Two analyzers share a key, so requests for it could not be coalesced.
    #[error("two analyzers share the key `{0}`; each key must be unique")]
    DuplicateKey(AnalyzerKey),
}

/// Runs the analyzers a wave needs, each at most once, and fans their snapshots out to the
/// policies.
pub struct AnalysisCoordinator {
    analyzers: Vec<Box<dyn WaveAnalyzer>>,
    policies: Arc<dyn DiagnosticPolicies>,
}

impl AnalysisCoordinator {
    /// A coordinator over `analyzers` (unique keys) and `policies`.
    pub fn new(
        analyzers: Vec<Box<dyn WaveAnalyzer>>,
        policies: Arc<dyn DiagnosticPolicies>,
    ) -> Result<Self, AnalysisSetupError> {
        let mut keys = BTreeSet::new();
        for analyzer in &analyzers {
            if !keys.insert(analyzer.key().clone()) {
                return Err(AnalysisSetupError::DuplicateKey(analyzer.key().clone()));
            }
        }
        Ok(Self {
            analyzers,
            policies,
        })
    }

    /// The analyzer with key `key`.
    pub fn analyzer(&self, key: &AnalyzerKey) -> Option<&dyn WaveAnalyzer> {
        self.analyzers
            .iter()
            .find(|a| a.key() == key)
            .map(AsRef::as_ref)
    }

    /// The requests for `changed` paths: one per analyzer with at least one relevant path that
    /// has rules of its own (their findings reach the model without a policy) or a diagnostic
    /// policy consuming it, coalesced by analyzer key.
    pub fn requests(&self, changed: &BTreeSet<String>) -> Vec<AnalyzerRequest> {
        let mut coalesced: BTreeMap<&AnalyzerKey, AnalyzerRequest> = BTreeMap::new();
        for analyzer in &self.analyzers {
            let relevant: BTreeSet<String> = changed
                .iter()
                .filter(|path| analyzer.handles(path))
                .cloned()
                .collect();
            if relevant.is_empty() {
                continue;
            }
            let consumers = self.policies.consumers(analyzer.key());
            if consumers.is_empty() && !analyzer.has_rules() {
                continue;
            }
            let request = coalesced
                .entry(analyzer.key())
                .or_insert_with(|| AnalyzerRequest {
                    analyzer: analyzer.key().clone(),
                    ..AnalyzerRequest::default()
                });
            request.paths.extend(relevant);
            request.policies.extend(consumers);
        }
        coalesced.into_values().collect()
    }

    /// Scans what `changed` requires under `root` (each analyzer key once), runs the interested
    /// policies over each snapshot and keeps the findings of the rules none of them consumed.
    pub fn run(
        &mut self,
        root: &Path,
        changed: &BTreeSet<String>,
        cancel: &CancelToken,
    ) -> WaveAnalysis {
        self.run_edited(root, changed, &[], cancel)
    }

    /// Whether an analyzer has files of an earlier wave still waiting for their analysis.
    pub fn has_pending(&self) -> bool {
        self.analyzers.iter().any(|a| a.has_pending())
    }

    /// Analyzes once more what each analyzer has pending, waiting at most `wait` per analyzer,
    /// and runs the interested policies over each snapshot, as a wave's runs.
    pub fn flush(&mut self, root: &Path, wait: Duration, cancel: &CancelToken) -> WaveAnalysis {
        let mut runs = Vec::new();
        for analyzer in &mut self.analyzers {
            let Some(snapshot) = analyzer.flush(root, wait) else {
                continue;
            };
            let request = AnalyzerRequest {
                analyzer: analyzer.key().clone(),
                paths: snapshot.paths.iter().cloned().collect(),
                policies: self
                    .policies
                    .consumers(analyzer.key())
                    .into_iter()
                    .collect(),
            };
            let run = AnalyzerRun::of(request, snapshot, &**analyzer, &*self.policies, cancel);
            runs.push(run);
        }
        WaveAnalysis { runs }
    }

    /// [`run`](Self::run), with the replacement an `edit` call made in some of the changed files
    /// (repository-relative paths), passed to the analyzers that read them.
    pub fn run_edited(
        &mut self,
        root: &Path,
        changed: &BTreeSet<String>,
        edits: &[(String, EditHint)],
        cancel: &CancelToken,
    ) -> WaveAnalysis {
        let requests = self.requests(changed);
        let mut runs = Vec::with_capacity(requests.len());
        for request in requests {
            let Some(analyzer) = self
                .analyzers
                .iter_mut()
                .find(|a| *a.key() == request.analyzer)
            else {
                continue;
            };
            let paths: Vec<String> = request.paths.iter().cloned().collect();
            let hints: Vec<(String, EditHint)> = edits
                .iter()
                .filter(|(path, _)| request.paths.contains(path))
                .cloned()
                .collect();
            let snapshot = analyzer.scan(&ScanRequest {
                root,
                paths: &paths,
                edits: &hints,
            });
            let run = AnalyzerRun::of(request, snapshot, &**analyzer, &*self.policies, cancel);
            runs.push(run);
        }
        WaveAnalysis { runs }
    }
}

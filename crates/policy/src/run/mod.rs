//! Running loaded policies: diagnostic policies over one shared `Arc<AnalysisSnapshot>` (fan-out)
//! and verification policies' `affects(path)` predicates, within a total time budget per
//! evaluation and cached per (policy digest, function, path). A failing policy is reported and
//! its siblings still run; failure messages are truncated.

pub(crate) mod affects_cache;
pub(crate) mod diagnostic;

use crate::registry::contract::{
    PolicySpec, ProjectSpec, Requirement, VerificationSpec, rule_selected,
};
use crate::registry::failure::{
    FailureReason, MAX_MESSAGE_BYTES, PolicyFailure, PolicyLog, bounded,
};
use crate::registry::{LoadedPolicy, PolicyRegistry};
use crate::sandbox::view::SnapshotView;
use crate::sandbox::{CallOutput, RunError};
use diagnostic::from_result;
use pi_native_hooks_analysis::{AnalysisSnapshot, Finding, PolicyDiagnostic};
use pi_native_hooks_base::CancelToken;
use pi_native_hooks_base::{PolicyId, RuleId};
use rhai::{Dynamic, ImmutableString};
use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The total time the `affects` predicates of one evaluation may take: one wave's changes, one
/// settle or restore refresh. Each call still has its own deadline
/// ([`SandboxLimits::deadline`](super::SandboxLimits::deadline)) and no call runs past the budget;
/// requirements still undecided when it runs out are reported in
/// [`VerificationRun::undecided`] (the gate makes them `unknown`). Cached answers cost nothing.
pub const AFFECTS_BUDGET: Duration = Duration::from_secs(1);

/// How one evaluation of the verification policies runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AffectsOptions {
    /// The total time budget of the evaluation's predicate calls.
    pub budget: Duration,
    /// Keep what the predicates print (only for a caller that shows it).
    pub keep_logs: bool,
}

impl Default for AffectsOptions {
    fn default() -> Self {
        Self {
            budget: AFFECTS_BUDGET,
            keep_logs: true,
        }
    }
}

/// What the diagnostic policies produced for one snapshot.
#[derive(Clone, Debug, Default)]
pub struct DiagnosticRun {
    /// Diagnostics of every policy that succeeded, sorted by path, position, rule and policy.
    pub diagnostics: Vec<PolicyDiagnostic>,
    /// The `RULES` of every policy that ran without failing: their findings are the policies' to
    /// report or leave out, so [`DiagnosticRun::results`] never shows them raw.
    pub consumed: BTreeSet<RuleId>,
    /// Policies that failed on this snapshot.
    pub failures: Vec<PolicyFailure>,
    /// What the policies printed.
    pub logs: Vec<PolicyLog>,
}

/// One result of a diagnostic run over a snapshot, as `check` reports it.
#[expect(missing_docs, reason = "`diagnostic` names what it holds")]
#[derive(Clone, Copy, Debug)]
pub enum CheckResult<'a> {
    /// A policy's diagnostic, with the finding it reports when one starts where it does.
    Policy {
        diagnostic: &'a PolicyDiagnostic,
        /// The finding of the same rule at the same path, line and column.
        finding: Option<&'a Finding>,
    },
    /// A finding of a rule no policy consumed (a rule without a policy, one whose policies all
    /// failed, an unused suppression) that no diagnostic reports: never lost, shown as the
    /// rule's message and note.
    Unreported(&'a Finding),
}

impl CheckResult<'_> {
    /// Path, 1-based line and column, rule: the order results are reported in.
    fn order(&self) -> (&str, usize, usize, &str) {
        match self {
            Self::Policy { diagnostic: d, .. } => (&d.path, d.line, d.column, &d.rule),
            Self::Unreported(f) => {
                let (rule, path, line, column) = location(f);
                (path, line, column, rule)
            }
        }
    }
}

/// Where a finding starts, 1-based: how a policy diagnostic names the finding it reports.
fn location(f: &Finding) -> (&str, &str, usize, usize) {
    (
        &f.rule,
        &f.path,
        f.range.start.line + 1,
        f.range.start.column + 1,
    )
}

impl DiagnosticRun {
    /// The policies' diagnostics joined with every finding of `snapshot` that no diagnostic
    /// reports and whose rule no policy that ran consumes, in one deterministic order (path,
    /// line, column, rule; stable for equal keys). A policy that consumes a rule speaks for its
    /// findings, including those it leaves out; `check` and the Pi wave both deliver this.
    pub fn results<'a>(&'a self, snapshot: &'a AnalysisSnapshot) -> Vec<CheckResult<'a>> {
        let by_location: HashMap<_, _> =
            snapshot.findings.iter().map(|f| (location(f), f)).collect();
        let reported: HashSet<_> = self
            .diagnostics
            .iter()
            .map(|d| (d.rule.as_str(), d.path.as_str(), d.line, d.column))
            .collect();
        let mut results: Vec<CheckResult<'a>> = self
            .diagnostics
            .iter()
            .map(|d| CheckResult::Policy {
                diagnostic: d,
                finding: by_location
                    .get(&(d.rule.as_str(), d.path.as_str(), d.line, d.column))
                    .copied(),
            })
            .chain(
                snapshot
                    .findings
                    .iter()
                    .filter(|f| {
                        !reported.contains(&location(f))
                            && !rule_selected(&self.consumed, f.rule.as_str())
                    })
                    .map(CheckResult::Unreported),
            )
            .collect();
        results.sort_by(|a, b| a.order().cmp(&b.order()));
        results
    }
}

/// A requirement some changed paths make necessary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AffectedRequirement {
    /// The verification policy's id.
    pub policy: PolicyId,
    /// The policy's `PROJECT`.
    pub project: ProjectSpec,
    /// The requirement, as its policy declares it.
    pub requirement: Requirement,
    /// The changed paths that need it, in the order given.
    pub paths: Vec<String>,
}

/// A requirement the budget ran out on: no path was found to affect it, but not every path was
/// checked, so it can be neither affected nor unaffected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UndecidedRequirement {
    /// The verification policy's id.
    pub policy: PolicyId,
    /// The requirement, as its policy declares it.
    pub requirement: Requirement,
    /// Why, for the user.
    pub reason: String,
}

/// What the verification policies decided for a set of changed paths.
#[derive(Clone, Debug, Default)]
pub struct VerificationRun {
    /// Requirements with at least one affecting path, in policy and declaration order.
    pub requirements: Vec<AffectedRequirement>,
    /// Predicates that failed (the requirement is then reported as failed, not as unaffected).
    pub failures: Vec<PolicyFailure>,
    /// Requirements left undecided when the budget ran out.
    pub undecided: Vec<UndecidedRequirement>,
    /// What the policies printed (empty unless [`AffectsOptions::keep_logs`]).
    pub logs: Vec<PolicyLog>,
    /// Predicate calls that ran (the others were answered from the cache).
    pub predicate_calls: usize,
}

impl PolicyRegistry {
    /// Runs every diagnostic policy that consumes `snapshot.analyzer` and has at least one finding
    /// of its `RULES`. Every policy sees the same snapshot through its own read-only view.
    pub fn evaluate_diagnostics(
        &self,
        snapshot: &Arc<AnalysisSnapshot>,
        cancel: &CancelToken,
    ) -> DiagnosticRun {
        let mut run = DiagnosticRun::default();
        for policy in self.policies() {
            self.evaluate_into(policy, snapshot, cancel, &mut run);
        }
        run.diagnostics.sort();
        run
    }

    /// Runs one diagnostic policy over `snapshot` (nothing when it is a verification policy, does
    /// not consume this analyzer, or sees no finding of its rules).
    pub fn evaluate_policy(
        &self,
        policy: &LoadedPolicy,
        snapshot: &Arc<AnalysisSnapshot>,
        cancel: &CancelToken,
    ) -> DiagnosticRun {
        let mut run = DiagnosticRun::default();
        self.evaluate_into(policy, snapshot, cancel, &mut run);
        run.diagnostics.sort();
        run
    }

    fn evaluate_into(
        &self,
        policy: &LoadedPolicy,
        snapshot: &Arc<AnalysisSnapshot>,
        cancel: &CancelToken,
        run: &mut DiagnosticRun,
    ) {
        let PolicySpec::Diagnostic(spec) = &policy.contract.spec else {
            return;
        };
        if !spec.accepts_analyzer(&snapshot.analyzer) {
            return;
        }
        let view = SnapshotView::new(Arc::clone(snapshot), &spec.rules);
        if view.is_empty() {
            run.consumed.extend(spec.rules.iter().cloned());
            return;
        }
        let argument = (Dynamic::from(view.clone()),);
        let output = self.sandbox.call(&policy.ast, "evaluate", argument, cancel);
        let Some(value) = collect(policy, "evaluate", output, &mut run.logs, &mut run.failures)
        else {
            return;
        };
        match from_result(value, &policy.contract.id, spec, &view) {
            Ok(diagnostics) => {
                run.diagnostics.extend(diagnostics);
                run.consumed.extend(spec.rules.iter().cloned());
            }
            Err(message) => run.failures.push(failure(
                policy,
                "evaluate",
                FailureReason::Malformed(message.to_string()),
            )),
        }
    }

    /// The verification policies and their metadata.
    pub fn verification_policies(
        &self,
    ) -> impl Iterator<Item = (&LoadedPolicy, &VerificationSpec)> {
        self.policies()
            .iter()
            .filter_map(|policy| match &policy.contract.spec {
                PolicySpec::Verification(spec) => Some((policy, spec)),
                PolicySpec::Diagnostic(_) => None,
            })
    }

    /// Whether a change to `path` requires `requirement` of verification policy `policy` (no
    /// cache, no budget beyond the call's own deadline).
    pub fn affects(
        &self,
        policy: &LoadedPolicy,
        requirement: &Requirement,
        path: &str,
        cancel: &CancelToken,
        logs: &mut Vec<PolicyLog>,
    ) -> Result<bool, PolicyFailure> {
        self.affects_until(policy, requirement, path, cancel, None, logs)
    }

    fn affects_until(
        &self,
        policy: &LoadedPolicy,
        requirement: &Requirement,
        path: &str,
        cancel: &CancelToken,
        until: Option<Instant>,
        logs: &mut Vec<PolicyLog>,
    ) -> Result<bool, PolicyFailure> {
        let mut failures = Vec::new();
        let output = self.sandbox.call_until(
            &policy.ast,
            &requirement.affects,
            (ImmutableString::from(path),),
            cancel,
            until,
        );
        let value = collect(policy, &requirement.affects, output, logs, &mut failures);
        match (value, failures.pop()) {
            (_, Some(failed)) => Err(failed),
            (Some(value), None) => value.as_bool().map_err(|type_name| {
                failure(
                    policy,
                    &requirement.affects,
                    FailureReason::Malformed(format!("must return a boolean, not {type_name}")),
                )
            }),
            (None, None) => Err(failure(
                policy,
                &requirement.affects,
                FailureReason::Malformed("no value".into()),
            )),
        }
    }

    /// Evaluates every requirement of every verification policy against `paths`, within
    /// [`AFFECTS_BUDGET`], keeping what the predicates print.
    pub fn affected_requirements(&self, paths: &[String], cancel: &CancelToken) -> VerificationRun {
        self.affected_requirements_with(paths, cancel, AffectsOptions::default())
    }

    /// Evaluates every requirement of every verification policy against `paths`: answers come
    /// from the cache when it has them, otherwise from a predicate call, until `options.budget`
    /// runs out; a requirement no path was found to affect before then is undecided.
    pub fn affected_requirements_with(
        &self,
        paths: &[String],
        cancel: &CancelToken,
        options: AffectsOptions,
    ) -> VerificationRun {
        self.affected_requirements_scoped(|_| Cow::Borrowed(paths), cancel, options)
    }

    /// [`Self::affected_requirements_with`], with the paths each policy's predicates see chosen
    /// per project by `paths_of` (the gate passes paths relative to each project's directory).
    pub fn affected_requirements_scoped<'p>(
        &self,
        paths_of: impl Fn(&ProjectSpec) -> Cow<'p, [String]>,
        cancel: &CancelToken,
        options: AffectsOptions,
    ) -> VerificationRun {
        let budget_end = Instant::now() + options.budget;
        let mut run = VerificationRun::default();
        let mut discarded = Vec::new();
        for (policy, spec) in self.verification_policies() {
            let paths = paths_of(&spec.project);
            for requirement in &spec.requirements {
                let mut affecting = Vec::new();
                let mut out_of_budget = false;
                for path in paths.iter() {
                    let function = requirement.affects.as_str();
                    let answer = match affects_cache::get(&policy.digest, function, path) {
                        Some(answer) => Ok(answer),
                        None if out_of_budget || Instant::now() >= budget_end => {
                            out_of_budget = true;
                            continue;
                        }
                        None => {
                            run.predicate_calls += 1;
                            let logs = if options.keep_logs {
                                &mut run.logs
                            } else {
                                &mut discarded
                            };
                            let answer = self.affects_until(
                                policy,
                                requirement,
                                path,
                                cancel,
                                Some(budget_end),
                                logs,
                            );
                            discarded.clear();
                            if let Ok(answer) = answer {
                                affects_cache::put(&policy.digest, function, path, answer);
                            }
                            answer
                        }
                    };
                    match answer {
                        Ok(true) => affecting.push(path.clone()),
                        Ok(false) => {}
                        // The budget, not the call's own deadline, stopped it.
                        Err(PolicyFailure {
                            reason: FailureReason::Run(RunError::Timeout(given)),
                            ..
                        }) if given < self.sandbox.limits().deadline => out_of_budget = true,
                        Err(failed) => {
                            run.failures.push(failed);
                            out_of_budget = false;
                            break;
                        }
                    }
                }
                if !affecting.is_empty() {
                    run.requirements.push(AffectedRequirement {
                        policy: policy.contract.id.clone(),
                        project: spec.project.clone(),
                        requirement: requirement.clone(),
                        paths: affecting,
                    });
                } else if out_of_budget {
                    run.undecided.push(UndecidedRequirement {
                        policy: policy.contract.id.clone(),
                        requirement: requirement.clone(),
                        reason: format!(
                            "the `affects` predicates ran out of their {} ms budget before `{}` was decided for every changed path",
                            options.budget.as_millis(),
                            requirement.affects
                        ),
                    });
                }
            }
        }
        run
    }
}

fn failure(policy: &LoadedPolicy, function: &str, reason: FailureReason) -> PolicyFailure {
    let reason = match reason {
        FailureReason::Malformed(message) => {
            FailureReason::Malformed(bounded(&message, MAX_MESSAGE_BYTES))
        }
        run @ FailureReason::Run(_) => run,
    };
    PolicyFailure {
        policy: policy.contract.id.clone(),
        path: policy.path.clone(),
        function: function.to_owned(),
        reason,
    }
}

fn collect(
    policy: &LoadedPolicy,
    function: &str,
    output: CallOutput,
    logs: &mut Vec<PolicyLog>,
    failures: &mut Vec<PolicyFailure>,
) -> Option<Dynamic> {
    logs.extend(output.log.into_iter().map(|line| PolicyLog {
        policy: policy.contract.id.clone(),
        line,
    }));
    output
        .result
        .map_err(|error| failures.push(failure(policy, function, FailureReason::Run(error))))
        .ok()
}

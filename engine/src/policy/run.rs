//! Running loaded policies: diagnostic policies over one shared `Arc<AnalysisSnapshot>` (fan-out)
//! and verification policies' `affects(path)` predicates. A failing policy is reported and its
//! siblings still run.

use super::contract::{PolicySpec, ProjectSpec, Requirement, VerificationSpec};
use super::diagnostic::{PolicyDiagnostic, from_result};
use super::failure::{FailureReason, PolicyFailure, PolicyLog};
use super::registry::{LoadedPolicy, PolicyRegistry};
use super::sandbox::{CallOutput, Cancellation};
use super::view::SnapshotView;
use crate::analysis::AnalysisSnapshot;
use rhai::{Dynamic, ImmutableString};
use std::sync::Arc;

/// What the diagnostic policies produced for one snapshot.
#[derive(Clone, Debug, Default)]
pub struct DiagnosticRun {
    /// Diagnostics of every policy that succeeded, sorted by path, position, rule and policy.
    pub diagnostics: Vec<PolicyDiagnostic>,
    /// Policies that failed on this snapshot.
    pub failures: Vec<PolicyFailure>,
    /// What the policies printed.
    pub logs: Vec<PolicyLog>,
}

/// A requirement some changed paths make necessary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AffectedRequirement {
    /// The verification policy's id.
    pub policy: String,
    /// Its project.
    pub project: ProjectSpec,
    /// The requirement.
    pub requirement: Requirement,
    /// The changed paths that need it, in the order given.
    pub paths: Vec<String>,
}

/// What the verification policies decided for a set of changed paths.
#[derive(Clone, Debug, Default)]
pub struct VerificationRun {
    /// Requirements with at least one affecting path, in policy and declaration order.
    pub requirements: Vec<AffectedRequirement>,
    /// Predicates that failed (the requirement is then reported as failed, not as unaffected).
    pub failures: Vec<PolicyFailure>,
    /// What the policies printed.
    pub logs: Vec<PolicyLog>,
}

impl PolicyRegistry {
    /// Runs every diagnostic policy that consumes `snapshot.analyzer` and has at least one finding
    /// of its `RULES`. Every policy sees the same snapshot through its own read-only view.
    pub fn evaluate_diagnostics(
        &self,
        snapshot: &Arc<AnalysisSnapshot>,
        cancel: &Cancellation,
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
        cancel: &Cancellation,
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
        cancel: &Cancellation,
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
            return;
        }
        let argument = (Dynamic::from(view.clone()),);
        let output = self.sandbox.call(&policy.ast, "evaluate", argument, cancel);
        let Some(value) = collect(policy, "evaluate", output, &mut run.logs, &mut run.failures)
        else {
            return;
        };
        match from_result(value, &policy.contract.id, spec, &view) {
            Ok(diagnostics) => run.diagnostics.extend(diagnostics),
            Err(message) => run.failures.push(failure(
                policy,
                "evaluate",
                FailureReason::Malformed(message),
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

    /// Whether a change to `path` requires `requirement` of verification policy `policy`.
    pub fn affects(
        &self,
        policy: &LoadedPolicy,
        requirement: &Requirement,
        path: &str,
        cancel: &Cancellation,
        logs: &mut Vec<PolicyLog>,
    ) -> Result<bool, PolicyFailure> {
        let mut failures = Vec::new();
        let output = self.sandbox.call(
            &policy.ast,
            &requirement.affects,
            (ImmutableString::from(path),),
            cancel,
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

    /// Evaluates every requirement of every verification policy against `paths`.
    pub fn affected_requirements(
        &self,
        paths: &[String],
        cancel: &Cancellation,
    ) -> VerificationRun {
        let mut run = VerificationRun::default();
        for (policy, spec) in self.verification_policies() {
            for requirement in &spec.requirements {
                let mut affecting = Vec::new();
                for path in paths {
                    match self.affects(policy, requirement, path, cancel, &mut run.logs) {
                        Ok(true) => affecting.push(path.clone()),
                        Ok(false) => {}
                        Err(failed) => {
                            run.failures.push(failed);
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
                }
            }
        }
        run
    }
}

fn failure(policy: &LoadedPolicy, function: &str, reason: FailureReason) -> PolicyFailure {
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

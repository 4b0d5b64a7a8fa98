//! Owns relevance: which tracked requirements a set of changed paths affects, by the policies'
//! `affects(path)` predicates. A predicate that fails cannot prove a change irrelevant, so its
//! requirements are reported as unprovable rather than unaffected; so are the requirements still
//! undecided when the evaluation's time budget ([`AFFECTS_BUDGET`]) runs out. Answers are cached
//! per (policy digest, function, path), so repeated waves over the same paths run no predicate.

use super::requirement::RequirementKey;
use crate::cancel::CancelToken;
use crate::policy::{AFFECTS_BUDGET, AffectsOptions, PolicyRegistry, ProjectSpec};
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

/// What a set of changed paths means for the requirements.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Relevance {
    /// Requirements at least one path affects.
    pub(crate) affected: BTreeSet<RequirementKey>,
    /// Requirements whose predicate failed, with the failure.
    pub(crate) unprovable: BTreeMap<RequirementKey, String>,
}

/// Evaluates `paths` (relative to the git root) against every verification policy, within
/// [`AFFECTS_BUDGET`] in total. Nothing shows the predicates' output here, so none is kept.
///
/// A policy whose project names a directory (`PROJECT.dir`) sees only the paths under it, made
/// relative to it: a change outside its directory never affects it.
pub(crate) fn relevance(registry: &PolicyRegistry, paths: &BTreeSet<String>) -> Relevance {
    let paths: Vec<String> = paths.iter().cloned().collect();
    let options = AffectsOptions {
        budget: AFFECTS_BUDGET,
        keep_logs: false,
    };
    let run = registry.affected_requirements_scoped(
        |project: &ProjectSpec| match &project.dir {
            None => Cow::Borrowed(paths.as_slice()),
            Some(dir) => Cow::Owned(within(&paths, dir)),
        },
        &CancelToken::new(),
        options,
    );
    let mut relevance = Relevance {
        affected: run
            .requirements
            .iter()
            .map(|affected| RequirementKey {
                policy: affected.policy.clone(),
                id: affected.requirement.id.clone(),
            })
            .collect(),
        ..Relevance::default()
    };
    for undecided in &run.undecided {
        relevance.unprovable.insert(
            RequirementKey {
                policy: undecided.policy.clone(),
                id: undecided.requirement.id.clone(),
            },
            format!(
                "the policy could not decide whether the change matters: {}",
                undecided.reason
            ),
        );
    }
    for failure in &run.failures {
        let Some((_, spec)) = registry
            .verification_policies()
            .find(|(policy, _)| policy.contract.id == failure.policy)
        else {
            continue;
        };
        for requirement in &spec.requirements {
            if requirement.affects == failure.function {
                relevance.unprovable.insert(
                    RequirementKey {
                        policy: failure.policy.clone(),
                        id: requirement.id.clone(),
                    },
                    format!("the policy could not decide whether the change matters: {failure}"),
                );
            }
        }
    }
    relevance
}

/// The paths strictly under `dir`, relative to it.
fn within(paths: &[String], dir: &str) -> Vec<String> {
    paths
        .iter()
        .filter_map(|path| path.strip_prefix(dir)?.strip_prefix('/'))
        .filter(|relative| !relative.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::source::PolicySource;
    use crate::policy::{RegistrySource, Sandbox, SandboxLimits};
    use std::sync::Arc;
    use std::time::Duration;

    const SLOW: &str = r#"
const ID = "slow";
const KIND = "verification";
const PROJECT = #{ manifest: "package.json", name: "p" };
const REQUIREMENTS = [
    #{ id: "test", command: "make test", affects: "slow_a" },
    #{ id: "lint", command: "make lint", affects: "slow_b" },
];
fn spin() { let x = 0; for i in 0..300000 { x += 1; } x }
fn slow_a(path) { spin() < 0 }
fn slow_b(path) { spin() < 0 } // relevance budget
"#;

    #[test]
    fn requirements_the_budget_did_not_reach_are_unprovable() {
        // Each call takes tens of milliseconds and no call reaches its own (one-minute) deadline:
        // 40 paths x 2 requirements do not fit in the evaluation's budget of one second.
        let sandbox = Sandbox::new(SandboxLimits {
            deadline: Duration::from_secs(60),
            ..SandboxLimits::default()
        });
        let registry = PolicyRegistry::from_sources(
            RegistrySource::Builtin,
            vec![PolicySource {
                path: "slow.rhai".into(),
                relative: "policies/slow.rhai".to_owned(),
                text: Ok(SLOW.to_owned()),
            }],
            Arc::new(sandbox),
        );
        let paths: BTreeSet<String> = (0..40).map(|i| format!("src/f{i}.ts")).collect();
        let relevance = relevance(&registry, &paths);
        assert!(relevance.affected.is_empty());
        let unprovable: Vec<&str> = relevance.unprovable.keys().map(|k| k.id.as_str()).collect();
        assert_eq!(unprovable, ["lint", "test"]);
        for reason in relevance.unprovable.values() {
            assert!(
                reason.contains("ran out of their 1000 ms budget"),
                "{reason}"
            );
        }
    }
}

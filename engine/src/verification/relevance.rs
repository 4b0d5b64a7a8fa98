//! Owns relevance: which tracked requirements a set of changed paths affects, by the policies'
//! `affects(path)` predicates. A predicate that fails cannot prove a change irrelevant, so its
//! requirements are reported as unprovable rather than unaffected.

use super::requirement::RequirementKey;
use crate::policy::{Cancellation, PolicyRegistry};
use std::collections::{BTreeMap, BTreeSet};

/// What a set of changed paths means for the requirements.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Relevance {
    /// Requirements at least one path affects.
    pub(crate) affected: BTreeSet<RequirementKey>,
    /// Requirements whose predicate failed, with the failure.
    pub(crate) unprovable: BTreeMap<RequirementKey, String>,
}

/// Evaluates `paths` (relative to the git root) against every verification policy.
pub(crate) fn relevance(registry: &PolicyRegistry, paths: &BTreeSet<String>) -> Relevance {
    let paths: Vec<String> = paths.iter().cloned().collect();
    let run = registry.affected_requirements(&paths, &Cancellation::new());
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

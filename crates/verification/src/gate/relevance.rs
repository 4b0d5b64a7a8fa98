//! Owns relevance: which tracked requirements a set of changed paths affects, by the policies'
//! `affects(path)` predicates. A predicate that fails cannot prove a change irrelevant, so its
//! requirements are reported as unprovable rather than unaffected; so are the requirements still
//! undecided when the evaluation's time budget ([`AFFECTS_BUDGET`]) runs out. Answers are cached
//! per (policy digest, function, path), so repeated waves over the same paths run no predicate.

use crate::gate::requirement::RequirementKey;
use crate::project::ProjectMatch;
use pi_native_hooks_base::CancelToken;
use pi_native_hooks_base::PolicyId;
use pi_native_hooks_base::RepoPath;
use pi_native_hooks_policy::{AFFECTS_BUDGET, AffectsOptions, PolicyRegistry, ProjectSpec};
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
pub(crate) fn relevance(
    registry: &PolicyRegistry,
    projects: &ProjectMatch,
    paths: &BTreeSet<String>,
) -> Relevance {
    let paths: Vec<String> = paths.iter().cloned().collect();
    let options = AffectsOptions {
        budget: AFFECTS_BUDGET,
        keep_logs: false,
    };
    let instances = scoped_instances(registry, projects, &paths);
    let by_glob = glob_unions(registry, &instances);
    let run = registry.affected_requirements_scoped(
        |project: &ProjectSpec| match (&project.manifests, &project.dir) {
            (Some(glob), _) => Cow::Owned(
                by_glob
                    .get(&(glob.as_str(), project.name.as_str()))
                    .cloned()
                    .unwrap_or_default(),
            ),
            (None, None) => Cow::Borrowed(paths.as_slice()),
            (None, Some(dir)) => Cow::Owned(within(&paths, dir)),
        },
        &CancelToken::new(),
        options,
    );
    // The instances of `policy` whose own relative paths include one of `hit` (any of its paths,
    // when `hit` is `None`).
    let keys = |policy: &PolicyId, id: &str, hit: Option<&[String]>| -> Vec<RequirementKey> {
        instances
            .get(policy)
            .into_iter()
            .flatten()
            .filter(|scoped| match hit {
                Some(hit) => hit.iter().any(|path| scoped.paths.contains(path)),
                None => !scoped.paths.is_empty(),
            })
            .map(|scoped| RequirementKey::new(policy.clone(), id, scoped.instance.clone()))
            .collect()
    };
    let mut relevance = Relevance::default();
    for affected in &run.requirements {
        relevance.affected.extend(keys(
            &affected.policy,
            &affected.requirement.id,
            Some(&affected.paths),
        ));
    }
    for undecided in &run.undecided {
        for key in keys(&undecided.policy, &undecided.requirement.id, None) {
            relevance.unprovable.insert(
                key,
                format!(
                    "the policy could not decide whether the change matters: {}",
                    undecided.reason
                ),
            );
        }
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
                for key in keys(&failure.policy, &requirement.id, None) {
                    relevance.unprovable.insert(
                        key,
                        format!(
                            "the policy could not decide whether the change matters: {failure}"
                        ),
                    );
                }
            }
        }
    }
    relevance
}

/// The paths strictly under `dir`, relative to it.
/// One project instance of a policy with the changed paths relative to its directory.
struct Scoped {
    /// The instance's directory (`None` for a one-project policy or a glob match at the root).
    instance: Option<RepoPath>,
    /// The changed paths below it, relative to it.
    paths: BTreeSet<String>,
}

/// Per verification policy, each of its project instances with the changed `paths` relative to
/// its directory: one for a one-project policy, one per match of a `PROJECT.manifests` glob.
fn scoped_instances<'r>(
    registry: &'r PolicyRegistry,
    projects: &ProjectMatch,
    paths: &[String],
) -> BTreeMap<&'r PolicyId, Vec<Scoped>> {
    let scoped = |instance: Option<RepoPath>, dir: Option<&str>| Scoped {
        paths: match dir {
            Some(dir) => within(paths, dir).into_iter().collect(),
            None => paths.iter().cloned().collect(),
        },
        instance,
    };
    registry
        .verification_policies()
        .map(|(policy, spec)| {
            let id = &policy.contract.id;
            let list = if spec.project.manifests.is_some() {
                projects
                    .matches_of(id)
                    .map(|matched| {
                        let dir = matched.instance.as_ref().map(RepoPath::as_str);
                        scoped(matched.instance.clone(), dir)
                    })
                    .collect()
            } else {
                vec![scoped(None, spec.project.dir.as_deref())]
            };
            (id, list)
        })
        .collect()
}

/// The paths a glob policy's predicates see, by (glob, name): the union of its instances' own
/// relative paths. The answer for a relative path is the same in every instance (and cached),
/// so one run serves them all; each instance then takes the answers for its own paths.
fn glob_unions<'r>(
    registry: &'r PolicyRegistry,
    instances: &BTreeMap<&PolicyId, Vec<Scoped>>,
) -> BTreeMap<(&'r str, &'r str), Vec<String>> {
    registry
        .verification_policies()
        .filter_map(|(policy, spec)| {
            let glob = spec.project.manifests.as_deref()?;
            let union: BTreeSet<&String> = instances
                .get(&policy.contract.id)?
                .iter()
                .flat_map(|scoped| &scoped.paths)
                .collect();
            Some((
                (glob, spec.project.name.as_str()),
                union.into_iter().cloned().collect(),
            ))
        })
        .collect()
}

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
    use pi_native_hooks_policy::PolicySource;
    use pi_native_hooks_policy::{RegistrySource, Sandbox, SandboxLimits};
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
        let relevance = relevance(&registry, &ProjectMatch::default(), &paths);
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

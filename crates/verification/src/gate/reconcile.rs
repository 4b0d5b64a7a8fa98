//! Owns reconciling tracked requirements with the loaded policies (at session start, restore and
//! policy reload): requirements of newly matching policies start inactive; an armed requirement
//! whose definition changed (its [`RequirementDigest`]: policy id, project, command, predicate),
//! whose state predates requirement digests, or whose policy is gone or failing becomes
//! `unknown` — never silently cleared. Editing anything else (a diagnostic policy, a comment,
//! another requirement) leaves it as it was. Inactive requirements without a policy are dropped:
//! there is nothing to clear.

use crate::gate::requirement::{RequirementKey, TrackedRequirement};
use crate::project::ProjectMatch;
use pi_native_hooks_policy::{PolicyRegistry, PolicySpec, RequirementDigest};
use std::collections::BTreeMap;

/// The requirements after reconciling, and whether any armed requirement changed.
pub(crate) struct Reconciled {
    pub(crate) requirements: Vec<TrackedRequirement>,
    pub(crate) changed: bool,
}

/// Reconciles `previous` with `registry` and the projects it matched.
pub(crate) fn reconcile(
    previous: Vec<TrackedRequirement>,
    registry: &PolicyRegistry,
    projects: &ProjectMatch,
) -> Reconciled {
    let mut previous: BTreeMap<RequirementKey, TrackedRequirement> = previous
        .into_iter()
        .map(|requirement| (requirement.key.clone(), requirement))
        .collect();
    let mut requirements = Vec::new();
    let mut changed = false;
    for (policy, spec) in registry.verification_policies() {
        for (requirement, matched) in projects
            .matches_of(&policy.contract.id)
            .flat_map(|matched| spec.requirements.iter().map(move |r| (r, matched)))
        {
            let identity = &matched.identity;
            let key = RequirementKey::new(
                policy.contract.id.clone(),
                requirement.id.clone(),
                matched.instance.clone(),
            );
            let digest = policy.requirement_digest(&requirement.id).cloned();
            let directory = requirement.dir.as_ref().map(|dir| identity.root.join(dir));
            let Some(mut tracked) = previous.remove(&key) else {
                let mut inactive = TrackedRequirement::inactive(
                    key,
                    identity.clone(),
                    requirement.command.clone(),
                    digest,
                );
                inactive.directory = directory;
                requirements.push(inactive);
                continue;
            };
            let reason = if tracked.project != *identity {
                Some(format!(
                    "the project changed from {} to {identity}",
                    tracked.project
                ))
            } else if tracked.command != requirement.command {
                Some(format!(
                    "the required command changed from `{}` to `{}`",
                    tracked.command, requirement.command
                ))
            } else if tracked.directory != directory {
                Some(format!(
                    "the directory the command must run in changed from {} to {}",
                    tracked.run_dir().display(),
                    directory.as_deref().unwrap_or(&identity.root).display()
                ))
            } else {
                definition_changed(tracked.digest.as_ref(), digest.as_ref()).or_else(|| {
                    // The reason it was detached is over, but what changed meanwhile was never
                    // judged: it stays `unknown`, saying so instead of the stale reason.
                    tracked.detached.as_ref().map(|_| {
                        format!(
                            "policy `{}` loads again; changes made while it was not loaded were \
                             not judged, so rerun the check to confirm",
                            key.policy
                        )
                    })
                })
            };
            if let (Some(reason), Some(revision)) = (reason, tracked.required_revision) {
                changed |= tracked.make_unknown(revision, &reason);
            }
            tracked.project = identity.clone();
            tracked.command.clone_from(&requirement.command);
            tracked.directory = directory;
            tracked.digest = digest;
            tracked.detached = None;
            requirements.push(tracked);
        }
    }
    for (key, mut tracked) in previous {
        let Some(revision) = tracked.required_revision else {
            continue;
        };
        if tracked.detached.is_none() {
            let reason = detached_reason(&key, registry, projects);
            changed |= tracked.make_unknown(revision, &reason);
            tracked.detached = Some(reason);
        }
        requirements.push(tracked);
    }
    Reconciled {
        requirements,
        changed,
    }
}

fn detached_reason(
    key: &RequirementKey,
    registry: &PolicyRegistry,
    projects: &ProjectMatch,
) -> String {
    let policy = &key.policy;
    match registry.policy(policy).map(|loaded| &loaded.contract.spec) {
        None => match registry
            .problems()
            .iter()
            .find(|problem| problem.degraded_from.as_deref() == Some(policy.as_str()))
        {
            Some(problem) => format!("policy `{policy}` failed to load: {problem}"),
            None => format!(
                "policy `{policy}` is no longer loaded (missing or failing to load; see /hooks-doctor)"
            ),
        },
        Some(PolicySpec::Verification(spec))
            if !spec.requirements.iter().any(|r| r.id == key.id) =>
        {
            format!(
                "requirement `{}` was removed from policy `{policy}`",
                key.id
            )
        }
        Some(PolicySpec::Verification(_))
            if projects
                .identity_of(policy, key.instance.as_ref())
                .is_none() =>
        {
            match &key.instance {
                Some(dir) => format!(
                    "policy `{policy}` no longer matches a project in {dir} (its manifest is gone, \
                     renamed or left out; see /hooks-status)"
                ),
                None => format!("policy `{policy}` no longer matches this project"),
            }
        }
        Some(_) => format!("policy `{policy}` is no longer a verification policy"),
    }
}

/// Why a requirement whose project and command are unchanged must be rerun: its definition
/// digest changed (the predicate, or a field the messages above do not name), or the state
/// predates digests. `None` when both digests are known and equal.
fn definition_changed(
    tracked: Option<&RequirementDigest>,
    loaded: Option<&RequirementDigest>,
) -> Option<String> {
    match (tracked, loaded) {
        (Some(tracked), Some(loaded)) if tracked == loaded => None,
        (Some(tracked), Some(loaded)) => Some(format!(
            "its definition changed since the check was armed (requirement digest {} → {}: its \
             `affects` predicate or a function it calls); rerun it to confirm",
            tracked.short(),
            loaded.short()
        )),
        (None, _) => Some(
            "the saved verification state predates per-check digests, so whether the check's \
             definition changed since it was armed cannot be known; rerun it to confirm"
                .to_owned(),
        ),
        (Some(_), None) => {
            Some("the check's definition could not be digested; rerun it to confirm".to_owned())
        }
    }
}

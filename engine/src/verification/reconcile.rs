//! Owns reconciling tracked requirements with the loaded policies (at session start, restore and
//! policy reload): requirements of newly matching policies start inactive; an armed requirement
//! whose policies changed (registry digest), whose command or project changed, or whose policy is
//! gone or failing becomes `unknown` — never silently cleared. Inactive requirements without a
//! policy are dropped: there is nothing to clear.

use super::project::ProjectMatch;
use super::requirement::{RequirementKey, TrackedRequirement};
use crate::policy::{PolicyRegistry, PolicySpec};
use std::collections::BTreeMap;

/// The requirements after reconciling, and whether any armed requirement changed.
pub(crate) struct Reconciled {
    pub(crate) requirements: Vec<TrackedRequirement>,
    pub(crate) changed: bool,
}

/// Reconciles `previous` (recorded under `previous_digest`) with `registry` (digest `digest`) and
/// the projects it matched.
pub(crate) fn reconcile(
    previous: Vec<TrackedRequirement>,
    previous_digest: Option<&str>,
    registry: &PolicyRegistry,
    projects: &ProjectMatch,
    digest: &str,
) -> Reconciled {
    let digest_note = previous_digest.filter(|old| *old != digest).map(|old| {
        format!(
            "the verification policies changed since the check was armed (digest {} → {}); rerun it to confirm",
            abbreviate(old),
            abbreviate(digest)
        )
    });
    let mut previous: BTreeMap<RequirementKey, TrackedRequirement> = previous
        .into_iter()
        .map(|requirement| (requirement.key.clone(), requirement))
        .collect();
    let mut requirements = Vec::new();
    let mut changed = false;
    for (policy, spec) in registry.verification_policies() {
        let Some(identity) = projects.identity_of(&policy.contract.id) else {
            continue;
        };
        for requirement in &spec.requirements {
            let key = RequirementKey {
                policy: policy.contract.id.clone(),
                id: requirement.id.clone(),
            };
            let Some(mut tracked) = previous.remove(&key) else {
                requirements.push(TrackedRequirement::inactive(
                    key,
                    identity.clone(),
                    requirement.command.clone(),
                ));
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
            } else {
                digest_note.clone()
            };
            if let (Some(reason), Some(revision)) = (reason, tracked.required_revision) {
                changed |= tracked.make_unknown(revision, &reason);
            }
            tracked.project = identity.clone();
            tracked.command.clone_from(&requirement.command);
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
        Some(PolicySpec::Verification(_)) if projects.identity_of(policy).is_none() => {
            format!("policy `{policy}` no longer matches this project")
        }
        Some(_) => format!("policy `{policy}` is no longer a verification policy"),
    }
}

fn abbreviate(digest: &str) -> &str {
    digest.get(..12).unwrap_or(digest)
}

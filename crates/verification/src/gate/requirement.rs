//! Owns one tracked requirement ([`TrackedRequirement`]): its required revision, where it stands
//! for that revision ([`Standing`]), its last success, failure and rejected run, and the state
//! shown to users ([`RequirementState`]). Transitions that only depend on the requirement live
//! here; the gate decides when they happen.

use crate::evidence::{Evidence, FailedRun, Rejection};
use crate::project::ProjectIdentity;
use pi_native_hooks_base::RepoPath;
use pi_native_hooks_base::{CallId, PolicyId};
use pi_native_hooks_policy::RequirementDigest;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};

/// A requirement's identity: its verification policy, its id within the policy and, for a
/// policy whose `PROJECT.manifests` glob matches several projects, the project's directory.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct RequirementKey {
    /// The verification policy's id.
    pub policy: PolicyId,
    /// The requirement's id within the policy.
    pub id: String,
    /// The directory of the project instance a `PROJECT.manifests` glob matched, relative to the
    /// repository root; `None` for a policy with one project (`manifest`, `dir`) and for a glob
    /// match at the root. Left out of the serialized form when `None`, so the key of a
    /// one-project policy is what it was before globs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance: Option<RepoPath>,
}

impl RequirementKey {
    /// The key of requirement `id` of `policy`'s project `instance`.
    pub fn new(policy: PolicyId, id: impl Into<String>, instance: Option<RepoPath>) -> Self {
        RequirementKey {
            policy,
            id: id.into(),
            instance,
        }
    }
}

impl fmt::Display for RequirementKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.policy, self.id)?;
        match &self.instance {
            Some(dir) => write!(f, "@{dir}"),
            None => Ok(()),
        }
    }
}

/// The state shown for a requirement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RequirementState {
    /// Never armed on this branch: no observed relevant change.
    Inactive,
    /// Armed, and the command has not run since.
    NotRun,
    /// The command succeeded at the required revision.
    Passed,
    /// The command failed at the required revision.
    Failed,
    /// A relevant change made the last run or waiver out of date.
    Stale,
    /// Skipped with a reason for the required revision. Never a pass.
    Waived,
    /// Armed, but the workspace, the events or the policies could not be proven.
    Unknown,
}

impl fmt::Display for RequirementState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RequirementState::Inactive => "inactive",
            RequirementState::NotRun => "not-run",
            RequirementState::Passed => "passed",
            RequirementState::Failed => "failed",
            RequirementState::Stale => "stale",
            RequirementState::Waived => "waived",
            RequirementState::Unknown => "unknown",
        })
    }
}

/// Where an armed requirement stands for its required revision.
#[expect(missing_docs, reason = "`reason` names what it holds")]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Standing {
    /// The command has not run since the requirement was armed.
    NotRun,
    /// The last run or waiver was for an older revision.
    Stale,
    /// [`TrackedRequirement::last_success`] is for the required revision.
    Passed,
    /// [`TrackedRequirement::last_failure`] is for the required revision.
    Failed,
    /// The waiver recorded by this tool call covers the required revision.
    Waived {
        /// The waiver's tool call id.
        tool_call_id: CallId,
    },
    /// Could not be proven.
    Unknown { reason: String },
}

/// One requirement the gate tracks for the session branch.
#[expect(missing_docs, reason = "`key` names what it holds")]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrackedRequirement {
    pub key: RequirementKey,
    /// The project it belongs to.
    pub project: ProjectIdentity,
    /// The exact command (trimmed), run in [`Self::run_dir`].
    pub command: String,
    /// The directory the command must run in when the requirement names one (`dir`, joined to
    /// the project directory); `None` for the project directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub directory: Option<PathBuf>,
    /// What defined the requirement when it was last reconciled with the loaded policies (its
    /// policy's id and project, its entry, its predicate's code). `None` in state written before
    /// requirements had digests: an armed one is then `unknown`.
    #[serde(default)]
    pub digest: Option<RequirementDigest>,
    /// The revision the command must run at or after; `None` while inactive.
    pub required_revision: Option<u64>,
    /// Where it stands for the required revision (meaningless while inactive).
    pub standing: Standing,
    /// The last counted successful run.
    pub last_success: Option<Evidence>,
    /// The last counted failed run.
    pub last_failure: Option<FailedRun>,
    /// The last run of the exact command that did not count, and why.
    pub last_rejection: Option<Rejection>,
    /// Set when no loaded policy backs the requirement any more (policy missing, failing to load,
    /// requirement removed, project no longer matching): why. A detached requirement stays
    /// `unknown` until it is rerun or waived, and is then dropped.
    pub detached: Option<String>,
}

impl TrackedRequirement {
    /// A requirement that was never armed.
    pub fn inactive(
        key: RequirementKey,
        project: ProjectIdentity,
        command: String,
        digest: Option<RequirementDigest>,
    ) -> Self {
        TrackedRequirement {
            key,
            project,
            command,
            directory: None,
            digest,
            required_revision: None,
            standing: Standing::NotRun,
            last_success: None,
            last_failure: None,
            last_rejection: None,
            detached: None,
        }
    }

    /// The directory its command must run in: its own, else the project directory.
    pub fn run_dir(&self) -> &Path {
        self.directory.as_deref().unwrap_or(&self.project.root)
    }

    /// The state shown to users.
    pub fn state(&self) -> RequirementState {
        if self.required_revision.is_none() {
            return RequirementState::Inactive;
        }
        match self.standing {
            Standing::NotRun => RequirementState::NotRun,
            Standing::Stale => RequirementState::Stale,
            Standing::Passed => RequirementState::Passed,
            Standing::Failed => RequirementState::Failed,
            Standing::Waived { .. } => RequirementState::Waived,
            Standing::Unknown { .. } => RequirementState::Unknown,
        }
    }

    /// Armed: a relevant change (or restored armed state) requires the command.
    pub fn is_armed(&self) -> bool {
        self.required_revision.is_some()
    }

    /// Armed and neither passed nor waived: the gate holds the agent back for it.
    pub fn is_outstanding(&self) -> bool {
        !matches!(
            self.state(),
            RequirementState::Inactive | RequirementState::Passed | RequirementState::Waived
        )
    }

    /// Why it is `unknown`, if it is.
    pub fn unknown_reason(&self) -> Option<&str> {
        match (&self.standing, self.is_armed()) {
            (Standing::Unknown { reason }, true) => Some(reason),
            _ => None,
        }
    }

    /// A relevant change at `revision`: arms the requirement or makes its last run or waiver
    /// stale. Returns whether anything changed.
    pub(crate) fn advance(&mut self, revision: u64) -> bool {
        let before = (self.required_revision, self.standing.clone());
        self.standing = match (&self.standing, self.required_revision) {
            (_, None) | (Standing::NotRun, Some(_)) => Standing::NotRun,
            (Standing::Unknown { reason }, Some(_)) => Standing::Unknown {
                reason: reason.clone(),
            },
            (_, Some(_)) => Standing::Stale,
        };
        self.required_revision = Some(revision);
        before != (self.required_revision, self.standing.clone())
    }

    /// Makes the requirement `unknown` at `revision`, arming it if needed. Returns whether
    /// anything changed.
    pub(crate) fn make_unknown(&mut self, revision: u64, reason: &str) -> bool {
        let standing = Standing::Unknown {
            reason: reason.to_owned(),
        };
        let changed = self.required_revision != Some(revision) || self.standing != standing;
        self.required_revision = Some(revision);
        self.standing = standing;
        changed
    }
}

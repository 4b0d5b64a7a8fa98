//! Owns project matching: the git root of the session's directory plus the directory and
//! manifest each verification policy names (`PROJECT = #{manifest, name, dir}`). A policy applies
//! when the manifest in its directory (the git root when it names none) declares that name,
//! wherever in the repository the session started; several policies may match one project.

use super::manifest::{ManifestError, manifest_name};
use crate::ids::PolicyId;
use crate::policy::PolicyRegistry;
use crate::workspace::{WorkspaceKind, probe};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// Which project a requirement, a piece of evidence or a waiver belongs to.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ProjectIdentity {
    /// The project directory: the git worktree root containing the session's directory, joined
    /// with `PROJECT.dir` when the policy names one.
    pub root: PathBuf,
    /// The manifest file in that directory that declared the name.
    pub manifest: String,
    /// The declared name.
    pub name: String,
}

impl fmt::Display for ProjectIdentity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` ({} at {})",
            self.name,
            self.manifest,
            self.root.display()
        )
    }
}

/// A verification policy whose project is the session's project.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchedPolicy {
    /// The policy id.
    pub policy: PolicyId,
    /// The project it matched.
    pub identity: ProjectIdentity,
}

/// Why a policy could not be matched against the session's project.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProjectProblem {
    /// The workspace could not be probed for a git root.
    #[error("{0}")]
    Workspace(String),
    /// A policy's manifest could not be read.
    #[error("policy `{policy}`: {error}")]
    Manifest {
        /// The policy id.
        policy: PolicyId,
        /// What went wrong.
        error: ManifestError,
    },
}

/// The result of matching the loaded verification policies against a session directory.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProjectMatch {
    /// The git root, when the directory is inside a git worktree.
    pub root: Option<PathBuf>,
    /// The policies that matched, in registry order.
    pub matched: Vec<MatchedPolicy>,
    /// Manifests that could not be read and workspace probe failures.
    pub problems: Vec<ProjectProblem>,
}

impl ProjectMatch {
    /// The identity a policy matched, if it did.
    pub fn identity_of(&self, policy: &str) -> Option<&ProjectIdentity> {
        self.matched
            .iter()
            .find(|matched| matched.policy == policy)
            .map(|matched| &matched.identity)
    }
}

/// Matches every verification policy of `registry` against the project containing `cwd`.
///
/// Outside a git worktree nothing matches: the gate needs workspace snapshots to prove what
/// changed.
pub fn match_projects(cwd: &Path, registry: &PolicyRegistry) -> ProjectMatch {
    let root = match probe(cwd) {
        Ok(WorkspaceKind::Git { worktree_root }) => worktree_root,
        Ok(WorkspaceKind::NotGit { .. }) => return ProjectMatch::default(),
        Err(error) => {
            return ProjectMatch {
                problems: vec![ProjectProblem::Workspace(error.to_string())],
                ..ProjectMatch::default()
            };
        }
    };
    let mut names: BTreeMap<(&str, &str), Result<Option<String>, ManifestError>> = BTreeMap::new();
    let mut matched = Vec::new();
    let mut problems = Vec::new();
    for (policy, spec) in registry.verification_policies() {
        let manifest = spec.project.manifest.as_str();
        let dir = spec.project.dir.as_deref().unwrap_or("");
        let project_root = if dir.is_empty() {
            root.clone()
        } else {
            root.join(dir)
        };
        let name = names
            .entry((dir, manifest))
            .or_insert_with(|| manifest_name(&project_root, manifest));
        match name {
            Ok(Some(name)) if *name == spec.project.name => matched.push(MatchedPolicy {
                policy: policy.contract.id.clone(),
                identity: ProjectIdentity {
                    root: project_root,
                    manifest: manifest.to_owned(),
                    name: name.clone(),
                },
            }),
            Ok(_) => {}
            Err(error) => problems.push(ProjectProblem::Manifest {
                policy: policy.contract.id.clone(),
                error: error.clone(),
            }),
        }
    }
    ProjectMatch {
        root: Some(root),
        matched,
        problems,
    }
}

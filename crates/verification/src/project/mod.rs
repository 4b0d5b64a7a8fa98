//! Owns project matching: the git root of the session's directory plus the directory and
//! manifest each verification policy names (`PROJECT = #{manifest, name, dir}`). A policy applies
//! when the manifest in its directory (the git root when it names none) declares that name,
//! wherever in the repository the session started; several policies may match one project. A
//! policy with a glob of manifests (`PROJECT = #{manifests, name}`) applies once per manifest the
//! glob matches ([`manifest_glob`]) that declares its name (any name without one): each
//! match is a project instance with its own requirements, keyed by its directory.

pub(crate) mod manifest;
pub(crate) mod manifest_glob;
pub(crate) mod proposal;

use manifest::{ManifestError, manifest_name};
use manifest_glob::{GlobSkip, match_manifests};
use pi_native_hooks_base::PolicyId;
use pi_native_hooks_base::RepoPath;
use pi_native_hooks_policy::{PolicyRegistry, ProjectSpec};
use pi_native_hooks_workspace::{WorkspaceKind, probe};
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

/// A verification policy whose project is the session's project (one per project a
/// `PROJECT.manifests` glob matched).
#[expect(missing_docs, reason = "`policy` names what it holds")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchedPolicy {
    pub policy: PolicyId,
    /// The project it matched.
    pub identity: ProjectIdentity,
    /// For a `PROJECT.manifests` glob, the matched project's directory relative to the
    /// repository root (`None` at the root); `None` for a one-project policy. Part of the key of
    /// each of its requirements.
    pub instance: Option<RepoPath>,
}

/// Why a policy could not be matched against the session's project.
#[expect(missing_docs, reason = "variant fields name what they hold")]
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProjectProblem {
    /// The workspace could not be probed for a git root.
    #[error("{0}")]
    Workspace(String),
    /// A policy's manifest could not be read.
    #[error("policy `{policy}`: {error}")]
    Manifest {
        policy: PolicyId,
        error: ManifestError,
    },
    /// A policy's `PROJECT.manifests` glob matched no manifest (declaring its `name`, if given).
    #[error("policy `{policy}`: `PROJECT.manifests` {glob:?} matched no manifest{}, so it requires nothing", if name.is_empty() { String::new() } else { format!(" declaring the name {name:?}") })]
    NoMatch {
        policy: PolicyId,
        glob: String,
        /// The name it filters on (empty for any).
        name: String,
    },
    /// A match of a policy's `PROJECT.manifests` glob that is not a project, or a walk limit.
    #[error("policy `{policy}`: `PROJECT.manifests` {glob:?}: {skip}")]
    Glob {
        policy: PolicyId,
        glob: String,
        /// What was left out.
        skip: GlobSkip,
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
    /// The projects a policy matched: one, or one per manifest its glob matched.
    pub fn matches_of<'m>(&'m self, policy: &'m str) -> impl Iterator<Item = &'m MatchedPolicy> {
        self.matched
            .iter()
            .filter(move |matched| matched.policy == policy)
    }

    /// The identity a policy's project `instance` matched, if it did.
    pub fn identity_of(
        &self,
        policy: &str,
        instance: Option<&RepoPath>,
    ) -> Option<&ProjectIdentity> {
        self.matched
            .iter()
            .find(|matched| matched.policy == policy && matched.instance.as_ref() == instance)
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
        if let Some(glob) = &spec.project.manifests {
            match_glob(
                &root,
                &policy.contract.id,
                glob,
                &spec.project,
                &mut matched,
                &mut problems,
            );
            continue;
        }
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
                instance: None,
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

/// One project per manifest `glob` matches under `root` whose declared name is `project.name`
/// (any name when it is empty).
fn match_glob(
    root: &Path,
    policy: &PolicyId,
    glob: &str,
    project: &ProjectSpec,
    matched: &mut Vec<MatchedPolicy>,
    problems: &mut Vec<ProjectProblem>,
) {
    let found = match_manifests(root, glob);
    let mut any = false;
    for dir in found.dirs {
        let project_root = match &dir {
            Some(dir) => root.join(dir.as_str()),
            None => root.to_owned(),
        };
        match manifest_name(&project_root, &project.manifest) {
            Ok(Some(name)) if project.name.is_empty() || name == project.name => {
                any = true;
                matched.push(MatchedPolicy {
                    policy: policy.clone(),
                    identity: ProjectIdentity {
                        root: project_root,
                        manifest: project.manifest.clone(),
                        name,
                    },
                    instance: dir,
                });
            }
            Ok(_) => {}
            Err(error) => problems.push(ProjectProblem::Manifest {
                policy: policy.clone(),
                error,
            }),
        }
    }
    for skip in found.skipped {
        problems.push(ProjectProblem::Glob {
            policy: policy.clone(),
            glob: glob.to_owned(),
            skip,
        });
    }
    if !any {
        problems.push(ProjectProblem::NoMatch {
            policy: policy.clone(),
            glob: glob.to_owned(),
            name: project.name.clone(),
        });
    }
}

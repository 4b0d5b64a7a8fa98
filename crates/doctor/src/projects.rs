//! Owns the doctor's projects section: the projects each loaded verification policy matches in
//! the repository around a directory — found by the same [`match_projects`] the session's gate
//! calls, with every project problem worded as `/hooks-status` words it.

use pi_native_hooks_base::Escaped;
use pi_native_hooks_base::PolicyId;
use pi_native_hooks_base::relative_to;
use pi_native_hooks_policy::{PolicyRegistry, ProjectSpec};
use pi_native_hooks_verification::{MatchedPolicy, ProjectProblem, RequirementKey, match_projects};
use std::fmt;
use std::path::{Path, PathBuf};

/// The projects the loaded verification policies match in the repository around a directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProjectReport {
    /// The directory whose repository was examined.
    pub dir: PathBuf,
    /// The repository's worktree root; `None` outside a git repository, or when it could not be
    /// read (a [`ProjectProblem::Workspace`] then says why).
    pub repository: Option<PathBuf>,
    /// Each loaded verification policy, in registry order, with the projects it matched.
    pub policies: Vec<PolicyProjects>,
    /// Every project problem, as the session lists them.
    pub problems: Vec<ProjectProblem>,
}

/// One verification policy and the projects it matched.
#[expect(missing_docs, reason = "`policy` names what it holds")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyProjects {
    pub policy: PolicyId,
    /// What it looks for: `PROJECT.manifests "<glob>"`, or the manifest, name and directory.
    pub looks_for: String,
    /// One per project instance, in match order.
    pub projects: Vec<ProjectInstance>,
}

/// One project a verification policy matched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProjectInstance {
    /// The name its manifest declares.
    pub name: String,
    /// The file name in the project directory that declared the name.
    pub manifest: String,
    /// The project directory as a repository path (`.` for the repository root).
    pub dir: String,
    /// Its requirements, keyed as `/hooks-status` keys them.
    pub requirements: Vec<RequirementLine>,
}

/// One requirement of a matched project.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequirementLine {
    /// Its key (`policy/id`, with `@<dir>` for a glob's instance).
    pub key: RequirementKey,
    /// The exact command.
    pub command: String,
    /// Where it must run, as a repository path (`.` for the repository root).
    pub dir: String,
}

/// The projects `registry`'s verification policies match in the repository around `dir`.
pub fn project_report(dir: &Path, registry: &PolicyRegistry) -> ProjectReport {
    let matched = match_projects(dir, registry);
    let repository = matched.root.clone();
    let policies = registry
        .verification_policies()
        .map(|(policy, spec)| {
            let id = &policy.contract.id;
            let projects = matched
                .matches_of(id)
                .map(|instance| {
                    project_instance(repository.as_deref(), instance, &spec.requirements)
                })
                .collect();
            PolicyProjects {
                policy: id.clone(),
                looks_for: looks_for(&spec.project),
                projects,
            }
        })
        .collect();
    ProjectReport {
        dir: dir.to_path_buf(),
        repository,
        policies,
        problems: matched.problems,
    }
}

fn project_instance(
    repository: Option<&Path>,
    matched: &MatchedPolicy,
    requirements: &[pi_native_hooks_policy::Requirement],
) -> ProjectInstance {
    let identity = &matched.identity;
    ProjectInstance {
        name: identity.name.clone(),
        manifest: identity.manifest.clone(),
        dir: repository_path(repository, &identity.root),
        requirements: requirements
            .iter()
            .map(|requirement| {
                // Where the gate makes it run: its own `dir` below the project directory.
                let run_dir = requirement
                    .dir
                    .as_ref()
                    .map_or_else(|| identity.root.clone(), |dir| identity.root.join(dir));
                RequirementLine {
                    key: RequirementKey::new(
                        matched.policy.clone(),
                        requirement.id.clone(),
                        matched.instance.clone(),
                    ),
                    command: requirement.command.clone(),
                    dir: repository_path(repository, &run_dir),
                }
            })
            .collect(),
    }
}

/// `path` relative to the repository root (`.` for the root itself), or in full when it is not
/// below it.
fn repository_path(repository: Option<&Path>, path: &Path) -> String {
    match repository {
        Some(root) if root == path => ".".to_owned(),
        Some(root) => relative_to(root, path)
            .map_or_else(|| path.display().to_string(), |p| p.as_str().to_owned()),
        None => path.display().to_string(),
    }
}

/// A policy's `PROJECT`, as the report names what it looks for.
fn looks_for(project: &ProjectSpec) -> String {
    let named = if project.name.is_empty() {
        String::new()
    } else {
        format!(" declaring the name {:?}", project.name)
    };
    match (&project.manifests, &project.dir) {
        (Some(glob), _) => format!("`PROJECT.manifests` {glob:?}{named}"),
        (None, Some(dir)) => format!("{}{named} in {dir}", project.manifest),
        (None, None) => format!("{}{named} at the repository root", project.manifest),
    }
}

/// The projects section: where, per policy what it matched, then every problem.
impl fmt::Display for ProjectReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.repository {
            None if self.problems.is_empty() => writeln!(
                f,
                "projects: not matched: {} is not in a git repository (not a problem: the gate only matches projects in one)",
                Escaped(&self.dir.display().to_string())
            )?,
            None => writeln!(
                f,
                "projects: not matched: the repository around {} could not be read",
                Escaped(&self.dir.display().to_string())
            )?,
            Some(root) => {
                writeln!(
                    f,
                    "projects: in the git repository at {}",
                    Escaped(&root.display().to_string())
                )?;
                if self.policies.is_empty() {
                    writeln!(f, "  no verification policy is loaded")?;
                }
                for policy in &self.policies {
                    write_policy(f, policy)?;
                }
            }
        }
        // The session's words (`/hooks-doctor`), each escaped: a name from the repository cannot
        // start a line of its own.
        for problem in &self.problems {
            writeln!(f, "  project problem: {}", Escaped(&problem.to_string()))?;
        }
        Ok(())
    }
}

fn write_policy(f: &mut fmt::Formatter<'_>, policy: &PolicyProjects) -> fmt::Result {
    let looks_for = Escaped(&policy.looks_for);
    match policy.projects.len() {
        0 => {
            return writeln!(
                f,
                "  policy `{}`: no project here ({looks_for})",
                policy.policy
            );
        }
        1 => writeln!(f, "  policy `{}`: 1 project ({looks_for})", policy.policy)?,
        n => writeln!(
            f,
            "  policy `{}`: {n} projects ({looks_for})",
            policy.policy
        )?,
    }
    for project in &policy.projects {
        writeln!(
            f,
            "    `{}` ({}) in {}",
            Escaped(&project.name),
            Escaped(&project.manifest),
            Escaped(&project.dir)
        )?;
        for requirement in &project.requirements {
            writeln!(
                f,
                "      {}: `{}` in {}",
                Escaped(&requirement.key.to_string()),
                Escaped(&requirement.command),
                Escaped(&requirement.dir)
            )?;
        }
    }
    Ok(())
}

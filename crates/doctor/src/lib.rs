//! The doctor: one report on a config root and what it does in a directory, which
//! `pi-native-hooks doctor` prints and Pi's `/hooks-doctor` prints too, before what only a
//! running session knows. Its sections:
//!
//! - the config root (`root`): trust, rule files and their problems, the rules no policy
//!   consumes, each policy, the registry digest, the settings;
//! - the analyzers the config runs (`analyzers`): the ast-grep analyzer and the project's
//!   TypeScript for the directory examined;
//! - the projects its verification policies match in the repository around the directory
//!   (`projects`);
//!
//! then, when the root or the projects have a problem, one line saying which. The report reads
//! the disk and never changes it.

// What is not re-exported from this root is `pub(crate)`: the curated list below is the API.
#![warn(unreachable_pub)]

mod analyzers;
mod projects;
mod root;

pub use analyzers::{AnalyzerReport, TypeCheckReport};
pub use projects::{
    PolicyProjects, ProjectInstance, ProjectReport, RequirementLine, project_report,
};
pub use root::{PolicyHealth, RootReport, root_report};

use analyzers::analyzer_report;
use pi_native_hooks_compose::LoadedConfig;
use pi_native_hooks_config::ConfigSource;
use pi_native_hooks_typescript::TsserverBridge;
use std::fmt;
use std::path::Path;

/// The whole report: the config root, the analyzers it runs and the projects it matches around
/// one directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DoctorReport {
    /// True when no config root exists, so a session (and `check` without `--config`) runs the
    /// built-in pack.
    pub builtin_pack: bool,
    /// The config root: trust, rules, policies, digest, settings.
    pub root: RootReport,
    /// The analyzers a session's waves run with it.
    pub analyzers: AnalyzerReport,
    /// The projects matched in the repository.
    pub projects: ProjectReport,
}

impl DoctorReport {
    /// True when the root is healthy and matching the projects met no problem: a
    /// `PROJECT.manifests` glob that matched nothing, a match its walk named and left out, a
    /// bound it hit, or a manifest that could not be read count against it. Outside a git
    /// repository nothing is matched, and that is not a problem. The analyzers section never
    /// counts: a directory in no TypeScript project, or a project whose TypeScript the type
    /// check cannot run, is the project's state, not a problem of the config (a session names
    /// it in its status and goes on without the type check there).
    pub fn healthy(&self) -> bool {
        self.root.healthy() && self.projects.problems.is_empty()
    }
}

/// Examines the config `root` (loaded once), the analyzers it runs for the directory `dir` and
/// the projects its verification policies match in the repository around `dir`. `bridge` is the
/// host's typescript-language-server, which serves a TypeScript before 7 as in a session (none:
/// only one installed beside the project does).
pub fn doctor(root: &Path, dir: &Path, bridge: Option<TsserverBridge>) -> DoctorReport {
    let (report, config) = root::examine(root);
    let projects = project_report(dir, &config.registry);
    let repository = projects.repository.as_deref();
    // The config a session chooses for this root: the root when anything is there, else the
    // built-in pack.
    let builtin_pack = matches!(
        ConfigSource::root_or_builtin(root.to_path_buf()),
        ConfigSource::BuiltIn
    );
    let analyzers = if builtin_pack {
        let builtin = LoadedConfig::load(&ConfigSource::BuiltIn);
        analyzer_report(&builtin, dir, repository, bridge)
    } else if config.registry.is_active() {
        analyzer_report(&config, dir, repository, bridge)
    } else {
        AnalyzerReport::Inactive
    };
    DoctorReport {
        builtin_pack,
        root: report,
        analyzers,
        projects,
    }
}

/// The report as `pi-native-hooks doctor` and `/hooks-doctor` print it: which config is in use
/// when it is the built-in pack, the root's report, the analyzers, the projects, and, when the
/// root or the projects are unhealthy, why (the command's exit status is then not zero).
impl fmt::Display for DoctorReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.builtin_pack {
            writeln!(
                f,
                "in use: the built-in pack (no config root exists; verification is off)"
            )?;
        }
        write!(f, "{}{}{}", self.root, self.analyzers, self.projects)?;
        let mut reasons = Vec::new();
        if !self.root.healthy() {
            reasons.push("the config root has problems".to_owned());
        }
        match self.projects.problems.len() {
            0 => {}
            1 => reasons.push("1 project problem".to_owned()),
            n => reasons.push(format!("{n} project problems")),
        }
        if !reasons.is_empty() {
            writeln!(f, "unhealthy ({}, listed above)", reasons.join("; "))?;
        }
        Ok(())
    }
}

//! The status model behind `/hooks-status` (`render` renders it): config root health, the
//! loaded policies with their digests and load errors, the settings in force with the settings
//! file's problems, the project, the workspace revision, each
//! requirement's state with its required revision, last success, active waiver, last failure and
//! last rejected run, the continuation cap, analyzer timing and health (with the files the last
//! run could not analyze), and coordinator failures. Parts owned by other modules (analyzers, the
//! wave coordinator, restore warnings) are passed in as plain data. The model keeps the original
//! text; whoever renders it for a terminal escapes it ([`pi_native_hooks_base::text`]).

mod doctor;
pub(crate) mod render;
pub(crate) mod report;

use pi_native_hooks_analysis::{AnalyzerKey, TreeCacheStats};
use pi_native_hooks_base::{CallId, PolicyId};
use pi_native_hooks_config::settings::{LoadedSettings, Settings, SettingsOrigin, SettingsProblem};
use pi_native_hooks_policy::{PolicyKind, PolicyRegistry, RegistrySource, registry_digest};
use pi_native_hooks_verification::{
    Baseline, Evidence, FailedRun, MatchedPolicy, ProjectIdentity, Rejection, RequirementKey,
    RequirementState, Standing, Timestamp, VerificationGate,
};
use pi_native_hooks_wave::NotAnalyzed;
use serde::Serialize;
use std::path::PathBuf;

/// Everything `/hooks-status` shows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HooksStatus {
    /// The configuration and policies.
    pub config: ConfigStatus,
    /// The settings in force and the settings file's problems.
    pub settings: SettingsStatus,
    /// The matched projects, the workspace and every tracked requirement.
    pub verification: VerificationStatus,
    /// Each analyzer's timing and health (from the analysis coordinator).
    pub analyzers: Vec<AnalyzerStatus>,
    /// Waves the coordinator gave up on or could not snapshot, as text (from the wave
    /// coordinator's status).
    pub coordinator_failures: Vec<String>,
    /// Skipped state entries from the last restore (from [`pi_native_hooks_verification::state::RestoreReport`]).
    pub state_warnings: Vec<String>,
}

/// Where the configuration came from and whether it loaded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum ConfigHealth {
    /// The personal config root loaded.
    Active {
        /// The directory the policies and rules were read from.
        root: PathBuf,
    },
    /// The built-in pack is in use.
    Builtin,
    /// The config root does not exist.
    Absent {
        /// Where the config root was looked for.
        root: PathBuf,
    },
    /// The config root failed a trust check; nothing was loaded.
    Untrusted {
        /// The config root that failed the check.
        root: PathBuf,
        /// The failed check.
        error: String,
    },
}

/// One loaded policy.
#[expect(missing_docs, reason = "bare fields name what they hold")]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PolicyStatus {
    pub id: PolicyId,
    pub kind: PolicyKind,
    pub path: PathBuf,
    /// The SHA-256 of its file, as the registry digest computes it.
    pub digest: String,
}

/// A policy file that did not load.
#[expect(missing_docs, reason = "bare fields name what they hold")]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PolicyLoadError {
    pub path: PathBuf,
    pub message: String,
    /// The policy id it had before, when a reload degraded it.
    pub degraded_from: Option<String>,
}

/// The configuration part of the status.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ConfigStatus {
    /// Where the policies came from.
    pub health: ConfigHealth,
    /// What to do when nothing is loaded.
    pub guidance: Option<String>,
    /// The digest of the loaded policy files.
    pub registry_digest: String,
    /// The loaded policies.
    pub policies: Vec<PolicyStatus>,
    /// The files that failed to load.
    pub load_errors: Vec<PolicyLoadError>,
}

impl ConfigStatus {
    /// The status of `registry`.
    pub fn of(registry: &PolicyRegistry) -> Self {
        let health = match registry.source() {
            RegistrySource::Root(root) => ConfigHealth::Active { root: root.clone() },
            RegistrySource::Builtin => ConfigHealth::Builtin,
            RegistrySource::Absent(root) => ConfigHealth::Absent { root: root.clone() },
            RegistrySource::Untrusted(root, error) => ConfigHealth::Untrusted {
                root: root.clone(),
                error: error.to_string(),
            },
        };
        let policies = registry
            .policies()
            .iter()
            .map(|policy| PolicyStatus {
                id: policy.contract.id.clone(),
                kind: policy.contract.kind(),
                path: policy.path.clone(),
                digest: registry
                    .files()
                    .find(|(relative, _)| policy.path.ends_with(relative))
                    .map(|file| registry_digest([file]))
                    .unwrap_or_default(),
            })
            .collect();
        ConfigStatus {
            health,
            guidance: registry.guidance(),
            registry_digest: registry.digest_with([]),
            policies,
            load_errors: registry
                .problems()
                .iter()
                .map(|problem| PolicyLoadError {
                    path: problem.path.clone(),
                    message: problem.to_string(),
                    degraded_from: problem.degraded_from.clone(),
                })
                .collect(),
        }
    }
}

/// The settings in force (the settings file's, or the defaults, with a test's overrides applied)
/// and what was wrong with the file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SettingsStatus {
    /// The settings file read, when one exists.
    pub file: Option<PathBuf>,
    /// Where the values come from, as text (`defaults (… does not exist)`, the file's path).
    pub origin: String,
    /// `verification.continuation_cap`.
    pub continuation_cap: u32,
    /// `waves.timeout_ms`.
    pub wave_timeout_ms: u64,
    /// `diagnostic_block.max_tokens`.
    pub block_max_tokens: usize,
    /// `diagnostic_block.max_line_chars`.
    pub block_max_line_chars: usize,
    /// `analysis.tree_cache_bytes`: the held-tree budget of the session's analyzer.
    pub tree_cache_bytes: u64,
    /// `tools.read_only`: the tools declared read-only besides the built-in ones.
    pub read_only_tools: Vec<String>,
    /// `[[tools.shell]]`: the declared shell tools.
    pub shell_tools: Vec<ShellToolStatus>,
    /// The settings file's problems (each bad setting keeps its default), naming file, line and
    /// key.
    pub problems: Vec<String>,
}

/// One declared shell tool.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ShellToolStatus {
    /// As `tools.shell[].name` declares it.
    pub name: String,
    /// Where its exit code is found (`field details.exit_code`, `pattern "…"`).
    pub exit_code: String,
}

impl SettingsStatus {
    /// The status of `loaded`, showing `in_force` as the values (the loaded ones with any
    /// overrides applied).
    pub fn of(loaded: &LoadedSettings, in_force: &Settings) -> Self {
        SettingsStatus {
            file: match &loaded.origin {
                SettingsOrigin::File(path) => Some(path.clone()),
                SettingsOrigin::Absent(_) | SettingsOrigin::BuiltIn => None,
            },
            origin: loaded.origin.to_string(),
            continuation_cap: in_force.continuation_cap,
            wave_timeout_ms: u64::try_from(in_force.wave_timeout.as_millis()).unwrap_or(u64::MAX),
            block_max_tokens: in_force.diagnostic_block.max_tokens,
            block_max_line_chars: in_force.diagnostic_block.max_line_chars,
            tree_cache_bytes: in_force.tree_cache_bytes,
            read_only_tools: in_force.read_only_tools.iter().cloned().collect(),
            shell_tools: in_force
                .shell_tools
                .iter()
                .map(|(name, source)| ShellToolStatus {
                    name: name.clone(),
                    exit_code: source.to_string(),
                })
                .collect(),
            problems: loaded.problems.iter().map(ToString::to_string).collect(),
        }
    }

    /// The status after a `/reload` that found the settings file unusable as a whole: `in_force`
    /// holds the values from before the reload, and the origin and the file's problems say so
    /// instead of claiming the defaults.
    pub fn kept_on_reload(loaded: &LoadedSettings, in_force: &Settings) -> Self {
        const KEPT: &str = "the settings in force before /reload are kept";
        let mut status = Self::of(loaded, in_force);
        status.origin = format!("{} (failed to load at /reload; {KEPT})", loaded.origin);
        status.problems = loaded
            .problems
            .iter()
            .map(|problem| match problem {
                SettingsProblem::Trust(error) => format!("{error} ({KEPT})"),
                SettingsProblem::Syntax {
                    path,
                    line,
                    message,
                } => format!(
                    "{}:{line}: not valid TOML: {message} ({KEPT})",
                    path.display()
                ),
                SettingsProblem::Key { .. } => problem.to_string(),
            })
            .collect();
        status
    }
}

/// The workspace as the gate last recorded it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WorkspaceStatus {
    /// The branch's workspace revision.
    pub revision: u64,
    /// The fingerprint of the last full snapshot, when the record is exact.
    pub fingerprint: Option<String>,
    /// Why the workspace state is unknown, when it is.
    pub unknown: Option<String>,
}

/// A waiver covering a requirement.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WaiverStatus {
    /// The waiver tool call.
    pub tool_call_id: CallId,
    /// The agent's reason.
    pub reason: String,
    /// When it was recorded.
    pub at: Timestamp,
}

/// A tracked requirement and where it stands.
#[expect(missing_docs, reason = "bare fields name what they hold")]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RequirementStatus {
    pub key: RequirementKey,
    pub project: ProjectIdentity,
    /// The exact command.
    pub command: String,
    /// The directory the command must run in.
    pub dir: PathBuf,
    pub state: RequirementState,
    /// The revision the command must run at or after.
    pub required_revision: Option<u64>,
    /// The last counted success (possibly for an older revision).
    pub last_success: Option<Evidence>,
    /// The waiver covering it now.
    pub waiver: Option<WaiverStatus>,
    /// The last counted failure.
    pub last_failure: Option<FailedRun>,
    /// The last run of the exact command that did not count.
    pub last_rejection: Option<Rejection>,
    /// Why it is unknown, when it is.
    pub unknown_reason: Option<String>,
    /// Why no loaded policy backs it any more, when that is so.
    pub detached: Option<String>,
}

/// The continuation cap.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GateStatus {
    /// Continuations allowed without progress.
    pub continuation_cap: u32,
    /// Continuations sent for the current outstanding set.
    pub continuations_without_progress: u32,
    /// The gate stopped forcing; outstanding checks stay pending.
    pub exhausted: bool,
}

/// The verification part of the status.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VerificationStatus {
    /// The project root (git root), when the session is in a git worktree.
    pub project_root: Option<PathBuf>,
    /// The policies that matched the project, with its identity.
    pub projects: Vec<MatchedProject>,
    /// Why a policy could not be matched.
    pub project_problems: Vec<String>,
    /// Whether the gate could read the workspace and what it changed since the baseline.
    pub workspace: WorkspaceStatus,
    /// Every tracked requirement.
    pub requirements: Vec<RequirementStatus>,
    /// The continuation cap.
    pub gate: GateStatus,
}

/// A policy that matched the project.
#[expect(missing_docs, reason = "`policy` names what it holds")]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MatchedProject {
    pub policy: PolicyId,
    /// The project it matched.
    pub project: ProjectIdentity,
}

impl VerificationStatus {
    /// The status of `gate`.
    pub fn of(gate: &VerificationGate) -> Self {
        let projects = gate.projects();
        let workspace = match gate.baseline() {
            Baseline::Known(record) => WorkspaceStatus {
                revision: gate.revision(),
                fingerprint: record.fingerprint.clone(),
                unknown: None,
            },
            Baseline::Unknown { reason } => WorkspaceStatus {
                revision: gate.revision(),
                fingerprint: None,
                unknown: Some(reason.clone()),
            },
        };
        let requirements = gate
            .requirements()
            .iter()
            .map(|requirement| RequirementStatus {
                key: requirement.key.clone(),
                project: requirement.project.clone(),
                command: requirement.command.clone(),
                dir: requirement.run_dir().to_owned(),
                state: requirement.state(),
                required_revision: requirement.required_revision,
                last_success: requirement.last_success.clone(),
                waiver: match &requirement.standing {
                    Standing::Waived { tool_call_id } => gate
                        .waivers()
                        .iter()
                        .find(|waiver| waiver.tool_call_id == *tool_call_id)
                        .map(|waiver| WaiverStatus {
                            tool_call_id: waiver.tool_call_id.clone(),
                            reason: waiver.reason.clone(),
                            at: waiver.at,
                        }),
                    _ => None,
                },
                last_failure: requirement.last_failure.clone(),
                last_rejection: requirement.last_rejection.clone(),
                unknown_reason: requirement.unknown_reason().map(str::to_owned),
                detached: requirement.detached.clone(),
            })
            .collect();
        VerificationStatus {
            project_root: projects.root.clone(),
            projects: projects
                .matched
                .iter()
                .map(
                    |MatchedPolicy {
                         policy, identity, ..
                     }| MatchedProject {
                        policy: policy.clone(),
                        project: identity.clone(),
                    },
                )
                .collect(),
            project_problems: projects.problems.iter().map(ToString::to_string).collect(),
            workspace,
            requirements,
            gate: GateStatus {
                continuation_cap: gate.config().continuation_cap,
                continuations_without_progress: gate.cap().without_progress(),
                exhausted: gate.cap().is_exhausted(),
            },
        }
    }
}

/// One analyzer's timing and health, as the analysis coordinator reports it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AnalyzerStatus {
    /// The analyzer key, e.g. `ast-grep:personal`.
    pub key: AnalyzerKey,
    /// Waves it ran in.
    pub runs: u64,
    /// Its last run's duration.
    pub last_duration_micros: Option<u64>,
    /// The sum of its runs' durations.
    pub total_duration_micros: u64,
    /// The last run's failure, if it failed (a failed analyzer never claims a clean scan).
    pub last_error: Option<String>,
    /// The files its last run could not analyze (too large, binary, unreadable, not a regular
    /// file, …), by name and reason.
    pub not_analyzed: NotAnalyzed,
    /// What it holds for incremental re-analysis (files, bytes of the budget, evictions) and how
    /// many files it analyzed in full and re-analyzed incrementally, as of its last
    /// run; `None` for an analyzer that holds no trees.
    pub trees: Option<TreeCacheStats>,
}

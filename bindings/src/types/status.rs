//! The status model behind `/hooks-status` as JS sees it: the engine's
//! [`SessionReport`](engine::SessionReport), camelCase throughout, tags as string unions, counts
//! and revisions as numbers, timestamps as milliseconds since the Unix epoch. Reasons the engine
//! words for the user (a skipped file, a rejected run) cross as their text.

use napi_derive::napi;
use pi_native_hooks_analysis::TreeCacheStats;
use pi_native_hooks_session as engine;

use pi_native_hooks_verification as verification;
use pi_native_hooks_wave as wave;

use super::watcher_status::WatcherStatus;

/// A count, revision or time in milliseconds as a JS number (exact below 2^53).
#[expect(
    clippy::cast_precision_loss,
    reason = "every value here stays far below 2^53"
)]
fn num(n: u64) -> f64 {
    n as f64
}

/// Everything `/hooks-status` shows.
#[napi(object)]
pub struct SessionStatus {
    /// True when a config root was loaded.
    pub active: bool,
    /// What to do when the hooks are inactive or idle.
    pub guidance: Option<String>,
    /// Config, policies, verification, analyzers, coordinator failures, state warnings.
    pub hooks: HooksStatus,
    /// Rule files that did not load.
    pub rule_problems: Vec<String>,
    /// Policies that failed while running, each naming its file and the reason; most recent
    /// last.
    pub policy_failures: Vec<String>,
    /// Wave totals; `totals.scans` counts analyzer runs.
    pub totals: WaveTotals,
    /// The workspace watcher behind whole-worktree (`bash`) snapshots, when the session has one.
    pub watcher: Option<WatcherStatus>,
    /// Why the session stopped (`engine panicked in <method>: <message>`), once a panic stopped
    /// it; the rest is then the status as last read before the panic.
    pub panic: Option<String>,
}

impl From<engine::SessionReport> for SessionStatus {
    fn from(status: engine::SessionReport) -> Self {
        SessionStatus {
            active: status.active,
            guidance: status.guidance,
            hooks: status.hooks.into(),
            rule_problems: status.rule_problems,
            policy_failures: status.policy_failures,
            totals: status.totals.into(),
            watcher: status.watcher.map(Into::into),
            panic: None,
        }
    }
}

/// The engine's part of the status.
#[napi(object)]
pub struct HooksStatus {
    /// The configuration and policies.
    pub config: ConfigStatus,
    /// The settings in force and the settings file's problems.
    pub settings: SettingsStatus,
    /// The verification gate.
    pub verification: VerificationStatus,
    /// Each analyzer's timing and health.
    pub analyzers: Vec<AnalyzerStatus>,
    /// Waves the coordinator gave up on or could not snapshot.
    pub coordinator_failures: Vec<String>,
    /// Skipped state entries from the last restore.
    pub state_warnings: Vec<String>,
}

impl From<engine::HooksStatus> for HooksStatus {
    fn from(hooks: engine::HooksStatus) -> Self {
        HooksStatus {
            config: hooks.config.into(),
            settings: hooks.settings.into(),
            verification: hooks.verification.into(),
            analyzers: hooks.analyzers.into_iter().map(Into::into).collect(),
            coordinator_failures: hooks.coordinator_failures,
            state_warnings: hooks.state_warnings,
        }
    }
}

/// Where the configuration came from.
#[napi(string_enum = "camelCase")]
pub enum ConfigSource {
    /// The personal config root loaded.
    Active,
    /// The built-in pack is in use.
    Builtin,
    /// The config root does not exist.
    Absent,
    /// The config root failed a trust check; nothing was loaded.
    Untrusted,
}

/// The configuration part of the status.
#[napi(object)]
pub struct ConfigStatus {
    /// Where the policies came from.
    pub source: ConfigSource,
    /// The config root (absent for the built-in pack).
    pub root: Option<String>,
    /// The failed trust check, for an untrusted root.
    pub trust_error: Option<String>,
    /// What to do when nothing is loaded.
    pub guidance: Option<String>,
    /// The digest of the loaded policy files.
    pub registry_digest: String,
    /// The loaded policies.
    pub policies: Vec<PolicyStatus>,
    /// The files that failed to load.
    pub load_errors: Vec<PolicyLoadError>,
}

impl From<engine::ConfigStatus> for ConfigStatus {
    fn from(config: engine::ConfigStatus) -> Self {
        let (source, root, trust_error) = match config.health {
            engine::ConfigHealth::Active { root } => (ConfigSource::Active, Some(root), None),
            engine::ConfigHealth::Builtin => (ConfigSource::Builtin, None, None),
            engine::ConfigHealth::Absent { root } => (ConfigSource::Absent, Some(root), None),
            engine::ConfigHealth::Untrusted { root, error } => {
                (ConfigSource::Untrusted, Some(root), Some(error))
            }
        };
        ConfigStatus {
            source,
            root: root.map(|root| root.display().to_string()),
            trust_error,
            guidance: config.guidance,
            registry_digest: config.registry_digest,
            policies: config.policies.into_iter().map(Into::into).collect(),
            load_errors: config.load_errors.into_iter().map(Into::into).collect(),
        }
    }
}

/// The settings in force (the settings file's, or the defaults, with the test options applied)
/// and what was wrong with the file.
#[napi(object)]
pub struct SettingsStatus {
    /// The settings file read, when one exists.
    pub file: Option<String>,
    /// Where the values come from, as text.
    pub origin: String,
    /// `verification.continuation_cap`.
    pub continuation_cap: u32,
    /// `waves.timeout_ms`.
    pub wave_timeout_ms: f64,
    /// `diagnostic_block.max_tokens`.
    pub block_max_tokens: u32,
    /// `diagnostic_block.max_line_chars`.
    pub block_max_line_chars: u32,
    /// `analysis.tree_cache_bytes`: the held-tree budget of the session's analyzer, in bytes.
    pub tree_cache_bytes: f64,
    /// `tools.read_only`: the tools declared read-only besides Pi's read-only built-ins.
    pub read_only_tools: Vec<String>,
    /// `[[tools.shell]]`: the declared shell tools.
    pub shell_tools: Vec<ShellToolStatus>,
    /// The settings file's problems, each naming file, line and key.
    pub problems: Vec<String>,
}

impl From<engine::SettingsStatus> for SettingsStatus {
    fn from(settings: engine::SettingsStatus) -> Self {
        // The bounds of the settings keep both limits far below `u32::MAX`.
        let small = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        SettingsStatus {
            file: settings.file.map(|file| file.display().to_string()),
            origin: settings.origin,
            continuation_cap: settings.continuation_cap,
            wave_timeout_ms: num(settings.wave_timeout_ms),
            block_max_tokens: small(settings.block_max_tokens),
            block_max_line_chars: small(settings.block_max_line_chars),
            tree_cache_bytes: num(settings.tree_cache_bytes),
            read_only_tools: settings.read_only_tools,
            shell_tools: settings
                .shell_tools
                .into_iter()
                .map(|tool| ShellToolStatus {
                    name: tool.name,
                    exit_code: tool.exit_code,
                })
                .collect(),
            problems: settings.problems,
        }
    }
}

/// One declared shell tool.
#[napi(object)]
pub struct ShellToolStatus {
    /// The tool's name.
    pub name: String,
    /// Where its exit code is found (`field details.exit_code`, `pattern '…'`).
    pub exit_code: String,
}

/// A policy's kind.
#[napi(string_enum = "camelCase")]
pub enum PolicyKind {
    /// Reports findings to the model.
    Diagnostic,
    /// Requires commands after relevant changes.
    Verification,
}

/// One loaded policy.
#[napi(object)]
pub struct PolicyStatus {
    /// Its id.
    pub id: String,
    /// Its kind.
    pub kind: PolicyKind,
    /// Its file.
    pub path: String,
    /// The SHA-256 of its file, as the registry digest computes it.
    pub digest: String,
}

impl From<engine::PolicyStatus> for PolicyStatus {
    fn from(policy: engine::PolicyStatus) -> Self {
        PolicyStatus {
            id: policy.id.into(),
            kind: match policy.kind {
                pi_native_hooks_policy::PolicyKind::Diagnostic => PolicyKind::Diagnostic,
                pi_native_hooks_policy::PolicyKind::Verification => PolicyKind::Verification,
            },
            path: policy.path.display().to_string(),
            digest: policy.digest,
        }
    }
}

/// A policy file that did not load.
#[napi(object)]
pub struct PolicyLoadError {
    /// The file.
    pub path: String,
    /// What is wrong.
    pub message: String,
    /// The policy id it had before, when a reload degraded it.
    pub degraded_from: Option<String>,
}

impl From<engine::PolicyLoadError> for PolicyLoadError {
    fn from(error: engine::PolicyLoadError) -> Self {
        PolicyLoadError {
            path: error.path.display().to_string(),
            message: error.message,
            degraded_from: error.degraded_from,
        }
    }
}

/// The verification part of the status.
#[napi(object)]
pub struct VerificationStatus {
    /// The project root (git root), when the session is in a git worktree.
    pub project_root: Option<String>,
    /// The policies that matched the project.
    pub projects: Vec<MatchedProject>,
    /// Why a policy could not be matched.
    pub project_problems: Vec<String>,
    /// The workspace.
    pub workspace: WorkspaceStatus,
    /// Every tracked requirement.
    pub requirements: Vec<RequirementStatus>,
    /// The continuation cap.
    pub gate: GateStatus,
}

impl From<engine::VerificationStatus> for VerificationStatus {
    fn from(status: engine::VerificationStatus) -> Self {
        VerificationStatus {
            project_root: status.project_root.map(|root| root.display().to_string()),
            projects: status
                .projects
                .into_iter()
                .map(|matched| MatchedProject {
                    policy: matched.policy.into(),
                    project: matched.project.into(),
                })
                .collect(),
            project_problems: status.project_problems,
            workspace: WorkspaceStatus {
                revision: num(status.workspace.revision),
                fingerprint: status.workspace.fingerprint,
                unknown: status.workspace.unknown,
            },
            requirements: status.requirements.into_iter().map(Into::into).collect(),
            gate: GateStatus {
                continuation_cap: status.gate.continuation_cap,
                continuations_without_progress: status.gate.continuations_without_progress,
                exhausted: status.gate.exhausted,
            },
        }
    }
}

/// A policy that matched the project.
#[napi(object)]
pub struct MatchedProject {
    /// The policy id.
    pub policy: String,
    /// The project it matched.
    pub project: ProjectIdentity,
}

/// A project as a verification policy identifies it.
#[napi(object)]
pub struct ProjectIdentity {
    /// Its root directory.
    pub root: String,
    /// The manifest that names it (e.g. `package.json`).
    pub manifest: String,
    /// Its name in that manifest.
    pub name: String,
}

impl From<verification::ProjectIdentity> for ProjectIdentity {
    fn from(project: verification::ProjectIdentity) -> Self {
        ProjectIdentity {
            root: project.root.display().to_string(),
            manifest: project.manifest,
            name: project.name,
        }
    }
}

/// The workspace as the gate last recorded it.
#[napi(object)]
pub struct WorkspaceStatus {
    /// The branch's workspace revision.
    pub revision: f64,
    /// The fingerprint of the last full snapshot, when the record is exact.
    pub fingerprint: Option<String>,
    /// Why the workspace state is unknown, when it is.
    pub unknown: Option<String>,
}

/// Where a requirement stands.
#[napi(string_enum = "camelCase")]
pub enum RequirementState {
    /// No relevant change armed it.
    Inactive,
    /// Armed; the command has not run since.
    NotRun,
    /// The command succeeded at or after the required revision.
    Passed,
    /// The command's last counted run failed.
    Failed,
    /// A later change made the last success too old.
    Stale,
    /// Waived by the agent, with a reason (never passed).
    Waived,
    /// What changed cannot be proven.
    Unknown,
}

impl From<verification::RequirementState> for RequirementState {
    fn from(state: verification::RequirementState) -> Self {
        use verification::RequirementState as S;
        match state {
            S::Inactive => RequirementState::Inactive,
            S::NotRun => RequirementState::NotRun,
            S::Passed => RequirementState::Passed,
            S::Failed => RequirementState::Failed,
            S::Stale => RequirementState::Stale,
            S::Waived => RequirementState::Waived,
            S::Unknown => RequirementState::Unknown,
        }
    }
}

/// Which requirement: a policy's requirement id.
#[napi(object)]
pub struct RequirementKey {
    /// The policy id.
    pub policy: String,
    /// The requirement id within it.
    pub id: String,
    /// The project directory (relative to the repository root) of a `PROJECT.manifests` glob's
    /// match; absent for a one-project policy.
    pub instance: Option<String>,
}

/// One requirement.
#[napi(object)]
pub struct RequirementStatus {
    /// Which requirement.
    pub key: RequirementKey,
    /// Its project.
    pub project: ProjectIdentity,
    /// The exact command.
    pub command: String,
    /// The directory the command must run in (absolute).
    pub dir: String,
    /// Its state.
    pub state: RequirementState,
    /// The revision the command must run at or after.
    pub required_revision: Option<f64>,
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
    /// Why no loaded policy backs it now, when that is so.
    pub detached: Option<String>,
}

impl From<engine::RequirementStatus> for RequirementStatus {
    fn from(status: engine::RequirementStatus) -> Self {
        RequirementStatus {
            key: RequirementKey {
                policy: status.key.policy.into(),
                id: status.key.id,
                instance: status.key.instance.map(String::from),
            },
            project: status.project.into(),
            command: status.command,
            dir: status.dir.display().to_string(),
            state: status.state.into(),
            required_revision: status.required_revision.map(num),
            last_success: status.last_success.map(|evidence| Evidence {
                tool_call_id: evidence.tool_call_id.into(),
                command: evidence.command,
                project: evidence.project.into(),
                registry_digest: evidence.registry_digest,
                required_revision: num(evidence.required_revision),
                started_at_revision: num(evidence.started_at_revision),
                at: num(evidence.at.0),
            }),
            waiver: status.waiver.map(|waiver| WaiverStatus {
                tool_call_id: waiver.tool_call_id.into(),
                reason: waiver.reason,
                at: num(waiver.at.0),
            }),
            last_failure: status.last_failure.map(|failure| FailedRun {
                tool_call_id: failure.tool_call_id.into(),
                required_revision: num(failure.required_revision),
                #[expect(clippy::cast_precision_loss, reason = "an exit code")]
                exit_code: failure.exit_code.map(|code| code as f64),
                is_error: failure.is_error,
                at: num(failure.at.0),
            }),
            last_rejection: status.last_rejection.map(|rejection| Rejection {
                tool_call_id: rejection.tool_call_id.into(),
                revision: num(rejection.revision),
                reason: rejection.reason.to_string(),
                at: num(rejection.at.0),
            }),
            unknown_reason: status.unknown_reason,
            detached: status.detached,
        }
    }
}

/// A counted success of the exact command.
#[napi(object)]
pub struct Evidence {
    /// The call that ran it.
    pub tool_call_id: String,
    /// The command.
    pub command: String,
    /// The project it ran for.
    pub project: ProjectIdentity,
    /// The registry digest it ran under.
    pub registry_digest: String,
    /// The revision it satisfied.
    pub required_revision: f64,
    /// The workspace revision when it started.
    pub started_at_revision: f64,
    /// When it was recorded (ms since the Unix epoch).
    pub at: f64,
}

/// A waiver covering a requirement.
#[napi(object)]
pub struct WaiverStatus {
    /// The waiver tool call.
    pub tool_call_id: String,
    /// The agent's reason.
    pub reason: String,
    /// When it was recorded (ms since the Unix epoch).
    pub at: f64,
}

/// A counted failure of the exact command.
#[napi(object)]
pub struct FailedRun {
    /// The call that ran it.
    pub tool_call_id: String,
    /// The revision it was required at.
    pub required_revision: f64,
    /// Its exit code, when reported.
    pub exit_code: Option<f64>,
    /// Whether the tool reported an error.
    pub is_error: bool,
    /// When it was recorded (ms since the Unix epoch).
    pub at: f64,
}

/// A run of the exact command that did not count.
#[napi(object)]
pub struct Rejection {
    /// The call that ran it.
    pub tool_call_id: String,
    /// The workspace revision it ran at.
    pub revision: f64,
    /// Why it did not count.
    pub reason: String,
    /// When it was recorded (ms since the Unix epoch).
    pub at: f64,
}

/// The continuation cap.
#[napi(object)]
pub struct GateStatus {
    /// Continuations allowed without progress.
    pub continuation_cap: u32,
    /// Continuations sent for the current outstanding set.
    pub continuations_without_progress: u32,
    /// The gate stopped forcing; outstanding checks stay pending.
    pub exhausted: bool,
}

/// One analyzer's timing and health.
#[napi(object)]
pub struct AnalyzerStatus {
    /// The analyzer key, e.g. `ast-grep:personal`.
    pub key: String,
    /// Waves it ran in.
    pub runs: f64,
    /// Its last run's duration, in microseconds.
    pub last_duration_micros: Option<f64>,
    /// The sum of its runs' durations, in microseconds.
    pub total_duration_micros: f64,
    /// The last run's failure, if it failed.
    pub last_error: Option<String>,
    /// The files its last run could not analyze, by name and reason.
    pub not_analyzed: Vec<NotAnalyzedFile>,
    /// Further files it could not analyze, not named.
    pub more_not_analyzed: u32,
    /// What it holds for incremental re-analysis and how it analyzed files, as of its last run;
    /// absent for an analyzer that holds no trees.
    pub trees: Option<HeldTrees>,
}

/// What an analyzer holds for incremental re-analysis, and how it analyzed files so far.
#[napi(object)]
pub struct HeldTrees {
    /// Files whose source text and syntax tree are held.
    pub held_files: f64,
    /// Bytes charged for them.
    pub held_bytes: f64,
    /// The budget (`analysis.tree_cache_bytes`).
    pub budget_bytes: f64,
    /// Files evicted to stay within the budget.
    pub evictions: f64,
    /// Files analyzed in full.
    pub full_analyses: f64,
    /// Files re-analyzed incrementally.
    pub incremental_analyses: f64,
}

impl From<TreeCacheStats> for HeldTrees {
    fn from(trees: TreeCacheStats) -> Self {
        HeldTrees {
            held_files: num(u64::try_from(trees.held_files).unwrap_or(u64::MAX)),
            held_bytes: num(trees.held_bytes),
            budget_bytes: num(trees.budget_bytes),
            evictions: num(trees.evictions),
            full_analyses: num(trees.full_analyses),
            incremental_analyses: num(trees.incremental_analyses),
        }
    }
}

/// A file an analyzer could not analyze.
#[napi(object)]
pub struct NotAnalyzedFile {
    /// The repository-relative path.
    pub path: String,
    /// Why, as the status shows it.
    pub reason: String,
}

impl From<engine::AnalyzerStatus> for AnalyzerStatus {
    fn from(status: engine::AnalyzerStatus) -> Self {
        AnalyzerStatus {
            key: status.key.to_string(),
            runs: num(status.runs),
            last_duration_micros: status.last_duration_micros.map(num),
            total_duration_micros: num(status.total_duration_micros),
            last_error: status.last_error,
            not_analyzed: status
                .not_analyzed
                .files
                .into_iter()
                .map(|file| NotAnalyzedFile {
                    reason: file.reason.to_string(),
                    path: file.path,
                })
                .collect(),
            more_not_analyzed: u32::try_from(status.not_analyzed.more).unwrap_or(u32::MAX),
            trees: status.trees.map(Into::into),
        }
    }
}

/// Wave totals.
#[napi(object)]
pub struct WaveTotals {
    /// Waves finished.
    pub waves: f64,
    /// Of which mutating.
    pub mutating_waves: f64,
    /// Analyzer runs.
    pub scans: f64,
    /// Files parsed.
    pub files_parsed: f64,
    /// Files served from the content cache.
    pub files_cached: f64,
    /// Diagnostics delivered.
    pub delivered: f64,
    /// Coordinator failures.
    pub coordinator_failures: f64,
}

impl From<wave::WaveTotals> for WaveTotals {
    fn from(totals: wave::WaveTotals) -> Self {
        WaveTotals {
            waves: num(totals.waves),
            mutating_waves: num(totals.mutating_waves),
            scans: num(totals.scans),
            files_parsed: num(totals.files_parsed),
            files_cached: num(totals.files_cached),
            delivered: num(totals.delivered),
            coordinator_failures: num(totals.coordinator_failures),
        }
    }
}

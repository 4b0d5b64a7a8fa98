//! Owns what a session shows: the [`SessionStatus`] model behind `/hooks-status` (the engine's
//! status plus the wave totals and why the hooks are idle, if they are), the compact footer, and
//! the status as text. The binding only prints these.

use super::Session;
use crate::status::{ConfigHealth, ConfigStatus, HooksStatus, VerificationStatus};
use crate::verification::RequirementState;
use crate::wave::WaveTotals;
use serde::Serialize;
use std::fmt::Write;

/// Everything `/hooks-status` shows.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionStatus {
    /// True when a config root was loaded.
    pub active: bool,
    /// What to do when the hooks are inactive or idle.
    pub guidance: Option<String>,
    /// Config, policies, verification, analyzers, coordinator failures, state warnings.
    pub hooks: HooksStatus,
    /// Rule files that did not load.
    pub rule_problems: Vec<String>,
    /// Policies that failed while running (threw, timed out, exceeded a limit, returned a
    /// malformed result), each naming its file and the reason; most recent last.
    pub policy_failures: Vec<String>,
    /// Wave totals; `totals.scans` counts analyzer runs.
    pub totals: WaveTotals,
}

impl Session {
    /// The status model, after feeding every finished wave to the gate.
    pub fn status(&self) -> SessionStatus {
        self.absorb_finished_waves();
        let wave = self
            .coordinator
            .as_ref()
            .map(|c| c.status())
            .unwrap_or_default();
        let state = self.gate();
        let hooks = HooksStatus {
            config: ConfigStatus::of(&self.registry),
            verification: VerificationStatus::of(&state.gate),
            analyzers: state.analyzers.values().cloned().collect(),
            coordinator_failures: wave.failures.iter().map(ToString::to_string).collect(),
            state_warnings: state.state_warnings.clone(),
        };
        let guidance = match &hooks.config.health {
            ConfigHealth::Absent { root } => Some(format!(
                "pi-native-hooks is inactive: there is no config root at {}. Run /hooks-init to create it with the built-in rules and policies.",
                root.display()
            )),
            ConfigHealth::Untrusted { error, .. } => Some(format!(
                "pi-native-hooks is inactive: the config root is not trusted ({error}). Fix it, then /reload."
            )),
            ConfigHealth::Active { .. } | ConfigHealth::Builtin => self
                .idle_reason
                .as_ref()
                .map(|reason| format!("tool waves are not observed: {reason}")),
        };
        SessionStatus {
            active: self.is_active(),
            guidance,
            rule_problems: self.rule_problems.iter().map(ToString::to_string).collect(),
            policy_failures: state.policy_failures.clone(),
            hooks,
            totals: wave.totals,
        }
    }
}

impl Session {
    /// The `/hooks-doctor` text: the config root's trust checks, rule files and policies (read
    /// again from disk), then each analyzer's health and the coordinator's failures.
    pub fn doctor_text(&self) -> String {
        let mut out = crate::policy::doctor::doctor(&self.options.config_root).to_string();
        let status = self.status();
        if let Some(reason) = &self.idle_reason {
            let _ = writeln!(out, "tool waves: not observed ({reason})");
        }
        for analyzer in &status.hooks.analyzers {
            let health = analyzer.last_error.as_deref().unwrap_or("ok");
            let _ = writeln!(
                out,
                "analyzer {}: {} runs, {health}",
                analyzer.key, analyzer.runs
            );
        }
        for problem in &status.rule_problems {
            let _ = writeln!(out, "rule problem: {problem}");
        }
        for failure in &status.policy_failures {
            let _ = writeln!(out, "policy failure: {failure}");
        }
        for failure in &status.hooks.coordinator_failures {
            let _ = writeln!(out, "coordinator failure: {failure}");
        }
        out
    }
}

/// What the footer shows, gathered without building the whole status (it is refreshed after
/// every wave).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FooterSummary {
    /// True when a config root was loaded.
    pub active: bool,
    /// Diagnostics delivered so far.
    pub delivered: u64,
    /// Requirements that passed.
    pub passed: usize,
    /// Armed requirements neither passed nor waived.
    pub pending: usize,
    /// Requirements currently waived.
    pub waived: usize,
    /// The gate stopped forcing.
    pub exhausted: bool,
    /// Something failed to load or run: a rule file, a policy, an analyzer, the coordinator.
    pub degraded: bool,
}

impl Session {
    /// The footer's data.
    pub fn footer_summary(&self) -> FooterSummary {
        self.absorb_finished_waves();
        let totals = self
            .coordinator
            .as_ref()
            .map(|c| c.totals())
            .unwrap_or_default();
        let state = self.gate();
        let mut summary = FooterSummary {
            active: self.is_active(),
            delivered: totals.delivered,
            exhausted: state.gate.cap().is_exhausted(),
            degraded: !self.rule_problems.is_empty()
                || !self.registry.problems().is_empty()
                || state.analyzers.values().any(|a| a.last_error.is_some())
                || !state.policy_failures.is_empty()
                || totals.coordinator_failures > 0,
            ..FooterSummary::default()
        };
        for requirement in state.gate.requirements() {
            match requirement.state() {
                RequirementState::Passed => summary.passed += 1,
                RequirementState::Waived => summary.waived += 1,
                RequirementState::NotRun
                | RequirementState::Failed
                | RequirementState::Stale
                | RequirementState::Unknown => summary.pending += 1,
                RequirementState::Inactive => {}
            }
        }
        summary
    }
}

/// The footer line (`ctx.ui.setStatus("pi-native-hooks", …)`): diagnostics delivered, the
/// verification summary, and a degraded marker.
pub fn footer(summary: &FooterSummary) -> String {
    if !summary.active {
        return "hooks: inactive (/hooks-init)".to_owned();
    }
    let mut line = format!("hooks: {} diagnostics", summary.delivered);
    if summary.passed + summary.pending + summary.waived > 0 {
        let _ = write!(
            line,
            " · checks: {} passed, {} pending",
            summary.passed, summary.pending
        );
        if summary.waived > 0 {
            let _ = write!(line, ", {} waived", summary.waived);
        }
    }
    if summary.exhausted {
        line.push_str(" · gate exhausted");
    }
    if summary.degraded {
        line.push_str(" · degraded (/hooks-doctor)");
    }
    line
}

/// The status as `/hooks-status` prints it.
pub fn render_status(status: &SessionStatus) -> String {
    let mut out = String::new();
    let hooks = &status.hooks;
    let _ = writeln!(
        out,
        "pi-native-hooks {}",
        if status.active { "active" } else { "inactive" }
    );
    if let Some(guidance) = &status.guidance {
        let _ = writeln!(out, "{guidance}");
    }
    match &hooks.config.health {
        ConfigHealth::Active { root } | ConfigHealth::Absent { root } => {
            let _ = writeln!(out, "config root: {}", root.display());
        }
        ConfigHealth::Untrusted { root, error } => {
            let _ = writeln!(out, "config root: {} (untrusted: {error})", root.display());
        }
        ConfigHealth::Builtin => {
            let _ = writeln!(out, "config: built-in pack");
        }
    }
    if status.active {
        let _ = writeln!(out, "registry digest: {}", hooks.config.registry_digest);
        let _ = writeln!(out, "policies:");
        for policy in &hooks.config.policies {
            let _ = writeln!(
                out,
                "  {} ({}) {}",
                policy.id,
                policy.kind,
                policy.path.display()
            );
        }
    }
    for error in &hooks.config.load_errors {
        let _ = writeln!(out, "  failed: {}", error.message);
    }
    for problem in &status.rule_problems {
        let _ = writeln!(out, "  rule problem: {problem}");
    }
    let totals = &status.totals;
    let _ = writeln!(
        out,
        "waves: {} ({} mutating), scans: {}, files parsed: {}, cached: {}, diagnostics delivered: {}",
        totals.waves,
        totals.mutating_waves,
        totals.scans,
        totals.files_parsed,
        totals.files_cached,
        totals.delivered
    );
    for analyzer in &hooks.analyzers {
        let last = analyzer
            .last_duration_micros
            .map_or_else(|| "-".to_owned(), |m| format!("{m} µs"));
        let health = analyzer.last_error.as_deref().unwrap_or("ok");
        let _ = writeln!(
            out,
            "analyzer {}: {} runs, last {last}, {health}",
            analyzer.key, analyzer.runs
        );
    }
    for failure in &status.policy_failures {
        let _ = writeln!(out, "policy failure: {failure}");
    }
    render_verification(&mut out, &hooks.verification);
    for failure in &hooks.coordinator_failures {
        let _ = writeln!(out, "coordinator failure: {failure}");
    }
    for warning in &hooks.state_warnings {
        let _ = writeln!(out, "state warning: {warning}");
    }
    out
}

fn render_verification(out: &mut String, verification: &VerificationStatus) {
    match &verification.project_root {
        Some(root) => {
            let _ = writeln!(
                out,
                "project: {} (revision {})",
                root.display(),
                verification.workspace.revision
            );
        }
        None => {
            let _ = writeln!(out, "project: not in a git worktree");
        }
    }
    if let Some(unknown) = &verification.workspace.unknown {
        let _ = writeln!(out, "  workspace unknown: {unknown}");
    }
    for problem in &verification.project_problems {
        let _ = writeln!(out, "  project problem: {problem}");
    }
    if verification.requirements.is_empty() {
        let _ = writeln!(out, "verification: no requirement matches this project");
    }
    for requirement in &verification.requirements {
        let revision = requirement
            .required_revision
            .map_or_else(|| "-".to_owned(), |r| r.to_string());
        let _ = writeln!(
            out,
            "  {} `{}`: {} (required revision {revision})",
            requirement.key, requirement.command, requirement.state
        );
        if let Some(waiver) = &requirement.waiver {
            let _ = writeln!(out, "    waived (not passed): {}", waiver.reason);
        }
        if let Some(failure) = &requirement.last_failure {
            let _ = writeln!(out, "    last failure: {failure}");
        }
        if let Some(reason) = &requirement.unknown_reason {
            let _ = writeln!(out, "    unknown: {reason}");
        }
    }
    let gate = &verification.gate;
    if gate.exhausted {
        let _ = writeln!(
            out,
            "gate exhausted after {} continuations without progress: checks stay pending",
            gate.continuations_without_progress
        );
    }
}

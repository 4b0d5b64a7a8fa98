//! Owns what a session shows: the state each gate operation publishes for the synchronous calls
//! ([`Published`](crate::gate::worker::Published)), the [`SessionReport`] model behind
//! `/hooks-status` (the engine's status plus the wave totals and why the hooks are idle, if they
//! are; `Serialize`, for whoever wants it as data) and the compact footer. Its text is rendered
//! by `render` (`/hooks-status`); the doctor text is `doctor`'s. The binding only prints these.
//!
//! The status model keeps the original text; every line of the status, footer and doctor text is
//! escaped ([`pi_native_hooks_base::text`]), so a file name, a policy message or a reason cannot
//! add lines or drive the terminal.

use crate::state::Session;
use crate::status::{ConfigHealth, HooksStatus, SettingsStatus};
use pi_native_hooks_base::escape;
use pi_native_hooks_wave::{LaneStores, WaveCoordinator, WaveTotals};
use pi_native_hooks_workspace::WatchStatus;
use serde::Serialize;
use std::fmt::Write;

/// Everything `/hooks-status` shows.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionReport {
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
    /// How full the delivery's per-session stores are.
    pub stores: LaneStores,
    /// The workspace watcher behind whole-worktree (`bash`) snapshots, when there is one.
    pub watcher: Option<WatchStatus>,
    /// What each analyzer shows of itself, in its own words (the type check's projects and
    /// servers, or why it is off); none when no wave is observed.
    pub analyzer_lines: Vec<String>,
}

impl Session {
    /// The status model as the last gate operation left it (every finished wave is fed to the
    /// gate as it finishes). Never waits for a wave or a policy.
    pub fn status(&self) -> SessionReport {
        let published = self.verifier.published();
        let wave = self
            .state
            .coordinator()
            .map(WaveCoordinator::status)
            .unwrap_or_default();
        let hooks = HooksStatus {
            config: self.config_status.clone(),
            settings: if self.settings_kept {
                SettingsStatus::kept_on_reload(&self.settings, &self.settings_in_force())
            } else {
                SettingsStatus::of(&self.settings, &self.settings_in_force())
            },
            verification: published.verification.clone(),
            analyzers: published.analyzers.clone(),
            coordinator_failures: wave.failures.iter().map(ToString::to_string).collect(),
            state_warnings: published.state_warnings.clone(),
        };
        let guidance = match &hooks.config.health {
            ConfigHealth::Absent { root } => Some(format!(
                "pi-native-hooks is inactive: there is no config root at {}. {INIT_ADVICE}",
                root.display()
            )),
            ConfigHealth::Untrusted { error, .. } => Some(format!(
                "pi-native-hooks is inactive: the config root is not trusted ({error}). Fix it, then /reload."
            )),
            ConfigHealth::Active { .. } | ConfigHealth::Builtin => match self.state.idle_reason() {
                Some(reason) => Some(format!("tool waves are not observed: {reason}")),
                None if hooks.config.health == ConfigHealth::Builtin => Some(format!(
                    "no config root at {}: the built-in pack runs (its rules and diagnostic policies; verification is off, since the commands a project requires are its own). {INIT_ADVICE}",
                    self.options.config_root.display()
                )),
                None => None,
            },
        };
        SessionReport {
            active: self.is_active(),
            guidance,
            rule_problems: self.rule_problems.iter().map(ToString::to_string).collect(),
            policy_failures: published.policy_failures.clone(),
            hooks,
            totals: wave.totals,
            stores: wave.stores,
            watcher: self
                .state
                .coordinator()
                .and_then(WaveCoordinator::watch_status),
            analyzer_lines: self
                .analyzer_status
                .iter()
                .flat_map(|source| source.lines())
                .collect(),
        }
    }
}

/// How to create the config root, true in Pi and in a terminal alike.
const INIT_ADVICE: &str = "Run /hooks-init in Pi (or `pi-native-hooks init` in a terminal) to create it with the built-in rules and diagnostic policies and a verification policy for this project, then /reload.";

/// What the footer shows, gathered without building the whole status (it is refreshed after
/// every wave).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FooterSummary {
    /// True when a config root or the built-in pack was loaded.
    pub active: bool,
    /// Which configuration is in use (the built-in pack or a root), or why none is.
    pub config: ConfigHealth,
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
    /// The footer's data, as the last gate operation left it. Never waits for a wave or a policy.
    pub fn footer_summary(&self) -> FooterSummary {
        let published = self.verifier.published();
        let totals = self
            .state
            .coordinator()
            .map(WaveCoordinator::totals)
            .unwrap_or_default();
        FooterSummary {
            active: self.is_active(),
            config: self.config_status.health.clone(),
            delivered: totals.delivered,
            passed: published.passed,
            pending: published.pending,
            waived: published.waived,
            exhausted: published.exhausted,
            degraded: !self.rule_problems.is_empty()
                || !self.settings.problems.is_empty()
                || !self.registry.problems().is_empty()
                || published.analyzers.iter().any(|a| a.last_error.is_some())
                || !published.policy_failures.is_empty()
                || totals.coordinator_failures > 0
                || self.analyzer_status.iter().any(|source| source.degraded()),
        }
    }
}

/// The footer line (`ctx.ui.setStatus("pi-native-hooks", …)`): the configuration in use (`built-in
/// pack` or the root's path), diagnostics delivered, the verification summary, and a degraded
/// marker. Escaped: the root's path is the user's.
pub fn footer(summary: &FooterSummary) -> String {
    let config = match &summary.config {
        ConfigHealth::Builtin => "built-in pack".to_owned(),
        ConfigHealth::Active { root } => escape(&root.display().to_string()).into_owned(),
        ConfigHealth::Absent { .. } => {
            return "hooks: inactive, no config (/hooks-init)".to_owned();
        }
        ConfigHealth::Untrusted { .. } => {
            return "hooks: inactive, config root not trusted (/hooks-doctor)".to_owned();
        }
    };
    if !summary.active {
        return format!("hooks: {config} · inactive (/hooks-status)");
    }
    let mut line = format!("hooks: {config} · {} diagnostics", summary.delivered);
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

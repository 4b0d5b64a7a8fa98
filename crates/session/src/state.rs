//! Owns what a session is: the [`Session`] itself, whether it observes tool waves
//! ([`SessionState`]) and why it may not ([`IdleReason`], [`SessionSetupError`]). The files
//! beside this one add the session's operations; this file depends on none of them but the
//! gate side ([`Verifier`]) and the options.

use super::options::SessionOptions;
use crate::gate::worker::Verifier;
use crate::status::ConfigStatus;
use pi_native_hooks_analysis::{AnalyzerError, RuleError, StatusSource};
use pi_native_hooks_config::settings::{LoadedSettings, Settings};
use pi_native_hooks_policy::PolicyRegistry;
use pi_native_hooks_wave::{AnalysisSetupError, WaveConfig, WaveCoordinator, WaveError};
use pi_native_hooks_workspace::WorkspaceError;
use std::path::PathBuf;
use std::sync::Arc;

/// One Pi session. Create it with [`Session::open`] inside a tokio runtime.
pub struct Session {
    pub(super) options: SessionOptions,
    /// The settings file as loaded (the overrides not applied). After a `/reload` whose
    /// settings file failed as a whole, its values are those in force before the reload.
    pub(super) settings: LoadedSettings,
    /// True when `/reload` found the settings file unusable and kept the previous values.
    pub(super) settings_kept: bool,
    /// The wave settings in force: the settings file's, with the overrides applied.
    pub(super) wave: WaveConfig,
    pub(super) registry: PolicyRegistry,
    /// The status of the loaded configuration (it does not change during a session).
    pub(super) config_status: ConfigStatus,
    pub(super) rule_problems: Vec<RuleError>,
    /// Whether tool waves are observed.
    pub(super) state: SessionState,
    /// What the analyzers show of themselves in the status (none when no coordinator runs).
    pub(super) analyzer_status: Vec<Arc<dyn StatusSource>>,
    pub(super) verifier: Arc<Verifier>,
    /// Consecutive settles that sent late diagnostics alone (no verification continuation),
    /// bounded by the continuation cap; reset when a settle lets the agent stop.
    pub(super) late_continuations: std::sync::atomic::AtomicU32,
}

/// Whether a session observes tool waves: one state, never a coordinator and a reason at once.
pub(super) enum SessionState {
    /// The wave coordinator runs.
    Running(WaveCoordinator),
    /// Nothing is observed, for this reason.
    Idle(IdleReason),
}

/// Why a session observes no tool waves.
#[derive(Debug, thiserror::Error)]
pub enum IdleReason {
    /// No config root was loaded (absent or untrusted; the status says which).
    #[error("no config root was loaded")]
    NoConfigRoot,
    /// The analyzer, the analysis or the workspace could not be set up.
    #[error(transparent)]
    SetupFailed(#[from] SessionSetupError),
}

impl SessionState {
    /// The wave coordinator, when it runs.
    pub(super) fn coordinator(&self) -> Option<&WaveCoordinator> {
        match self {
            SessionState::Running(coordinator) => Some(coordinator),
            SessionState::Idle(_) => None,
        }
    }

    /// Why nothing is observed, when nothing is.
    pub(super) fn idle_reason(&self) -> Option<&IdleReason> {
        match self {
            SessionState::Running(_) => None,
            SessionState::Idle(reason) => Some(reason),
        }
    }
}

impl Session {
    /// The session's working directory.
    pub fn cwd(&self) -> &PathBuf {
        &self.options.cwd
    }

    /// The config root this session loaded (or found absent).
    pub fn config_root(&self) -> &PathBuf {
        &self.options.config_root
    }

    /// The settings file as loaded: where it came from, the values in force (before the test
    /// overrides) and its problems. A tool result's exit code is read where they say its tool
    /// reports it ([`Session::tool_result_of`]).
    pub fn settings(&self) -> &LoadedSettings {
        &self.settings
    }

    /// The settings in force: the settings file's values (or defaults) with the test overrides
    /// applied.
    pub fn settings_in_force(&self) -> Settings {
        let mut settings = self.settings.settings.clone();
        settings.wave_timeout = self.wave.timeout;
        if let Some(cap) = self.options.overrides.continuation_cap {
            settings.continuation_cap = cap;
        }
        settings
    }

    /// True when a config root was loaded and the hooks run.
    pub fn is_active(&self) -> bool {
        self.registry.is_active()
    }
}

/// Why a session with a loaded config root could not start observing waves.
#[derive(Debug, thiserror::Error)]
pub enum SessionSetupError {
    /// The analyzer's worker threads could not be started.
    #[error(transparent)]
    Analyzer(#[from] AnalyzerError),
    /// The analyzers and the policies do not fit together.
    #[error(transparent)]
    Analysis(#[from] AnalysisSetupError),
    /// The working directory's repository could not be opened.
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
    /// The coordinator could not be created.
    #[error(transparent)]
    Coordinator(#[from] WaveError),
}

//! Owns loading a session: the config root's rules, policies and settings (each file
//! trust-checked, each failure kept for the status), the wave coordinator over the analyzers the
//! composition root puts together, and the gate, set up from the settings (with the test
//! overrides applied). An absent root makes a session over the built-in pack, chosen and loaded
//! exactly as `check` without `--config` does: its rules and diagnostic policies run, and since
//! the pack holds no verification policy the gate requires nothing. A root that exists but fails
//! its trust checks makes an inactive session that observes nothing.

use super::options::SessionOptions;
use super::state::{IdleReason, Session, SessionSetupError, SessionState};
use crate::gate::worker::{GateState, Verifier};
use crate::status::ConfigStatus;
use pi_native_hooks_analysis::StatusSource;
use pi_native_hooks_compose::{LoadedConfig, WaveAnalyzers};
use pi_native_hooks_config::ConfigSource;
use pi_native_hooks_config::settings::Settings;
use pi_native_hooks_verification::{GateConfig, VerificationGate};
use pi_native_hooks_wave::{
    AnalysisCoordinator, GitWorkspace, SnapshotSource, WaveConfig, WaveCoordinator,
};
use std::sync::Arc;
use tokio::runtime::Handle;

/// Threads for one wave's analysis: enough to use both cores of a small machine.
const ANALYSIS_THREADS: usize = 2;

impl Session {
    /// Loads `options.config_root` (or the built-in pack when nothing is there) and starts the session's coordinator and the task that feeds
    /// it finished waves to the gate. Must run inside a tokio runtime. Never fails: whatever
    /// cannot be set up is reported by [`Session::status`] and the session runs without it (a
    /// tool result is never blocked by the hooks).
    pub fn open(options: SessionOptions) -> Self {
        let source = ConfigSource::root_or_builtin(options.config_root.clone());
        let config = LoadedConfig::load(&source);
        let gate = VerificationGate::new(
            gate_config(&options, &config.settings.settings),
            &config.registry,
        );
        Self::assemble(options, config, GateState::new(gate))
    }

    /// A session over an already loaded `config` whose gate side starts from `state`: a fresh
    /// gate when opening, the previous session's gate when reloading.
    pub(super) fn assemble(
        options: SessionOptions,
        config: LoadedConfig,
        state: GateState,
    ) -> Self {
        let mut wave = WaveConfig::from_settings(&config.settings.settings);
        if let Some(timeout) = options.overrides.wave_timeout {
            wave.timeout = timeout;
        }
        // The rules of a root that is absent or not trusted are not reported: the session is
        // inactive and its status says why.
        let mut analyzer_status = Vec::new();
        let session_state = if config.registry.is_active() {
            match start_coordinator(&options, &wave, &config) {
                Ok((coordinator, status)) => {
                    analyzer_status = status;
                    SessionState::Running(coordinator)
                }
                Err(error) => SessionState::Idle(IdleReason::SetupFailed(error)),
            }
        } else {
            SessionState::Idle(IdleReason::NoConfigRoot)
        };
        let rule_problems = if config.registry.is_active() {
            config.rule_problems
        } else {
            Vec::new()
        };
        let registry = config.registry;
        let settings = config.settings;
        let verifier = Verifier::start(
            options.cwd.clone(),
            Arc::clone(&options.clock),
            session_state.coordinator().cloned(),
            state,
        );
        Session {
            config_status: ConfigStatus::of(&registry),
            settings,
            settings_kept: false,
            wave,
            registry,
            rule_problems,
            state: session_state,
            analyzer_status,
            verifier,
            late_continuations: std::sync::atomic::AtomicU32::new(0),
            options,
        }
    }
}

/// The gate's settings from `settings` with the test overrides applied: the continuation cap and
/// the shell tools (at open, and again at `/reload`).
pub(super) fn gate_config(options: &SessionOptions, settings: &Settings) -> GateConfig {
    GateConfig {
        cwd: options.cwd.clone(),
        continuation_cap: options
            .overrides
            .continuation_cap
            .unwrap_or(settings.continuation_cap),
        shell_tools: settings.shell_tool_names(),
    }
}

/// The coordinator over the analyzers the config's waves run (the composition root decides
/// which), with where the status reads what each shows of itself.
fn start_coordinator(
    options: &SessionOptions,
    wave: &WaveConfig,
    config: &LoadedConfig,
) -> Result<(WaveCoordinator, Vec<Arc<dyn StatusSource>>), SessionSetupError> {
    let workspace = GitWorkspace::probe(&options.cwd)?;
    let root = workspace.git_root().unwrap_or(options.cwd.as_path());
    let WaveAnalyzers { analyzers, status } = config.wave_analyzers(
        root,
        ANALYSIS_THREADS,
        Handle::current(),
        options.tsserver_bridge.clone(),
    )?;
    let analysis = AnalysisCoordinator::new(analyzers, Arc::new(config.registry.clone()))?;
    Ok((
        WaveCoordinator::new(wave.clone(), workspace, analysis)?,
        status,
    ))
}

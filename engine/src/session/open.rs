//! Owns loading a session: the config root's rules and policies (each file trust-checked, each
//! failure kept for the status), the ast-grep analyzer, the wave coordinator and the gate. An
//! absent root makes an inactive session that observes nothing.

use super::options::SessionOptions;
use super::verify::Verifier;
use super::{GateState, IdleReason, Session, SessionState};
use crate::analysis::{Analyzer, AnalyzerError, RuleError, ScanLimits, rules::load_source};
use crate::config::ConfigSource;
use crate::policy::PolicyRegistry;
use crate::status::ConfigStatus;
use crate::verification::{GateConfig, VerificationGate};
use crate::wave::{
    AnalysisCoordinator, AnalysisSetupError, GitWorkspace, WaveAnalyzer, WaveCoordinator, WaveError,
};
use crate::workspace::WorkspaceError;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Threads for one wave's analysis: enough to use both cores of a small machine.
const ANALYSIS_THREADS: usize = 2;

impl Session {
    /// Loads `options.config_root` and starts the session's coordinator and the task that feeds
    /// it finished waves to the gate. Must run inside a tokio runtime. Never fails: whatever
    /// cannot be set up is reported by [`Session::status`] and the session runs without it (a
    /// tool result is never blocked by the hooks).
    pub fn open(options: SessionOptions) -> Self {
        let registry = PolicyRegistry::load(&options.config_root);
        let gate = VerificationGate::new(
            GateConfig {
                cwd: options.cwd.clone(),
                continuation_cap: options.continuation_cap,
            },
            &registry,
        );
        let mut rule_problems = Vec::new();
        let session_state = if registry.is_active() {
            match start_coordinator(&options, &registry, &mut rule_problems) {
                Ok(coordinator) => SessionState::Running(coordinator),
                Err(error) => SessionState::Idle(IdleReason::SetupFailed(error)),
            }
        } else {
            SessionState::Idle(IdleReason::NoConfigRoot)
        };
        let state = GateState {
            gate,
            entries: Vec::new(),
            state_warnings: Vec::new(),
            analyzers: BTreeMap::new(),
            policy_failures: Vec::new(),
        };
        let verifier = Verifier::start(
            options.cwd.clone(),
            Arc::clone(&options.clock),
            session_state.coordinator().cloned(),
            state,
        );
        Session {
            config_status: ConfigStatus::of(&registry),
            registry,
            rule_problems,
            state: session_state,
            verifier,
            options,
        }
    }
}

fn start_coordinator(
    options: &SessionOptions,
    registry: &PolicyRegistry,
    rule_problems: &mut Vec<RuleError>,
) -> Result<WaveCoordinator, SessionSetupError> {
    let source = ConfigSource::Root(options.config_root.clone());
    let (rules, problems) = load_source(&source);
    *rule_problems = problems;
    let analyzer = Analyzer::new(
        source.analyzer_key(),
        rules,
        ScanLimits::default(),
        ANALYSIS_THREADS,
    )?;
    let analyzers: Vec<Box<dyn WaveAnalyzer>> = vec![Box::new(analyzer)];
    let analysis = AnalysisCoordinator::new(analyzers, Arc::new(registry.clone()))?;
    let workspace = GitWorkspace::probe(&options.cwd)?;
    Ok(WaveCoordinator::new(
        options.wave.clone(),
        workspace,
        analysis,
    )?)
}

/// Why a session's wave coordinator could not be set up (the session then runs idle and says
/// why in its status).
#[derive(Debug, thiserror::Error)]
pub enum SessionSetupError {
    /// The ast-grep analyzer did not build.
    #[error(transparent)]
    Analyzer(#[from] AnalyzerError),
    /// The analysis coordinator rejected its analyzers or policies.
    #[error(transparent)]
    Analysis(#[from] AnalysisSetupError),
    /// The session's directory could not be read as a workspace.
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
    /// The wave coordinator did not start.
    #[error(transparent)]
    Coordinator(#[from] WaveError),
}

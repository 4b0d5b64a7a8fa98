//! Owns loading a session: the config root's rules and policies (each file trust-checked, each
//! failure kept for the status), the ast-grep analyzer, the wave coordinator and the gate. An
//! absent root makes an inactive session that observes nothing.

use super::options::SessionOptions;
use super::verify::Verifier;
use super::{GateState, Session};
use crate::analysis::{Analyzer, RuleError, ScanLimits, rules::load_source};
use crate::config::ConfigSource;
use crate::policy::PolicyRegistry;
use crate::status::ConfigStatus;
use crate::verification::{GateConfig, VerificationGate};
use crate::wave::{AnalysisCoordinator, GitWorkspace, WaveAnalyzer, WaveCoordinator};
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
        let (coordinator, idle_reason) = if registry.is_active() {
            match start_coordinator(&options, &registry, &mut rule_problems) {
                Ok(coordinator) => (Some(coordinator), None),
                Err(reason) => (None, Some(reason)),
            }
        } else {
            (None, Some("no config root was loaded".to_owned()))
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
            coordinator.clone(),
            state,
        );
        Session {
            config_status: ConfigStatus::of(&registry),
            registry,
            rule_problems,
            idle_reason,
            coordinator,
            verifier,
            options,
        }
    }
}

fn start_coordinator(
    options: &SessionOptions,
    registry: &PolicyRegistry,
    rule_problems: &mut Vec<RuleError>,
) -> Result<WaveCoordinator, String> {
    let source = ConfigSource::Root(options.config_root.clone());
    let (rules, problems) = load_source(&source);
    *rule_problems = problems;
    let analyzer = Analyzer::new(
        source.analyzer_key(),
        rules,
        ScanLimits::default(),
        ANALYSIS_THREADS,
    )
    .map_err(|error| error.to_string())?;
    let analyzers: Vec<Box<dyn WaveAnalyzer>> = vec![Box::new(analyzer)];
    let analysis = AnalysisCoordinator::new(analyzers, Arc::new(registry.clone()))
        .map_err(|error| error.to_string())?;
    let workspace = GitWorkspace::probe(&options.cwd).map_err(|error| error.to_string())?;
    WaveCoordinator::new(options.wave.clone(), workspace, analysis)
        .map_err(|error| error.to_string())
}

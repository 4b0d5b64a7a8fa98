//! Owns loading a session: the config root's rules and policies (each file trust-checked, each
//! failure kept for the status), the ast-grep analyzer, the wave coordinator and the gate. An
//! absent root makes an inactive session that observes nothing.

use super::options::SessionOptions;
use super::{GateState, Session};
use crate::analysis::{Analyzer, ScanLimits, rules::load_source};
use crate::config::ConfigSource;
use crate::policy::PolicyRegistry;
use crate::verification::{GateConfig, VerificationGate};
use crate::wave::{AnalysisCoordinator, GitWorkspace, WaveAnalyzer, WaveCoordinator};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// Threads for one wave's analysis: enough to use both cores of a small machine.
const ANALYSIS_THREADS: usize = 2;

impl Session {
    /// Loads `options.config_root` and starts the session's coordinator. Must run inside a tokio
    /// runtime. Never fails: whatever cannot be set up is reported by [`Session::status`] and
    /// the session runs without it (a tool result is never blocked by the hooks).
    pub fn open(options: SessionOptions) -> Self {
        let registry = PolicyRegistry::load(&options.config_root);
        let gate = VerificationGate::new(
            GateConfig {
                cwd: options.cwd.clone(),
                continuation_cap: options.continuation_cap,
            },
            &registry,
        );
        let mut session = Session {
            registry,
            rule_problems: Vec::new(),
            idle_reason: None,
            coordinator: None,
            gate: Mutex::new(GateState {
                gate,
                entries: Vec::new(),
                state_warnings: Vec::new(),
                analyzers: BTreeMap::new(),
                policy_failures: Vec::new(),
            }),
            options,
        };
        if !session.registry.is_active() {
            session.idle_reason = Some("no config root was loaded".to_owned());
            return session;
        }
        match session.start_coordinator() {
            Ok(coordinator) => session.coordinator = Some(coordinator),
            Err(reason) => session.idle_reason = Some(reason),
        }
        session
    }

    fn start_coordinator(&mut self) -> Result<WaveCoordinator, String> {
        let source = ConfigSource::Root(self.options.config_root.clone());
        let (rules, problems) = load_source(&source);
        self.rule_problems = problems;
        let analyzer = Analyzer::new(
            source.analyzer_key(),
            rules,
            ScanLimits::default(),
            ANALYSIS_THREADS,
        )
        .map_err(|error| error.to_string())?;
        let analyzers: Vec<Box<dyn WaveAnalyzer>> = vec![Box::new(analyzer)];
        let analysis = AnalysisCoordinator::new(analyzers, Arc::new(self.registry.clone()))
            .map_err(|error| error.to_string())?;
        let workspace =
            GitWorkspace::probe(&self.options.cwd).map_err(|error| error.to_string())?;
        WaveCoordinator::new(self.options.wave.clone(), workspace, analysis)
            .map_err(|error| error.to_string())
    }
}

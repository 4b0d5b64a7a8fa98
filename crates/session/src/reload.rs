//! Owns reloading a session's config root (Pi's `/reload`): the rules and policies are read
//! again, a policy the session had loaded that now fails is marked degraded
//! ([`PolicyRegistry::mark_degraded`](pi_native_hooks_policy::PolicyRegistry::mark_degraded)), and the
//! gate carries its branch state over to the new registry
//! ([`VerificationGate::reload`]): an armed requirement whose policy now fails is kept detached
//! and `unknown` until the policy loads again and the command is rerun, or it is waived. The new
//! session starts its own wave coordinator and analyzer; the old one is shut down.
//!
//! The settings file is read again too: the new coordinator runs with its wave timeout, render
//! limits and read-only tools, the binding reads its shell tools' exit codes from the new session,
//! and the carried-over gate takes its continuation cap and shell tools
//! ([`VerificationGate::reconfigure`]). A settings file that fails to load as a whole (a trust or
//! read failure, invalid TOML) keeps the settings in force before the reload, and the status says
//! so; a single bad key keeps its default, as when the session opened.

use super::open::gate_config;
use super::state::Session;
use crate::gate::worker::GateState;
use pi_native_hooks_compose::LoadedConfig;
use pi_native_hooks_config::ConfigSource;
use pi_native_hooks_config::settings::{LoadedSettings, SettingsProblem};
use pi_native_hooks_verification::{GateConfig, VerificationGate};

/// Why a reload left the session as it was.
#[derive(Debug, thiserror::Error)]
pub enum ReloadError {
    /// Reading the config root panicked or was dropped (a defect).
    #[error("the config root could not be read again: {0}")]
    Load(#[from] pi_native_hooks_base::TaskFailed),
    /// The gate operation that hands the state over panicked (a defect).
    #[error("the verification gate failed while reloading; the session keeps its previous config")]
    Gate,
}

impl Session {
    /// Reads the config root again and returns the session that replaces this one, with this
    /// session's verification state (requirements, evidence, waivers, workspace record and
    /// revision) reconciled with the reloaded policies. Its first state entries (the
    /// reconciliation, when anything armed changed) are queued for
    /// [`Session::take_state_entries`]. This session is shut down once the new one exists; on
    /// an error it keeps running unchanged.
    ///
    /// Waits, at most the wave timeout, for the waves still being processed; past it their
    /// changes are unknown to the gate, as before a settle.
    pub async fn reload(&self) -> Result<Session, ReloadError> {
        let waves = self.wait_for_waves().await;
        let previous = self.registry.clone();
        let previous_settings = self.settings.settings.clone();
        let root = self.options.config_root.clone();
        let (config, settings_kept) = pi_native_hooks_base::run_blocking(move || {
            let mut config = LoadedConfig::load(&ConfigSource::root_or_builtin(root));
            config.registry = previous.mark_degraded(config.registry);
            let kept = failed_as_a_whole(&config.settings);
            if kept {
                config.settings.settings = previous_settings;
            }
            (config, kept)
        })
        .await?;
        let registry = config.registry.clone();
        let gate_config = gate_config(&self.options, &config.settings.settings);
        let handed = self
            .verifier
            .run(move |verifier, state| {
                verifier.feed(state);
                if let Err(unfinished) = waves {
                    verifier.observe_unknown(state, unfinished.to_string());
                }
                state.gate.reload(&registry);
                state
                    .gate
                    .reconfigure(gate_config.continuation_cap, gate_config.shell_tools);
                state.collect_entry();
                let fresh =
                    VerificationGate::new(GateConfig::clone(state.gate.config()), &registry);
                let old = std::mem::replace(state, GateState::new(fresh));
                // Analyzer health and policy run failures describe the old rules and policies.
                (old.gate, old.entries)
            })
            .await;
        let Some((gate, entries)) = handed else {
            return Err(ReloadError::Gate);
        };
        let mut pending = self.verifier.take_entries();
        pending.extend(entries);
        let mut session = Session::assemble(self.options.clone(), config, GateState::new(gate));
        session.settings_kept = settings_kept;
        session.verifier.queue(pending);
        self.shutdown();
        Ok(session)
    }
}

/// True when the settings file could not be used at all (trust or read failure, invalid TOML):
/// its settings would all fall back to their defaults.
fn failed_as_a_whole(settings: &LoadedSettings) -> bool {
    settings.problems.iter().any(|problem| {
        matches!(
            problem,
            SettingsProblem::Trust(_) | SettingsProblem::Syntax { .. }
        )
    })
}

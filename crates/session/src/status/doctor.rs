//! Owns the `/hooks-doctor` text: the doctor's report (`pi_native_hooks_doctor`, the very report
//! `pi-native-hooks doctor` prints) for the session's config root and working directory, read
//! from disk on the blocking pool, then only what the running session knows: which config it
//! runs when that is no longer what the disk holds, why tool waves are not observed, each
//! analyzer's runs and health with the files its last run could not analyze, the policies a
//! `/reload` degraded, rule problems, policy failures and coordinator failures. Every line is
//! escaped.

use crate::state::Session;
use crate::status::ConfigHealth;
use crate::status::render::{put, render_not_analyzed};
use pi_native_hooks_base::escape_lines;
use pi_native_hooks_doctor::doctor;

impl Session {
    /// The `/hooks-doctor` text: the doctor's report on the config root (trust checks, rule
    /// files, policies, settings), the analyzers and the projects for the session's working
    /// directory, read again from disk on the blocking pool, then what is live: each analyzer's
    /// health, the coordinator's failures and the rest (see the module doc).
    pub async fn doctor_text(&self) -> String {
        let root = self.options.config_root.clone();
        let dir = self.options.cwd.clone();
        let bridge = self.options.tsserver_bridge.clone();
        let report = pi_native_hooks_base::run_blocking(move || doctor(&root, &dir, bridge)).await;
        let mut out = match &report {
            Ok(report) => escape_lines(&report.to_string()),
            Err(error) => {
                escape_lines(&format!("the config root could not be examined: {error}\n"))
            }
        };
        // The session keeps the config it opened with until `/reload`, whatever the disk holds
        // now.
        let runs_builtin = self.config_status.health == ConfigHealth::Builtin;
        if let Ok(report) = &report
            && report.builtin_pack != runs_builtin
        {
            let runs = if runs_builtin {
                "the built-in pack (no config root existed when it opened)"
            } else {
                "the config root as it was when it opened"
            };
            put(
                &mut out,
                format_args!("in use by this session until /reload: {runs}"),
            );
        }
        let status = self.status();
        if let Some(reason) = self.state.idle_reason() {
            put(
                &mut out,
                format_args!("tool waves: not observed ({reason})"),
            );
        }
        for analyzer in &status.hooks.analyzers {
            let health = analyzer.last_error.as_deref().unwrap_or("ok");
            put(
                &mut out,
                format_args!(
                    "analyzer {}: {} runs, {health}",
                    analyzer.key, analyzer.runs
                ),
            );
            render_not_analyzed(&mut out, &analyzer.not_analyzed);
        }
        for error in &status.hooks.config.load_errors {
            if error.degraded_from.is_some() {
                put(
                    &mut out,
                    format_args!(
                        "degraded since the last /reload (its checks stay unknown until it loads): {}",
                        error.message
                    ),
                );
            }
        }
        for problem in &status.rule_problems {
            put(&mut out, format_args!("rule problem: {problem}"));
        }
        for failure in &status.policy_failures {
            put(&mut out, format_args!("policy failure: {failure}"));
        }
        for failure in &status.hooks.coordinator_failures {
            put(&mut out, format_args!("coordinator failure: {failure}"));
        }
        out
    }
}

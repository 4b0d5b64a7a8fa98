//! The one composition root of a configuration: the rules (with the files they came from), the
//! policy registry, the settings and the analyzer over them, loaded from one [`ConfigSource`]. A session, every
//! CLI command, the doctor and the benchmarks load through [`LoadedConfig::load`], so they see the
//! same rules, the same policies and the same problems; a session's waves run the analyzers
//! [`LoadedConfig::wave_analyzers`] puts together (`analyzers`).
//!
//! It sits right of `analysis`, `typescript` and `policy` in the data flow (it puts them
//! together), which is why it is not a part of `config`, the module all of them read from.

// What is not re-exported from this root is `pub(crate)`: the curated list below is the API.
#![warn(unreachable_pub)]

mod analyzers;

pub use analyzers::WaveAnalyzers;
// The type the composition root takes to serve a TypeScript before 7, for whoever sets it up.
pub use pi_native_hooks_typescript::TsserverBridge;

use pi_native_hooks_analysis::{Analyzer, AnalyzerError, RuleError, ScanLimits};
use pi_native_hooks_analysis::{RuleSet, load_rules};
use pi_native_hooks_config::settings::{LoadedSettings, SettingsOrigin, load_settings_at};
use pi_native_hooks_config::{ConfigFile, ConfigSource};
use pi_native_hooks_policy::PolicyRegistry;
use std::sync::Arc;

// The setting's default and upper bound are the analyzer's own (the config module sits left of
// the analysis in the data flow, so it keeps its own copy).
const _: () = {
    assert!(
        pi_native_hooks_config::settings::DEFAULT_TREE_CACHE_BYTES
            == pi_native_hooks_analysis::DEFAULT_TREE_CACHE_BYTES
    );
    assert!(
        pi_native_hooks_config::settings::TREE_CACHE_BYTES_BOUNDS.1
            == pi_native_hooks_analysis::MAX_TREE_CACHE_BYTES.cast_signed()
    );
};

/// Everything one config source provides, with every problem met while loading it.
pub struct LoadedConfig {
    /// Where it came from.
    pub source: ConfigSource,
    /// Every rule that compiled.
    pub rules: Arc<RuleSet>,
    /// The rule files, then the utility files, that were read (the doctor's digest covers them).
    pub rule_files: Vec<ConfigFile>,
    /// Every rule file, directory or rule that did not load, in discovery order.
    pub rule_problems: Vec<RuleError>,
    /// The policies; its own problems are [`PolicyRegistry::problems`].
    pub registry: PolicyRegistry,
    /// The settings (`settings.toml`), with their problems; the built-in pack has the defaults.
    pub settings: LoadedSettings,
}

impl LoadedConfig {
    /// Reads and compiles the rules and the policies of `source`. Never fails: what does not load
    /// is kept in [`rule_problems`](Self::rule_problems) and the registry's problems, so a
    /// session can run degraded while `check` refuses to run.
    pub fn load(source: &ConfigSource) -> Self {
        let registry = match source {
            ConfigSource::BuiltIn => PolicyRegistry::builtin(),
            ConfigSource::Root(dir) => PolicyRegistry::load(dir),
        };
        let rules = load_rules(source);
        let settings = match source {
            ConfigSource::BuiltIn => LoadedSettings::builtin(),
            ConfigSource::Root(dir) => load_settings_at(dir).unwrap_or_else(|| LoadedSettings {
                origin: SettingsOrigin::Absent(
                    dir.join(pi_native_hooks_config::settings::SETTINGS_FILE),
                ),
                ..LoadedSettings::builtin()
            }),
        };
        Self {
            source: source.clone(),
            rules: rules.rules,
            rule_files: rules.files,
            rule_problems: rules.problems,
            registry,
            settings,
        }
    }

    /// An analyzer over the rules, under the analyzer key of the source, with the default limits,
    /// `threads` worker threads and the held-tree budget of the settings
    /// (`analysis.tree_cache_bytes`).
    pub fn analyzer(&self, threads: usize) -> Result<Analyzer, AnalyzerError> {
        Ok(Analyzer::new(
            self.source.analyzer_key(),
            Arc::clone(&self.rules),
            ScanLimits::default(),
            threads,
        )?
        .with_tree_cache_bytes(self.settings.settings.tree_cache_bytes))
    }
}

//! Owns every bound of the TypeScript analyzer, with its defaults and the ones the settings
//! choose.

use pi_native_hooks_analysis::ScanLimits;
use pi_native_hooks_config::settings::TypeScriptSettings;
use std::time::Duration;

/// Every bound of the analyzer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TypeScriptLimits {
    /// How long a wave waits for the type check.
    pub wait: Duration,
    /// Servers running at once.
    pub max_servers: usize,
    /// Dependents re-checked per project per wave.
    pub max_dependents: usize,
    /// A server's resident memory budget, in bytes.
    pub max_server_memory: u64,
    /// How long a server may take to start and answer `initialize`.
    pub start_timeout: Duration,
    /// Bytes a server may send per wave.
    pub max_output_bytes: u64,
    /// The largest file checked, in bytes.
    pub max_file_bytes: u64,
    /// Files read to build one project's import index.
    pub max_index_files: usize,
    /// Findings kept per wave.
    pub max_findings: usize,
    /// Files whose last answer and disk content are remembered; past it the analyzer starts
    /// over, asking and telling again.
    pub max_remembered_files: usize,
}

impl TypeScriptLimits {
    /// The limits the settings choose, with the fixed ones at their defaults.
    pub fn from_settings(settings: &TypeScriptSettings) -> Self {
        Self {
            wait: settings.wait,
            max_servers: settings.max_servers,
            max_dependents: settings.max_dependents,
            max_server_memory: settings.max_server_memory_mib * 1024 * 1024,
            ..Self::default()
        }
    }
}

impl Default for TypeScriptLimits {
    fn default() -> Self {
        let settings = TypeScriptSettings::default();
        Self {
            wait: settings.wait,
            max_servers: settings.max_servers,
            max_dependents: settings.max_dependents,
            max_server_memory: settings.max_server_memory_mib * 1024 * 1024,
            start_timeout: Duration::from_secs(60),
            max_output_bytes: 64 * 1024 * 1024,
            max_file_bytes: ScanLimits::default().max_file_bytes,
            max_index_files: 20_000,
            max_findings: ScanLimits::default().max_findings,
            max_remembered_files: 16_384,
        }
    }
}

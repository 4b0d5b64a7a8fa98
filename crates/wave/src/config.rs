//! Owns the wave coordinator's settings: the timeout that bounds every wait, the tool catalog,
//! the render limits and how much history the status keeps.

use crate::tracker::tools::ToolCatalog;
use pi_native_hooks_config::settings::Settings;
use pi_native_hooks_delivery::RenderLimits;
use std::time::Duration;

/// Settings of a [`WaveCoordinator`](super::WaveCoordinator).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WaveConfig {
    /// The longest any handler waits: a `tool_call` for its baseline snapshot, a `tool_result`
    /// for its wave. On expiry the handler is released unchanged and a coordinator failure is
    /// recorded.
    pub timeout: Duration,
    /// Which tools are read-only or this package's own.
    pub tools: ToolCatalog,
    /// Bounds on the model-facing block.
    pub render: RenderLimits,
    /// Wave reports and failures the status keeps.
    pub history: usize,
}

impl Default for WaveConfig {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(10),
            tools: ToolCatalog::default(),
            render: RenderLimits::default(),
            history: 32,
        }
    }
}

impl WaveConfig {
    /// The coordinator's settings from the settings file: its timeout, its render limits, and
    /// the tools it declares read-only beside the built-in ones.
    pub fn from_settings(settings: &Settings) -> Self {
        let mut tools = ToolCatalog::default();
        tools
            .read_only
            .extend(settings.read_only_tools.iter().cloned());
        Self {
            timeout: settings.wave_timeout,
            tools,
            render: RenderLimits {
                max_tokens: settings.diagnostic_block.max_tokens,
                max_line_chars: settings.diagnostic_block.max_line_chars,
            },
            ..Self::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_settings_give_the_default_config() {
        assert_eq!(
            WaveConfig::from_settings(&Settings::default()),
            WaveConfig::default()
        );
    }

    #[test]
    fn settings_add_read_only_tools_and_set_the_limits() {
        let mut settings = Settings::default();
        settings.read_only_tools.insert("search_docs".to_owned());
        settings.wave_timeout = Duration::from_millis(2_500);
        settings.diagnostic_block.max_tokens = 700;
        let config = WaveConfig::from_settings(&settings);
        assert_eq!(config.timeout, Duration::from_millis(2_500));
        assert_eq!(config.render.max_tokens, 700);
        assert_eq!(config.render.max_line_chars, 400);
        assert!(config.tools.read_only.contains("search_docs"));
        assert!(
            config.tools.read_only.contains("read"),
            "the built-ins stay"
        );
    }
}

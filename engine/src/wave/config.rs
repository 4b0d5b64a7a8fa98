//! Owns the wave coordinator's settings: the timeout that bounds every wait, the tool catalog,
//! the render limits and how much history the status keeps.

use super::tools::ToolCatalog;
use crate::delivery::RenderLimits;
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

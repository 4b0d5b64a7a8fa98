use napi_derive::napi;
use pi_native_hooks_session::ConfigHealth;
use pi_native_hooks_session::{FooterSummary, footer};

/// Where the configuration came from.
#[napi(string_enum = "camelCase")]
pub enum ConfigSource {
    /// The personal config root loaded.
    Active,
    /// The built-in pack is in use.
    Builtin,
    /// The config root does not exist.
    Absent,
    /// The config root failed a trust check; nothing was loaded.
    Untrusted,
}

/// The footer (`ctx.ui.setStatus`): its line and the data behind it.
#[napi(object)]
pub struct Footer {
    /// The line to show.
    pub text: String,
    /// True when a config root or the built-in pack was loaded.
    pub active: bool,
    /// Which configuration is in use: `builtin` (no config root exists) or `active` (the root in
    /// `configRoot`), or why none is (`untrusted`).
    pub config_source: ConfigSource,
    /// The config root in use or refused; absent for the built-in pack.
    pub config_root: Option<String>,
    /// Diagnostics delivered so far.
    pub delivered: f64,
    /// Requirements that passed.
    pub passed: u32,
    /// Armed requirements neither passed nor waived.
    pub pending: u32,
    /// Requirements currently waived.
    pub waived: u32,
    /// The gate stopped forcing.
    pub exhausted: bool,
    /// Something failed to load or run; the line already says so.
    pub degraded: bool,
    /// Why the session stopped (`engine panicked in <method>: <message>`), once a panic stopped
    /// it; the line then ends in `degraded (engine panic in <method>)`.
    pub panic: Option<String>,
}

impl From<FooterSummary> for Footer {
    fn from(summary: FooterSummary) -> Self {
        let (config_source, config_root) = match &summary.config {
            ConfigHealth::Active { root } => (ConfigSource::Active, Some(root)),
            ConfigHealth::Builtin => (ConfigSource::Builtin, None),
            ConfigHealth::Absent { root } => (ConfigSource::Absent, Some(root)),
            ConfigHealth::Untrusted { root, .. } => (ConfigSource::Untrusted, Some(root)),
        };
        Footer {
            text: footer(&summary),
            active: summary.active,
            config_source,
            config_root: config_root.map(|root| root.display().to_string()),
            #[expect(clippy::cast_precision_loss, reason = "a count far below 2^53")]
            delivered: summary.delivered as f64,
            passed: count(summary.passed),
            pending: count(summary.pending),
            waived: count(summary.waived),
            exhausted: summary.exhausted,
            degraded: summary.degraded,
            panic: None,
        }
    }
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

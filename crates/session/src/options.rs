//! Owns how a [`Session`](super::Session) is set up: its working directory, the config root it
//! loads (resolved by the caller: the OS user record in production, a temp dir in tests), the
//! test overrides of the root's settings file and the clock.

use pi_native_hooks_compose::TsserverBridge;
use pi_native_hooks_verification::Timestamp;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Where the session reads the time: every record the gate keeps is stamped with it.
pub type Clock = Arc<dyn Fn() -> Timestamp + Send + Sync>;

/// The system clock, in milliseconds since the Unix epoch.
pub fn system_clock() -> Clock {
    Arc::new(|| {
        let millis = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        Timestamp(millis)
    })
}

/// How a session is set up.
#[derive(Clone)]
pub struct SessionOptions {
    /// Pi's working directory for the session.
    pub cwd: PathBuf,
    /// The config root to load; when it does not exist the session is inactive.
    pub config_root: PathBuf,
    /// Values that replace the settings file's (tests only: production sets none, so only the
    /// config root decides).
    pub overrides: SettingOverrides,
    /// What "now" is for waivers and evidence timestamps; tests pass a fixed one.
    pub clock: Clock,
    /// The host's typescript-language-server, which serves projects with a TypeScript before 7
    /// (none: only one installed beside such a project does).
    pub tsserver_bridge: Option<TsserverBridge>,
}

impl SessionOptions {
    /// Defaults for `cwd` and `config_root`.
    pub fn new(cwd: impl Into<PathBuf>, config_root: impl Into<PathBuf>) -> Self {
        Self {
            cwd: cwd.into(),
            config_root: config_root.into(),
            overrides: SettingOverrides::default(),
            clock: system_clock(),
            tsserver_bridge: None,
        }
    }
}

/// Settings a test sets instead of the settings file's (the binding's test options).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SettingOverrides {
    /// Replaces `verification.continuation_cap`.
    pub continuation_cap: Option<u32>,
    /// Replaces `waves.timeout_ms`.
    pub wave_timeout: Option<Duration>,
}

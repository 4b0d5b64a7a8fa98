use super::{EntryPoint, TsserverBridge};
use napi_derive::napi;

/// How to open a session.
#[napi(object)]
pub struct SessionOptions {
    /// Pi's working directory for the session (`ctx.cwd`).
    pub cwd: String,
    /// The config root to load. Omit it in production: the root is then
    /// `<home>/.config/pi-native-hooks` with `<home>` from the OS user record (never `$HOME`).
    pub config_root: Option<String>,
    /// typescript-language-server for projects with a TypeScript before 7 (omitted: only one
    /// installed beside such a project serves it).
    pub tsserver_bridge: Option<TsserverBridge>,
    /// Tests only: replaces the settings file's `verification.continuation_cap` (default 8).
    pub continuation_cap: Option<u32>,
    /// Tests only: replaces the settings file's `waves.timeout_ms` (default 10,000).
    pub wave_timeout_ms: Option<u32>,
    /// Tests only: this method of the session (or `openSession`) panics inside the addon once its
    /// engine work is done, and so does the session's after a `/reload`.
    pub panic_in: Option<EntryPoint>,
}

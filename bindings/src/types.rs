//! The plain objects that cross the boundary (generated as TypeScript interfaces).

use napi_derive::napi;
use pi_native_hooks::state::StateEntry;

/// How to open a session.
#[napi(object)]
pub struct SessionOptions {
    /// Pi's working directory for the session (`ctx.cwd`).
    pub cwd: String,
    /// The config root to load. Omit it in production: the root is then
    /// `<home>/.config/pi-native-hooks` with `<home>` from the OS user record (never `$HOME`).
    pub config_root: Option<String>,
    /// Consecutive continuations without progress before the gate stops forcing (default 8).
    pub continuation_cap: Option<u32>,
    /// The longest a tool handler waits for its wave, in milliseconds (default 10,000).
    pub wave_timeout_ms: Option<u32>,
}

/// One entry to persist with `pi.appendEntry(customType, data)`.
#[napi(object)]
pub struct PersistedEntry {
    /// The entry's `customType`.
    pub custom_type: String,
    /// The entry's `data`.
    pub data: serde_json::Value,
}

impl From<StateEntry> for PersistedEntry {
    fn from(entry: StateEntry) -> Self {
        Self {
            custom_type: entry.custom_type.to_owned(),
            data: entry.data,
        }
    }
}

/// Converts the engine's entries.
pub(crate) fn entries(entries: Vec<StateEntry>) -> Vec<PersistedEntry> {
    entries.into_iter().map(PersistedEntry::from).collect()
}

/// One `custom` entry of the current branch (`ctx.sessionManager.getBranch()`).
#[napi(object)]
pub struct BranchEntry {
    /// The entry's id.
    pub id: String,
    /// Its `customType`.
    pub custom_type: String,
    /// Its `data`.
    pub data: serde_json::Value,
}

/// What restoring a branch did.
#[napi(object)]
pub struct RestoreResult {
    /// The id of the state entry restored from; absent for a fresh start.
    pub restored_from: Option<String>,
    /// Skipped state entries, to notify the user about.
    pub warnings: Vec<String>,
    /// Entries to append.
    pub entries: Vec<PersistedEntry>,
}

/// What `agent_before_settle` should do.
#[napi(object)]
pub struct SettleResult {
    /// When set, return a `custom_message` of type `pi-native-hooks-verification` with this
    /// content and `continue: true`.
    pub message: Option<String>,
    /// A one-time notification for the user (the gate stopped forcing).
    pub notification: Option<String>,
    /// Entries to append.
    pub entries: Vec<PersistedEntry>,
}

/// What the waiver tool returns.
#[napi(object)]
pub struct WaiverResult {
    /// True when a waiver was recorded.
    pub recorded: bool,
    /// The tool result text.
    pub message: String,
    /// Entries to append.
    pub entries: Vec<PersistedEntry>,
}

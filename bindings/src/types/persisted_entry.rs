use napi_derive::napi;
use pi_native_hooks_session::host::StateEntry;

/// One entry to persist with `pi.appendEntry(customType, data)`.
#[napi(object)]
pub struct PersistedEntry {
    /// The entry's `customType`.
    pub custom_type: String,
    /// The entry's `data` (a versioned JSON record).
    #[napi(ts_type = "unknown")]
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

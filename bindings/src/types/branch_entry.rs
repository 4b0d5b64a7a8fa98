use napi_derive::napi;
use pi_native_hooks_session::host;

/// One `custom` entry of the current branch (`ctx.sessionManager.getBranch()`).
#[napi(object)]
pub struct BranchEntry {
    /// The entry's id.
    pub id: String,
    /// Its `customType`.
    pub custom_type: String,
    /// Its `data`, as Pi stored it.
    #[napi(ts_type = "unknown")]
    pub data: serde_json::Value,
}

impl From<BranchEntry> for host::BranchEntry {
    fn from(entry: BranchEntry) -> Self {
        host::BranchEntry {
            id: entry.id,
            custom_type: entry.custom_type,
            data: entry.data,
        }
    }
}

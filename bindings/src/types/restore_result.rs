use super::{PersistedEntry, entries};
use napi_derive::napi;
use pi_native_hooks_session::RestoreOutcome;

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

impl From<RestoreOutcome> for RestoreResult {
    fn from(outcome: RestoreOutcome) -> Self {
        RestoreResult {
            restored_from: outcome.restored_from,
            warnings: outcome.warnings,
            entries: entries(outcome.entries),
        }
    }
}

use super::{PersistedEntry, entries};
use napi_derive::napi;
use pi_native_hooks_session::SettleOutcome;

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

impl From<SettleOutcome> for SettleResult {
    fn from(outcome: SettleOutcome) -> Self {
        SettleResult {
            message: outcome.message,
            notification: outcome.notification,
            entries: entries(outcome.entries),
        }
    }
}

use super::{PersistedEntry, entries};
use napi_derive::napi;
use pi_native_hooks_session::SettleOutcome;

/// What `agent_before_settle` should do.
#[napi(object)]
pub struct SettleResult {
    /// When set, return a `custom_message` of type `pi-native-hooks-verification` with this
    /// content and `continue: true`.
    pub message: Option<String>,
    /// When set, also return a `custom_message` of type `pi-native-hooks-diagnostics` with this
    /// content (diagnostics that arrived after their wave's tool results) and `continue: true`.
    pub late_findings: Option<String>,
    /// A one-time notification for the user (the gate stopped forcing).
    pub notification: Option<String>,
    /// Entries to append.
    pub entries: Vec<PersistedEntry>,
}

impl From<SettleOutcome> for SettleResult {
    fn from(outcome: SettleOutcome) -> Self {
        SettleResult {
            message: outcome.message,
            late_findings: outcome.late_findings,
            notification: outcome.notification,
            entries: entries(outcome.entries),
        }
    }
}

use super::{PersistedEntry, entries};
use napi_derive::napi;
use pi_native_hooks_session::WaiverOutcome;

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

impl From<WaiverOutcome> for WaiverResult {
    fn from(outcome: WaiverOutcome) -> Self {
        WaiverResult {
            recorded: outcome.waiver.is_some(),
            message: outcome.message,
            entries: entries(outcome.entries),
        }
    }
}

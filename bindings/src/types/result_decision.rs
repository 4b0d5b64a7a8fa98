use napi_derive::napi;
use pi_native_hooks_session::host;

/// What a `tool_result` handler does with its result. The extension builds Pi's patch from it:
/// the original content plus one text block, with `details`, `structuredContent` and `isError`
/// passed through.
#[napi(object)]
pub struct ResultDecision {
    /// The text block to append; absent to leave the result unchanged.
    pub append: Option<String>,
}

impl From<host::ResultDecision> for ResultDecision {
    fn from(decision: host::ResultDecision) -> Self {
        ResultDecision {
            append: decision.appended().map(str::to_owned),
        }
    }
}

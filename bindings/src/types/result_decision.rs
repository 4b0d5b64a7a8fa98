use napi_derive::napi;
use pi_native_hooks_wave as wave;

/// What a `tool_result` handler does with its result. The extension builds Pi's patch from it:
/// the original content plus one text block, with `details`, `structuredContent` and `isError`
/// passed through.
#[napi(object)]
pub struct ResultDecision {
    /// The text block to append; absent to leave the result unchanged.
    pub append: Option<String>,
}

impl From<wave::ResultDecision> for ResultDecision {
    fn from(decision: wave::ResultDecision) -> Self {
        ResultDecision {
            append: decision.appended().map(str::to_owned),
        }
    }
}

use napi_derive::napi;
use pi_native_hooks_session::host::ToolCallInfo;

/// One tool call: from an assistant message's `toolCall` block (`arguments`), or named by
/// `tool_execution_start` (`args`) or `tool_call` (`input`).
#[napi(object)]
pub struct ToolCall {
    /// The tool call id.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The call's arguments.
    #[napi(ts_type = "Record<string, unknown>")]
    pub input: Option<serde_json::Value>,
}

impl From<ToolCall> for ToolCallInfo {
    fn from(call: ToolCall) -> Self {
        ToolCallInfo::new(call.id, call.name, call.input.unwrap_or_default())
    }
}

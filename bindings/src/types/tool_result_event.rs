use napi_derive::napi;
use pi_native_hooks::wave::{ToolCallInfo, ToolResult};

/// The fields of Pi's `tool_result` event the hooks read (Pi's event object is passed as it is;
/// its content stays in JS, where the patch is built).
#[napi(object)]
pub struct ToolResultEvent {
    /// The call's id.
    pub tool_call_id: String,
    /// The tool's name.
    pub tool_name: String,
    /// The call's arguments.
    #[napi(ts_type = "Record<string, unknown>")]
    pub input: Option<serde_json::Value>,
    /// Whether the tool reported an error.
    pub is_error: bool,
    /// The tool's machine-readable result; `bash` reports its `exit_code` here.
    #[napi(ts_type = "unknown")]
    pub structured_content: Option<serde_json::Value>,
}

impl From<ToolResultEvent> for ToolResult {
    fn from(event: ToolResultEvent) -> Self {
        let exit_code = event
            .structured_content
            .as_ref()
            .and_then(|content| content.get("exit_code"))
            .and_then(serde_json::Value::as_i64);
        ToolResult {
            call: ToolCallInfo::new(
                event.tool_call_id,
                event.tool_name,
                event.input.unwrap_or_default(),
            ),
            is_error: event.is_error,
            exit_code,
        }
    }
}

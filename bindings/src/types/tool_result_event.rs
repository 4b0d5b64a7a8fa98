use napi_derive::napi;
use serde_json::Value;

/// The fields of Pi's `tool_result` event the hooks read (Pi's event object is passed as it is;
/// its content stays in JS, where the patch is built). The engine reads the exit code
/// (`Session::tool_result_of`).
#[napi(object)]
pub struct ToolResultEvent {
    /// The call's id.
    pub tool_call_id: String,
    /// The tool's name.
    pub tool_name: String,
    /// The call's arguments.
    #[napi(ts_type = "Record<string, unknown>")]
    pub input: Option<Value>,
    /// Whether the tool reported an error.
    pub is_error: bool,
    /// The tool's machine-readable result; `bash` reports its `exit_code` here.
    #[napi(ts_type = "unknown")]
    pub structured_content: Option<Value>,
    /// What a tool registered by an extension returns beside its content (a declared shell tool
    /// may report its exit code here).
    #[napi(ts_type = "unknown")]
    pub details: Option<Value>,
    /// The result's content blocks (a declared shell tool may print its exit code in their text).
    #[napi(ts_type = "unknown")]
    pub content: Option<Value>,
}

impl From<ToolResultEvent> for pi_native_hooks_session::ToolResultEvent {
    fn from(event: ToolResultEvent) -> Self {
        Self {
            tool_call_id: event.tool_call_id,
            tool_name: event.tool_name,
            input: event.input.unwrap_or_default(),
            is_error: event.is_error,
            structured_content: event.structured_content,
            details: event.details,
            content: event.content,
        }
    }
}

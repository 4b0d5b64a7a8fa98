use napi_derive::napi;
use pi_native_hooks_config::settings::{ExitCodeSource, ResultPart, Settings};
use pi_native_hooks_wave::{ToolCallInfo, ToolResult};
use serde_json::Value;

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

impl ToolResultEvent {
    /// The engine's view of this result. The exit code is read where the settings say the tool
    /// reports it (`structuredContent.exit_code` for `bash` unless redeclared); a tool that is not
    /// a shell tool keeps reading `structuredContent.exit_code`, which only shell tools' runs use.
    pub fn into_result(self, settings: &Settings) -> ToolResult {
        let source = settings.exit_code_source(&self.tool_name);
        let exit_code = match source {
            Some(ExitCodeSource::Field(field)) => {
                let part = match field.part {
                    ResultPart::StructuredContent => self.structured_content.as_ref(),
                    ResultPart::Details => self.details.as_ref(),
                };
                part.and_then(|part| {
                    field
                        .path
                        .iter()
                        .try_fold(part, |value, key| step(value, key))
                })
                .and_then(Value::as_i64)
            }
            Some(ExitCodeSource::Pattern(pattern)) => self
                .content
                .as_ref()
                .and_then(|content| pattern.exit_code(&text_of(content))),
            None => self
                .structured_content
                .as_ref()
                .and_then(|content| content.get("exit_code"))
                .and_then(Value::as_i64),
        };
        ToolResult {
            call: ToolCallInfo::new(
                self.tool_call_id,
                self.tool_name,
                self.input.unwrap_or_default(),
            ),
            is_error: self.is_error,
            exit_code,
        }
    }
}

/// `value[key]`: an object's member, or an array's element when `key` is an index.
fn step<'v>(value: &'v Value, key: &str) -> Option<&'v Value> {
    match value {
        Value::Object(map) => map.get(key),
        Value::Array(items) => items.get(key.parse::<usize>().ok()?),
        _ => None,
    }
}

/// The text of Pi's content blocks (`{ type: "text", text }`), joined by newlines, as the model
/// reads it; other blocks (images) are left out.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|block| block.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

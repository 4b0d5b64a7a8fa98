//! Owns forwarding Pi's tool events to the wave coordinator, and reading a `tool_result` event's
//! exit code where the settings say its tool reports it. An idle session ignores the events; no
//! event can turn a tool result into an error or hold it longer than the wave timeout.

use super::state::Session;
use pi_native_hooks_config::settings::{ExitCodeSource, ResultPart, Settings};
use pi_native_hooks_wave::{AssistantMessage, ResultDecision, ToolCallInfo, ToolResult};
use serde_json::Value;

impl Session {
    /// Pi's `turn_start`; ignored while the session is idle.
    pub fn turn_start(&self, turn: u64) {
        if let Some(coordinator) = self.state.coordinator() {
            coordinator.turn_start(turn);
        }
    }

    /// Pi's `turn_end`; ignored while the session is idle.
    pub fn turn_end(&self) {
        if let Some(coordinator) = self.state.coordinator() {
            coordinator.turn_end();
        }
    }

    /// An assistant `message_end` with its tool calls in source order.
    pub fn assistant_message(&self, message: AssistantMessage) {
        if let Some(coordinator) = self.state.coordinator() {
            coordinator.assistant_message(message);
        }
    }

    /// Pi's `tool_execution_start`; ignored while the session is idle.
    pub fn tool_execution_start(&self, call: ToolCallInfo) {
        if let Some(coordinator) = self.state.coordinator() {
            coordinator.tool_execution_start(call);
        }
    }

    /// `tool_call`: returns once the wave's baseline snapshot is taken (bounded by the timeout).
    pub async fn tool_call(&self, call: ToolCallInfo) {
        if let Some(coordinator) = self.state.coordinator() {
            coordinator.tool_call(call).await;
        }
    }

    /// `tool_result`: waits for the call's wave (bounded) and returns whether to append a block
    /// to this result ([`ResultDecision::Unchanged`] when the session is idle).
    pub async fn tool_result(&self, result: &ToolResult) -> ResultDecision {
        let Some(coordinator) = self.state.coordinator() else {
            return ResultDecision::Unchanged;
        };
        let decision = coordinator.tool_result(result).await;
        // The wave is recorded before its waiters are released: feed it to the gate now, so the
        // entries it produced are ready for `take_state_entries`.
        self.verifier.feed_finished().await;
        decision
    }

    /// Pi's `tool_execution_end`; ignored while the session is idle.
    pub fn tool_execution_end(&self, id: &str) {
        if let Some(coordinator) = self.state.coordinator() {
            coordinator.tool_execution_end(id);
        }
    }

    /// `session_shutdown`: releases every waiting handler unchanged and ignores later events.
    pub fn shutdown(&self) {
        if let Some(coordinator) = self.state.coordinator() {
            coordinator.shutdown();
        }
    }
}

/// Pi's `tool_result` event as its host reads it: the fields the hooks use, Pi's JSON left as it
/// is (its content stays with the host, which builds the patch).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolResultEvent {
    /// The call's id.
    pub tool_call_id: String,
    /// The tool's name.
    pub tool_name: String,
    /// The call's arguments (`null` when Pi gave none).
    pub input: Value,
    /// Whether the tool reported an error.
    pub is_error: bool,
    /// The tool's machine-readable result; `bash` reports its `exit_code` here.
    pub structured_content: Option<Value>,
    /// What a tool registered by an extension returns beside its content (a declared shell tool
    /// may report its exit code here).
    pub details: Option<Value>,
    /// The result's content blocks (a declared shell tool may print its exit code in their
    /// text).
    pub content: Option<Value>,
}

impl Session {
    /// The engine's view of a `tool_result` event. The exit code is read where this session's
    /// settings say the tool reports it (`structuredContent.exit_code` for `bash` unless
    /// redeclared); a tool that is not a shell tool keeps reading `structuredContent.exit_code`,
    /// which only shell tools' runs use.
    pub fn tool_result_of(&self, event: ToolResultEvent) -> ToolResult {
        tool_result_of(event, &self.settings.settings)
    }
}

fn tool_result_of(event: ToolResultEvent, settings: &Settings) -> ToolResult {
    let exit_code = match settings.exit_code_source(&event.tool_name) {
        Some(ExitCodeSource::Field(field)) => {
            let part = match field.part {
                ResultPart::StructuredContent => event.structured_content.as_ref(),
                ResultPart::Details => event.details.as_ref(),
            };
            part.and_then(|part| {
                field
                    .path
                    .iter()
                    .try_fold(part, |value, key| step(value, key))
            })
            .and_then(Value::as_i64)
        }
        Some(ExitCodeSource::Pattern(pattern)) => event
            .content
            .as_ref()
            .and_then(|content| pattern.exit_code(&text_of(content))),
        None => event
            .structured_content
            .as_ref()
            .and_then(|content| content.get("exit_code"))
            .and_then(Value::as_i64),
    };
    ToolResult {
        call: ToolCallInfo::new(event.tool_call_id, event.tool_name, event.input),
        is_error: event.is_error,
        exit_code,
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

#[cfg(test)]
mod tests {
    use super::*;
    use pi_native_hooks_config::settings::parse_settings;
    use serde_json::json;
    use std::path::Path;

    fn settings(toml: &str) -> Settings {
        let (settings, problems) = parse_settings(Path::new("settings.toml"), toml);
        assert!(problems.is_empty(), "{problems:?}");
        settings
    }

    fn event(tool: &str) -> ToolResultEvent {
        ToolResultEvent {
            tool_call_id: "A".to_owned(),
            tool_name: tool.to_owned(),
            input: json!({ "command": "npm test" }),
            ..ToolResultEvent::default()
        }
    }

    #[test]
    fn bash_reports_its_exit_code_in_structured_content() {
        let result = tool_result_of(
            ToolResultEvent {
                structured_content: Some(json!({ "exit_code": 3 })),
                details: Some(json!({ "exit_code": 0 })),
                ..event("bash")
            },
            &Settings::default(),
        );
        assert_eq!(result.exit_code, Some(3));
        assert_eq!(result.call.id, "A");
    }

    #[test]
    fn a_declared_shell_tool_reports_it_where_the_settings_say() {
        let settings = settings(
            "[[tools.shell]]\nname = \"run_checks\"\nexit_code_field = \"details.exit.0\"\n\n\
             [[tools.shell]]\nname = \"bash\"\nexit_code_pattern = 'exited with code (\\d+)'\n",
        );
        let field = ToolResultEvent {
            structured_content: Some(json!({ "exit_code": 0 })),
            details: Some(json!({ "exit": [7] })),
            ..event("run_checks")
        };
        assert_eq!(tool_result_of(field, &settings).exit_code, Some(7));
        let pattern = ToolResultEvent {
            structured_content: Some(json!({ "exit_code": 0 })),
            content: Some(json!([
                { "type": "image", "data": "exited with code 9" },
                { "type": "text", "text": "ok\nexited with code 2" },
            ])),
            ..event("bash")
        };
        assert_eq!(tool_result_of(pattern, &settings).exit_code, Some(2));
        // Where the declared place holds nothing, there is no exit code: never a guess.
        assert_eq!(
            tool_result_of(event("run_checks"), &settings).exit_code,
            None
        );
    }
}

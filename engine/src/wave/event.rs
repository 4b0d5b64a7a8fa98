//! Owns the events the Pi binding forwards to the wave coordinator and what a `tool_result`
//! handler gets back. Field names follow Pi's event objects (`toolCallId`, `toolName`,
//! `isError`, `structuredContent`) so the binding can pass them through as JSON.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How Pi runs the tool calls of one assistant message.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ExecutionMode {
    /// All calls are prepared in source order, then run concurrently: one wave.
    #[default]
    Parallel,
    /// One call at a time, the next starting after the previous `tool_result` handler returned:
    /// each call is its own wave (waiting for a sibling would deadlock).
    Sequential,
}

/// One tool call as the assistant message lists it, or as a tool event names it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolCallInfo {
    /// The tool call id.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The call's arguments.
    #[serde(default)]
    pub input: Value,
}

impl ToolCallInfo {
    /// A call of `name` with `input`.
    pub fn new(id: impl Into<String>, name: impl Into<String>, input: Value) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            input,
        }
    }
}

/// An assistant message's tool calls, in source order (`message_end`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AssistantMessage {
    /// The calls, in the order the message lists them.
    pub calls: Vec<ToolCallInfo>,
    /// How Pi will run them.
    #[serde(default)]
    pub mode: ExecutionMode,
}

/// A `tool_result` event: the executed call's result, before any patch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultEvent {
    /// The tool call id.
    #[serde(rename = "toolCallId")]
    pub id: String,
    /// The tool's name.
    #[serde(rename = "toolName")]
    pub name: String,
    /// The call's arguments.
    #[serde(default)]
    pub input: Value,
    /// The result's content blocks.
    #[serde(default)]
    pub content: Vec<Value>,
    /// The result's details, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// The result's structured content (e.g. `bash`'s `exit_code`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the tool reported an error.
    #[serde(default)]
    pub is_error: bool,
}

/// What a `tool_result` handler should do with its result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResultDecision {
    /// Return nothing: the result stays as it is.
    Unchanged,
    /// Append this text block to the result's content.
    Append(String),
}

/// The value a `tool_result` handler returns to patch the result: the original content plus the
/// block, with `details`, `structuredContent` and `isError` passed through unchanged (Pi drops
/// `structuredContent` from a patch that omits it).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResultPatch {
    /// The original content blocks followed by one text block.
    pub content: Vec<Value>,
    /// The original details.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// The original structured content.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// The original error flag: a block never turns a result into an error, or back.
    pub is_error: bool,
}

impl ToolResultEvent {
    /// The patch for `decision`, or `None` when the result stays unchanged.
    pub fn patch(&self, decision: &ResultDecision) -> Option<ResultPatch> {
        let ResultDecision::Append(text) = decision else {
            return None;
        };
        let mut content = self.content.clone();
        content.push(serde_json::json!({ "type": "text", "text": text }));
        Some(ResultPatch {
            content,
            details: self.details.clone(),
            structured_content: self.structured_content.clone(),
            is_error: self.is_error,
        })
    }
}

#[cfg(test)]
mod tests {
    //! Pi's `tool_result` event read from JSON, and the patch a handler returns — content plus
    //! one text block, `details`, `structuredContent` and `isError` passed through (Pi drops
    //! `structuredContent` from a patch without it).

    use super::*;
    use serde_json::json;

    #[test]
    fn a_bash_result_keeps_its_structured_content_and_error_flag() {
        let event: ToolResultEvent = serde_json::from_value(json!({
        "type": "tool_result",
        "toolCallId": "D",
        "toolName": "bash",
        "input": { "command": "exit 3" },
        "content": [{ "type": "text", "text": "Command exited with code 3" }],
        "isError": true,
        "structuredContent": { "output": "", "truncated": false, "exit_code": 3, "wall_time_seconds": 0.1 },
        "usage": {}
    }))
    .unwrap();
        assert_eq!(event.patch(&ResultDecision::Unchanged), None);
        let patch = event
            .patch(&ResultDecision::Append("[block]".into()))
            .unwrap();
        assert_eq!(
            serde_json::to_value(&patch).unwrap(),
            json!({
                "content": [
                    { "type": "text", "text": "Command exited with code 3" },
                    { "type": "text", "text": "[block]" }
                ],
                "structuredContent": { "output": "", "truncated": false, "exit_code": 3, "wall_time_seconds": 0.1 },
                "isError": true
            })
        );
    }

    #[test]
    fn an_assistant_message_defaults_to_parallel() {
        let message: AssistantMessage = serde_json::from_value(json!({
            "calls": [{ "id": "A", "name": "write", "input": { "path": "a.ts" } }]
        }))
        .unwrap();
        assert_eq!(message.mode, ExecutionMode::Parallel);
        let sequential: AssistantMessage =
            serde_json::from_value(json!({ "calls": [], "mode": "sequential" })).unwrap();
        assert_eq!(sequential.mode, ExecutionMode::Sequential);
    }
}

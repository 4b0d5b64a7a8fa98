//! Owns the tool events the wave coordinator is driven by and what a `tool_result` handler gets
//! back: engine types, knowing nothing of any agent's wire format. The Node binding converts
//! Pi's event objects into them and builds Pi's result patch from a [`ResultDecision`].

use pi_native_hooks_base::CallId;
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
    pub id: CallId,
    /// The tool's name, as Pi reports it.
    pub name: String,
    /// The call's arguments.
    #[serde(default)]
    pub input: Value,
}

impl ToolCallInfo {
    /// A call of `name` with `input`.
    pub fn new(id: impl Into<CallId>, name: impl Into<String>, input: Value) -> Self {
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

/// A call's result as the coordinator needs it: which call, whether the tool reported an error
/// and, for a command, its exit code. The result's content never reaches the engine: the front
/// end keeps it and appends the block a [`ResultDecision`] asks for.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolResult {
    /// The executed call.
    pub call: ToolCallInfo,
    /// Whether the tool reported an error.
    pub is_error: bool,
    /// The command's exit code, when the tool ran one and reported it.
    pub exit_code: Option<i64>,
}

/// What a `tool_result` handler should do with its result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResultDecision {
    /// Return nothing: the result stays as it is.
    Unchanged,
    /// Append this text block to the result's content, keeping everything else (its error flag
    /// included: a block never turns a result into an error, or back).
    Append(String),
}

impl ResultDecision {
    /// The block to append, if any.
    pub fn appended(&self) -> Option<&str> {
        match self {
            ResultDecision::Unchanged => None,
            ResultDecision::Append(text) => Some(text),
        }
    }
}

#[cfg(test)]
mod tests {
    //! An assistant message read from JSON, and the decision's block.

    use super::*;
    use serde_json::json;

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

    #[test]
    fn only_an_append_decision_has_a_block() {
        assert_eq!(ResultDecision::Unchanged.appended(), None);
        assert_eq!(
            ResultDecision::Append("[block]".into()).appended(),
            Some("[block]")
        );
    }
}

/// The events that drive the coordinator, named as problems report them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolEvent {
    /// The assistant message listed its calls.
    MessageEnd,
    /// A call started running.
    ToolExecutionStart,
    /// A call is about to run (its `tool_call` handler).
    ToolCall,
    /// A call's result reached the result handler.
    ToolResult,
    /// A call finished running.
    ToolExecutionEnd,
}

impl ToolEvent {
    /// The event's name: `message_end`, `tool_execution_start`, `tool_call`, `tool_result`,
    /// `tool_execution_end`.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolEvent::MessageEnd => "message_end",
            ToolEvent::ToolExecutionStart => "tool_execution_start",
            ToolEvent::ToolCall => "tool_call",
            ToolEvent::ToolResult => "tool_result",
            ToolEvent::ToolExecutionEnd => "tool_execution_end",
        }
    }
}

impl std::fmt::Display for ToolEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

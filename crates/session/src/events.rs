//! Owns forwarding Pi's tool events to the wave coordinator. An idle session ignores them; no
//! event can turn a tool result into an error or hold it longer than the wave timeout.

use super::state::Session;
use pi_native_hooks_wave::{AssistantMessage, ResultDecision, ToolCallInfo, ToolResult};

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

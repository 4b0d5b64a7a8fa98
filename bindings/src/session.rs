//! The bound session type: one per Pi session, forwarding events to the engine's `Session` and
//! returning its decisions. Async methods run on napi's tokio runtime, off the JS thread; the
//! synchronous ones only queue events or read the state the engine last published: none of them
//! runs policy code, touches the disk or waits on a lock a policy run may hold.

use crate::error::{invalid_event, js_error};
use crate::types::{
    BranchEntry, PersistedEntry, RestoreResult, SettleResult, WaiverResult, entries,
};
use napi_derive::napi;
use pi_native_hooks::policy::init::InitPlan;
use pi_native_hooks::session::{Session, footer, render_status};
use pi_native_hooks::state;
use pi_native_hooks::text::escape;
use pi_native_hooks::wave::{AssistantMessage, ExecutionMode, ToolCallInfo, ToolResultEvent};
use serde::Deserialize;
use std::sync::Arc;

/// A tool call block of an assistant message, as Pi lists it (`{ type: "toolCall", id, name,
/// arguments }`).
#[derive(Deserialize)]
struct ToolCallBlock {
    id: String,
    name: String,
    #[serde(default)]
    arguments: serde_json::Value,
}

/// The hooks of one Pi session.
#[napi]
pub struct HookSession {
    inner: Arc<Session>,
}

impl HookSession {
    pub(crate) fn new(inner: Arc<Session>) -> Self {
        Self { inner }
    }
}

#[napi]
impl HookSession {
    /// True when a config root was loaded and the hooks run.
    #[napi(getter)]
    pub fn active(&self) -> bool {
        self.inner.is_active()
    }

    /// The config root this session loaded (or found absent).
    #[napi(getter)]
    pub fn config_root(&self) -> String {
        self.inner.config_root().display().to_string()
    }

    /// Restores the verification state of the current branch (`getBranch()`, root first): at
    /// session start, resume, fork and after `/tree` navigation.
    #[napi]
    pub async fn restore(&self, branch: Vec<BranchEntry>) -> RestoreResult {
        let branch: Vec<state::BranchEntry> = branch
            .into_iter()
            .map(|e| state::BranchEntry {
                id: e.id,
                custom_type: e.custom_type,
                data: e.data,
            })
            .collect();
        let outcome = self.inner.restore(&branch).await;
        RestoreResult {
            restored_from: outcome.restored_from,
            warnings: outcome.warnings,
            entries: entries(outcome.entries),
        }
    }

    /// `turn_start`.
    #[napi]
    pub fn turn_start(&self, turn: u32) {
        self.inner.turn_start(u64::from(turn));
    }

    /// `turn_end`.
    #[napi]
    pub fn turn_end(&self) {
        self.inner.turn_end();
    }

    /// An assistant `message_end`: its tool call blocks in source order, and whether Pi runs
    /// them one at a time (`sequential`) or concurrently (`parallel`).
    #[napi]
    pub fn assistant_message(
        &self,
        tool_calls: Vec<serde_json::Value>,
        sequential: bool,
    ) -> napi::Result<()> {
        let calls = tool_calls
            .into_iter()
            .map(|block| {
                serde_json::from_value::<ToolCallBlock>(block)
                    .map(|b| ToolCallInfo::new(b.id, b.name, b.arguments))
                    .map_err(|error| invalid_event("a tool call block", error))
            })
            .collect::<napi::Result<Vec<_>>>()?;
        let mode = if sequential {
            ExecutionMode::Sequential
        } else {
            ExecutionMode::Parallel
        };
        self.inner
            .assistant_message(AssistantMessage { calls, mode });
        Ok(())
    }

    /// `tool_execution_start`.
    #[napi]
    pub fn tool_execution_start(&self, id: String, name: String, input: Option<serde_json::Value>) {
        self.inner
            .tool_execution_start(ToolCallInfo::new(id, name, input.unwrap_or_default()));
    }

    /// `tool_call`: resolves once the wave's baseline snapshot is taken (bounded by the timeout).
    #[napi]
    pub async fn tool_call(&self, id: String, name: String, input: Option<serde_json::Value>) {
        self.inner
            .tool_call(ToolCallInfo::new(id, name, input.unwrap_or_default()))
            .await;
    }

    /// `tool_result`: resolves, once the call's wave is analyzed (bounded), to the patch for the
    /// carrier — `{ content, details, structuredContent, isError }` with the block appended and
    /// everything else unchanged — or `null` to leave the result alone.
    #[napi]
    pub async fn tool_result(
        &self,
        event: serde_json::Value,
    ) -> napi::Result<Option<serde_json::Value>> {
        let event: ToolResultEvent = serde_json::from_value(event)
            .map_err(|error| invalid_event("the tool_result event", error))?;
        let Some(patch) = self.inner.tool_result(&event).await else {
            return Ok(None);
        };
        serde_json::to_value(patch)
            .map(Some)
            .map_err(|error| js_error("PNH_INTERNAL", error))
    }

    /// `tool_execution_end`.
    #[napi]
    pub fn tool_execution_end(&self, id: String) {
        self.inner.tool_execution_end(&id);
    }

    /// `agent_before_settle`: refreshes the workspace and decides whether the agent may stop.
    #[napi]
    pub async fn before_settle(&self) -> SettleResult {
        let outcome = self.inner.before_settle().await;
        SettleResult {
            message: outcome.message,
            notification: outcome.notification,
            entries: entries(outcome.entries),
        }
    }

    /// The waiver tool: waives every outstanding check with `reason`.
    #[napi]
    pub async fn waive(&self, tool_call_id: String, reason: String) -> WaiverResult {
        let outcome = self.inner.waive(&tool_call_id, &reason).await;
        WaiverResult {
            recorded: outcome.waiver.is_some(),
            message: outcome.message,
            entries: entries(outcome.entries),
        }
    }

    /// State entries produced since the last call (e.g. a wave armed a check). Never waits: the
    /// engine feeds waves to the gate in `toolResult` and in the background.
    #[napi]
    pub fn take_state_entries(&self) -> Vec<PersistedEntry> {
        entries(self.inner.take_state_entries())
    }

    /// The status model behind `/hooks-status`, as a plain object (as last published).
    #[napi]
    pub fn status(&self) -> napi::Result<serde_json::Value> {
        serde_json::to_value(self.inner.status()).map_err(|error| js_error("PNH_INTERNAL", error))
    }

    /// The status as `/hooks-status` prints it (as last published, escaped).
    #[napi]
    pub fn status_text(&self) -> String {
        render_status(&self.inner.status())
    }

    /// The compact footer line (as last published).
    #[napi]
    pub fn footer(&self) -> String {
        footer(&self.inner.footer_summary())
    }

    /// The `/hooks-doctor` text: config root, trust checks, policy load results, analyzer
    /// health.
    #[napi]
    pub async fn doctor(&self) -> String {
        self.inner.doctor_text().await
    }

    /// Every entry `/hooks-init` would create under the config root (`would create: …` or
    /// `exists (kept): …`). Async: it looks at the file system.
    #[napi]
    pub async fn init_plan(&self) -> Vec<String> {
        InitPlan::new(self.inner.config_root())
            .describe(true)
            .iter()
            .map(|line| escape(line).into_owned())
            .collect()
    }

    /// Creates the missing entries of the config root (never overwrites; on failure removes what
    /// it created). Resolves to the created paths.
    #[napi]
    pub async fn init_apply(&self) -> napi::Result<Vec<String>> {
        InitPlan::new(self.inner.config_root())
            .apply()
            .map(|created| created.iter().map(|p| p.display().to_string()).collect())
            .map_err(|error| js_error("PNH_INIT_FAILED", error))
    }

    /// `session_shutdown`: releases every waiting handler unchanged and ignores later events.
    #[napi]
    pub fn shutdown(&self) {
        self.inner.shutdown();
    }
}

//! The bound session type: one per Pi session, forwarding events to the engine's `Session` and
//! returning its decisions. Async methods run on napi's tokio runtime, off the JS thread; the
//! synchronous ones only queue events or read the state the engine last published: none of them
//! runs policy code, touches the disk or waits on a lock a policy run may hold.

use crate::types::{
    BindingError, BranchEntry, ErrorCode, ExecutionMode, Footer, InitPlan, PersistedEntry,
    RestoreResult, ResultDecision, SessionStatus, SettleResult, ToolCall, ToolResultEvent,
    WaiverResult, entries,
};
use napi::Either;
use napi_derive::napi;
use pi_native_hooks_session::{Session, render_status};
use pi_native_hooks_verification::init_plan;
use pi_native_hooks_verification::state;
use pi_native_hooks_wave::AssistantMessage;
use std::sync::Arc;

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
        let branch: Vec<state::BranchEntry> = branch.into_iter().map(Into::into).collect();
        self.inner.restore(&branch).await.into()
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

    /// An assistant `message_end`: its tool calls in source order, and how Pi runs them.
    #[napi]
    pub fn assistant_message(&self, calls: Vec<ToolCall>, mode: ExecutionMode) {
        self.inner.assistant_message(AssistantMessage {
            calls: calls.into_iter().map(Into::into).collect(),
            mode: mode.into(),
        });
    }

    /// `tool_execution_start`.
    #[napi]
    pub fn tool_execution_start(&self, call: ToolCall) {
        self.inner.tool_execution_start(call.into());
    }

    /// `tool_call`: resolves once the wave's baseline snapshot is taken (bounded by the timeout).
    #[napi]
    pub async fn tool_call(&self, call: ToolCall) {
        self.inner.tool_call(call.into()).await;
    }

    /// `tool_result`: resolves, once the call's wave is analyzed (bounded), to whether a block is
    /// appended to this result.
    #[napi]
    pub async fn tool_result(&self, event: ToolResultEvent) -> ResultDecision {
        let result = event.into_result(&self.inner.settings().settings);
        self.inner.tool_result(&result).await.into()
    }

    /// `tool_execution_end`.
    #[napi]
    // napi-rs passes JS strings to a method as owned `String`s. `allow`, not `expect`: the
    // `#[napi]` expansion copies the attribute onto code where the lint does not fire.
    #[allow(clippy::needless_pass_by_value)]
    pub fn tool_execution_end(&self, id: String) {
        self.inner.tool_execution_end(&id);
    }

    /// `agent_before_settle`: refreshes the workspace and decides whether the agent may stop.
    #[napi]
    pub async fn before_settle(&self) -> SettleResult {
        self.inner.before_settle().await.into()
    }

    /// The waiver tool: waives every outstanding check with `reason`.
    #[napi]
    pub async fn waive(&self, tool_call_id: String, reason: String) -> WaiverResult {
        self.inner.waive(&tool_call_id, &reason).await.into()
    }

    /// State entries produced since the last call (e.g. a wave armed a check). Never waits: the
    /// engine feeds waves to the gate in `toolResult` and in the background.
    #[napi]
    pub fn take_state_entries(&self) -> Vec<PersistedEntry> {
        entries(self.inner.take_state_entries())
    }

    /// The status model behind `/hooks-status` (as last published).
    #[napi]
    pub fn status(&self) -> SessionStatus {
        self.inner.status().into()
    }

    /// The status as `/hooks-status` prints it (as last published, escaped).
    #[napi]
    pub fn status_text(&self) -> String {
        render_status(&self.inner.status())
    }

    /// The footer (as last published): its line and the data behind it.
    #[napi]
    pub fn footer(&self) -> Footer {
        self.inner.footer_summary().into()
    }

    /// The `/hooks-doctor` text: config root, trust checks, policy load results, analyzer
    /// health.
    #[napi]
    pub async fn doctor(&self) -> String {
        self.inner.doctor_text().await
    }

    /// Every entry `/hooks-init` would create under the config root (the built-in pack and the
    /// verification policy proposed for the session's project), which exist already, and what
    /// was proposed. Async: it looks at the file system.
    #[napi]
    // `async` makes napi-rs run it off Node's main thread and return a Promise. `allow`, not
    // `expect`: the `#[napi]` expansion copies the attribute onto code where the lint does not fire.
    #[allow(clippy::unused_async)]
    pub async fn init_plan(&self) -> InitPlan {
        InitPlan::from(&init_plan(self.inner.config_root(), self.inner.cwd()))
    }

    /// Creates the missing entries of the config root (never overwrites; on failure removes what
    /// it created). Resolves to the created paths, or to a [`BindingError`]
    /// (`PNH_INIT_FAILED`).
    #[napi]
    // `async` makes napi-rs run it off Node's main thread and return a Promise. `allow`, not
    // `expect`: the `#[napi]` expansion copies the attribute onto code where the lint does not fire.
    #[allow(clippy::unused_async)]
    pub async fn init_apply(&self) -> Either<Vec<String>, BindingError> {
        match init_plan(self.inner.config_root(), self.inner.cwd()).apply() {
            Ok(created) => Either::A(created.iter().map(|p| p.display().to_string()).collect()),
            Err(error) => Either::B(BindingError::new(ErrorCode::InitFailed, error)),
        }
    }

    /// `/reload`: reads the config root again and resolves to the session that replaces this one,
    /// carrying its verification state over (a policy that loaded before and fails now is shown
    /// as degraded, and its armed checks stay `unknown`). Its first state entries wait in
    /// `takeStateEntries`. This session is shut down; on a [`BindingError`]
    /// (`PNH_RELOAD_FAILED`) it keeps running unchanged.
    #[napi]
    pub async fn reload(&self) -> Either<HookSession, BindingError> {
        match self.inner.reload().await {
            Ok(session) => Either::A(HookSession::new(Arc::new(session))),
            Err(error) => Either::B(BindingError::new(ErrorCode::ReloadFailed, error)),
        }
    }

    /// `session_shutdown`: releases every waiting handler unchanged and ignores later events.
    #[napi]
    pub fn shutdown(&self) {
        self.inner.shutdown();
    }
}

use napi_derive::napi;
use std::fmt;

/// A function of the addon JS calls: where a panic was caught, and (tests only) where the
/// `panicIn` option makes one happen. Each value is the name JS calls it by.
#[napi(string_enum)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryPoint {
    /// `openSession`.
    #[napi(value = "openSession")]
    OpenSession,
    /// `runCli`.
    #[napi(value = "runCli")]
    RunCli,
    /// `HookSession.restore`.
    #[napi(value = "restore")]
    Restore,
    /// `HookSession.turnStart`.
    #[napi(value = "turnStart")]
    TurnStart,
    /// `HookSession.turnEnd`.
    #[napi(value = "turnEnd")]
    TurnEnd,
    /// `HookSession.assistantMessage`.
    #[napi(value = "assistantMessage")]
    AssistantMessage,
    /// `HookSession.toolExecutionStart`.
    #[napi(value = "toolExecutionStart")]
    ToolExecutionStart,
    /// `HookSession.toolCall`.
    #[napi(value = "toolCall")]
    ToolCall,
    /// `HookSession.toolResult`.
    #[napi(value = "toolResult")]
    ToolResult,
    /// `HookSession.toolExecutionEnd`.
    #[napi(value = "toolExecutionEnd")]
    ToolExecutionEnd,
    /// `HookSession.beforeSettle`.
    #[napi(value = "beforeSettle")]
    BeforeSettle,
    /// `HookSession.waive`.
    #[napi(value = "waive")]
    Waive,
    /// `HookSession.takeStateEntries`.
    #[napi(value = "takeStateEntries")]
    TakeStateEntries,
    /// `HookSession.statusText`.
    #[napi(value = "statusText")]
    StatusText,
    /// `HookSession.footer`.
    #[napi(value = "footer")]
    Footer,
    /// `HookSession.doctor`.
    #[napi(value = "doctor")]
    Doctor,
    /// `HookSession.initPlan`.
    #[napi(value = "initPlan")]
    InitPlan,
    /// `HookSession.initApply`.
    #[napi(value = "initApply")]
    InitApply,
    /// `HookSession.reload`.
    #[napi(value = "reload")]
    Reload,
    /// `HookSession.shutdown`.
    #[napi(value = "shutdown")]
    Shutdown,
}

impl EntryPoint {
    /// The name JS calls it by.
    pub(crate) fn name(self) -> &'static str {
        match self {
            EntryPoint::OpenSession => "openSession",
            EntryPoint::RunCli => "runCli",
            EntryPoint::Restore => "restore",
            EntryPoint::TurnStart => "turnStart",
            EntryPoint::TurnEnd => "turnEnd",
            EntryPoint::AssistantMessage => "assistantMessage",
            EntryPoint::ToolExecutionStart => "toolExecutionStart",
            EntryPoint::ToolCall => "toolCall",
            EntryPoint::ToolResult => "toolResult",
            EntryPoint::ToolExecutionEnd => "toolExecutionEnd",
            EntryPoint::BeforeSettle => "beforeSettle",
            EntryPoint::Waive => "waive",
            EntryPoint::TakeStateEntries => "takeStateEntries",
            EntryPoint::StatusText => "statusText",
            EntryPoint::Footer => "footer",
            EntryPoint::Doctor => "doctor",
            EntryPoint::InitPlan => "initPlan",
            EntryPoint::InitApply => "initApply",
            EntryPoint::Reload => "reload",
            EntryPoint::Shutdown => "shutdown",
        }
    }
}

impl fmt::Display for EntryPoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

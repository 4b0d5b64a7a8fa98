//! The plain objects that cross the boundary, one bound type per file (generated as TypeScript
//! interfaces and string unions, camelCase throughout). Pi's event objects are read here and
//! converted with `From` into the session's types; the engine's answers are converted back into
//! these objects. The status has no object: it crosses as the `/hooks-status` text, since
//! nothing in the extension reads it as data.

mod binding_error;
mod branch_entry;
mod cli_options;
mod entry_point;
mod execution_mode;
mod footer;
mod init_plan;
mod persisted_entry;
mod restore_result;
mod result_decision;
mod session_options;
mod settle_result;
mod tool_call;
mod tool_result_event;
mod tsserver_bridge;
mod waiver_result;

pub(crate) use binding_error::{BindingError, ErrorCode};
pub(crate) use branch_entry::BranchEntry;
pub(crate) use cli_options::CliOptions;
pub(crate) use entry_point::EntryPoint;
pub(crate) use execution_mode::ExecutionMode;
pub(crate) use footer::Footer;
pub(crate) use init_plan::InitPlan;
pub(crate) use persisted_entry::{PersistedEntry, entries};
pub(crate) use restore_result::RestoreResult;
pub(crate) use result_decision::ResultDecision;
pub(crate) use session_options::SessionOptions;
pub(crate) use settle_result::SettleResult;
pub(crate) use tool_call::ToolCall;
pub(crate) use tool_result_event::ToolResultEvent;
pub(crate) use tsserver_bridge::TsserverBridge;
pub(crate) use waiver_result::WaiverResult;

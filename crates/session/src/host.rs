//! The session's host — the Node binding — reaches the engine through this crate alone: besides
//! the session's own types, what it passes in and reads back that the layers below own is
//! re-exported here, so the binding depends on the session (and the command line), not on every
//! engine crate. Plain types only: whatever the binding would compute from them is a session
//! method instead ([`Session::tool_result_of`](crate::Session::tool_result_of),
//! [`Session::init_plan`](crate::Session::init_plan)).

/// Where the personal config root is (from the OS user record): the root a session loads when
/// the host names none.
pub use pi_native_hooks_config::personal_root;
/// The global allocator the host installs, which the policies' memory budgets count with.
pub use pi_native_hooks_policy::CountingAllocator;
/// What `/hooks-init` would create, entry by entry.
pub use pi_native_hooks_policy::{InitContent, InitPlan};
/// The persisted state: entries to append, and the branch's entries to restore from.
pub use pi_native_hooks_verification::state::{BranchEntry, StateEntry};
/// Pi's tool events as the wave coordinator takes them, and its answer to a tool result.
pub use pi_native_hooks_wave::{AssistantMessage, ExecutionMode, ResultDecision, ToolCallInfo};

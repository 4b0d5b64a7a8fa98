use napi_derive::napi;
use pi_native_hooks_session::host;

/// How Pi runs the tool calls of one assistant message.
#[napi(string_enum = "lowercase")]
pub enum ExecutionMode {
    /// Prepared in source order, then run concurrently: one wave.
    Parallel,
    /// One at a time: each call is its own wave.
    Sequential,
}

impl From<ExecutionMode> for host::ExecutionMode {
    fn from(mode: ExecutionMode) -> Self {
        match mode {
            ExecutionMode::Parallel => host::ExecutionMode::Parallel,
            ExecutionMode::Sequential => host::ExecutionMode::Sequential,
        }
    }
}

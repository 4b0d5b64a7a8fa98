use napi_derive::napi;
use pi_native_hooks_wave as wave;

/// How Pi runs the tool calls of one assistant message.
#[napi(string_enum = "lowercase")]
pub enum ExecutionMode {
    /// Prepared in source order, then run concurrently: one wave.
    Parallel,
    /// One at a time: each call is its own wave.
    Sequential,
}

impl From<ExecutionMode> for wave::ExecutionMode {
    fn from(mode: ExecutionMode) -> Self {
        match mode {
            ExecutionMode::Parallel => wave::ExecutionMode::Parallel,
            ExecutionMode::Sequential => wave::ExecutionMode::Sequential,
        }
    }
}

//! The bounds policies run under: the resources of one call ([`SandboxLimits`]) and the size of
//! one failure message ([`bounded`]).

use std::time::Duration;

/// The most bytes of text one failure message carries (a thrown value, a Rhai error, a malformed
/// result's explanation); the rest is cut with a marker. Sessions keep the last failures for the
/// status, so each must stay small.
pub const MAX_MESSAGE_BYTES: usize = 1024;

/// `text` cut to at most `max_bytes` bytes on a character boundary, followed by a marker with the
/// original length when it was cut.
pub(crate) fn bounded(text: &str, max_bytes: usize) -> String {
    if text.len() <= max_bytes {
        return text.to_owned();
    }
    let mut end = max_bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes, truncated)", &text[..end], text.len())
}

/// Resource bounds for one policy call. [`SandboxLimits::default`] is what policies get.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SandboxLimits {
    /// Rhai operations per call.
    pub max_operations: u64,
    /// Nested function calls.
    pub max_call_levels: usize,
    /// Expression nesting at the top level of a script.
    pub max_expr_depth: usize,
    /// Expression nesting inside functions.
    pub max_function_expr_depth: usize,
    /// Bytes of string data in one value (nested strings are summed; in a returned value, map
    /// keys and diagnostic guidance count too).
    pub max_string_size: usize,
    /// Elements in one array (nested arrays are summed).
    pub max_array_size: usize,
    /// Entries in one object map (nested maps are summed).
    pub max_map_size: usize,
    /// Wall-clock time per call.
    pub deadline: Duration,
    /// Lines of `print`/`debug` output kept per call.
    pub max_log_lines: usize,
    /// Bytes kept of one `print`/`debug` line (the rest is cut, with a marker).
    pub max_log_line_bytes: usize,
    /// Bytes of `print`/`debug` output kept per call, over all lines.
    pub max_log_bytes: usize,
    /// Net bytes a call may allocate (enforced when [`budget::CountingAllocator`] is the global
    /// allocator; checked between operations and when the call returns).
    pub memory_budget: usize,
}

impl Default for SandboxLimits {
    fn default() -> Self {
        Self {
            max_operations: 5_000_000,
            max_call_levels: 32,
            max_expr_depth: 64,
            max_function_expr_depth: 32,
            max_string_size: 4 * 1024 * 1024,
            max_array_size: 200_000,
            max_map_size: 100_000,
            deadline: Duration::from_millis(500),
            max_log_lines: 100,
            max_log_line_bytes: 1024,
            max_log_bytes: 16 * 1024,
            memory_budget: 32 * 1024 * 1024,
        }
    }
}

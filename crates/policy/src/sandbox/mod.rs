//! The Rhai sandbox every policy runs in: a raw engine with only pure packages, no modules, no
//! `eval`, no closures that capture (so no reference cycle outlives a call), strict variables,
//! bounded operations, call depth, expression depth and value sizes, a wall-clock deadline checked
//! on every operation, a memory budget per call, cancellation, `print`/`debug` captured in memory
//! with a byte cap, a stack of known size, truncated error messages, and panics contained.

pub mod budget;
pub(crate) mod limits;
pub(crate) mod natives;
pub(crate) mod rhai_api;
pub(crate) mod rhai_error;
pub(crate) mod view;

use crate::run::diagnostic::DiagnosticValue;
pub(crate) use limits::SandboxLimits;
use limits::{MAX_MESSAGE_BYTES, bounded};
use natives::{LimitHit, limit_hit};
use pi_native_hooks_base::CancelToken;
use rhai::packages::{
    ArithmeticPackage, BasicArrayPackage, BasicFnPackage, BasicIteratorPackage, BasicMapPackage,
    BasicMathPackage, BasicStringPackage, LogicPackage, MoreStringPackage, Package,
};
use rhai::{
    AST, CallFnOptions, Dynamic, Engine, EvalAltResult, FuncArgs, OptimizationLevel, Scope,
};
use std::cell::RefCell;
use std::fmt::Write as _;
use std::panic::{AssertUnwindSafe, catch_unwind};

use std::time::{Duration, Instant};

/// Why a policy call did not return a value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    /// The call ran past its wall-clock deadline.
    #[error("timed out after {0:?}")]
    Timeout(Duration),
    /// The call was cancelled by the host.
    #[error("cancelled")]
    Cancelled,
    /// The call exceeded a resource limit.
    #[error("exceeded the {limit} limit{}", at_line(*line))]
    Limit {
        /// Which limit, e.g. `operations` or `call depth`.
        limit: String,
        /// The 1-based script line, when known.
        line: Option<usize>,
    },
    /// The script threw or hit a runtime error (unknown function, type mismatch, ...).
    #[error("{message}{}", at_line(*line))]
    Script {
        /// Rhai's message (without its position), with a did-you-mean for an unknown variable or
        /// property.
        message: String,
        /// The 1-based script line, when known.
        line: Option<usize>,
        /// The 1-based column (in characters), when known. (`u32`, as Rhai counts at most
        /// `u16::MAX`, keeps the error small.)
        column: Option<u32>,
    },
    /// The interpreter panicked; the panic was contained.
    #[error("the interpreter panicked: {0}")]
    Panic(String),
}

fn at_line(line: Option<usize>) -> String {
    line.map(|l| format!(" (line {l})")).unwrap_or_default()
}

/// What one call returned, with the `print`/`debug` lines it wrote.
#[derive(Debug)]
pub struct CallOutput {
    /// The result, or why there is none.
    pub result: Result<Dynamic, RunError>,
    /// Captured `print`/`debug` output, oldest first, within [`SandboxLimits::max_log_lines`],
    /// [`SandboxLimits::max_log_line_bytes`] and [`SandboxLimits::max_log_bytes`]; when output was
    /// dropped, a last line says how much.
    pub log: Vec<String>,
}

/// The stack every policy call (and compilation) is guaranteed: a call that starts on a thread
/// with less stack left runs on a fresh stack of [`POLICY_STACK`] bytes instead (same thread, so
/// the memory budget's per-thread count still applies, and no thread hop). Policies run on tokio's
/// blocking pool (2 MiB stacks, so they always get a fresh stack), on the CLI's main thread
/// (8 MiB: enough left, no cost) and on test threads; this makes their stack independent of where
/// they run. Sized from measurement: the deepest recursion the limits allow (call depth and
/// expression depth) uses 1.2 MiB in a debug build (tested below), under a third of it.
pub const POLICY_STACK_MIN: usize = 4 * 1024 * 1024;

/// The size of the fresh stack a call gets when [`POLICY_STACK_MIN`] is not left.
pub const POLICY_STACK: usize = 8 * 1024 * 1024;

/// The `print`/`debug` lines of one call, capped in lines and bytes.
#[derive(Debug, Default)]
struct CallLog {
    lines: Vec<String>,
    bytes: usize,
    dropped_lines: usize,
    dropped_bytes: usize,
}

impl CallLog {
    fn push(&mut self, text: &str, limits: &SandboxLimits) {
        let room = limits.max_log_bytes.saturating_sub(self.bytes);
        if self.lines.len() >= limits.max_log_lines || room == 0 {
            self.dropped_lines += 1;
            self.dropped_bytes = self.dropped_bytes.saturating_add(text.len());
            return;
        }
        let line = bounded(text, limits.max_log_line_bytes.min(room));
        self.bytes += line.len();
        self.lines.push(line);
    }

    fn finish(mut self, limits: &SandboxLimits) -> Vec<String> {
        if self.dropped_lines > 0 {
            self.lines.push(format!(
                "[{} more line(s), {} bytes, not kept: the log keeps {} lines and {} bytes per call]",
                self.dropped_lines, self.dropped_bytes, limits.max_log_lines, limits.max_log_bytes
            ));
        }
        self.lines
    }
}

/// Per-call state the engine's callbacks reach through a thread-local: the engine is shared, the
/// call runs on the calling thread.
struct CallState {
    deadline: Instant,
    timed_out: bool,
    cancel: CancelToken,
    log: CallLog,
    limits: SandboxLimits,
    memory_start: i64,
    /// Set when the memory budget was found exceeded: the next variable read throws
    /// [`LimitHit`] (which keeps its line). Until then the call may run a few more operations
    /// that allocate nothing more ([`GRACE_OPERATIONS`], [`GRACE_BYTES`]); otherwise it is
    /// terminated at once, without a line.
    memory_exceeded: Option<Grace>,
}

/// The operations and bytes a call that exceeded its memory budget may still use while waiting
/// for a variable read to report the line.
#[derive(Clone, Copy, Debug)]
struct Grace {
    used: i64,
    operations: u32,
}

const GRACE_OPERATIONS: u32 = 64;
const GRACE_BYTES: i64 = 1024 * 1024;

impl CallState {
    /// Net bytes allocated by this thread since the call started.
    fn memory_used(&self) -> i64 {
        budget::thread_net_bytes() - self.memory_start
    }

    fn over_budget(&self) -> bool {
        self.memory_used() > i64::try_from(self.limits.memory_budget).unwrap_or(i64::MAX)
    }
}

thread_local! {
    static CALL: RefCell<Option<CallState>> = const { RefCell::new(None) };
}

/// Called by Rhai before every operation: the cancellation flag, the clock and the memory budget
/// are checked each time, so a call overruns a bound by at most one operation.
fn on_progress(_operations: u64) -> Option<Dynamic> {
    CALL.with_borrow_mut(|state| {
        let state = state.as_mut()?;
        if state.cancel.is_cancelled() {
            return Some(Dynamic::UNIT);
        }
        if Instant::now() >= state.deadline {
            state.timed_out = true;
            return Some(Dynamic::UNIT);
        }
        if let Some(grace) = &mut state.memory_exceeded {
            // No variable read has stopped the call yet (or the policy caught the error): stop
            // now unless it still allocates nothing and a read may come soon.
            grace.operations += 1;
            let used = budget::thread_net_bytes() - state.memory_start;
            if grace.operations > GRACE_OPERATIONS || used > grace.used + GRACE_BYTES {
                return Some(Dynamic::UNIT);
            }
        } else if state.over_budget() {
            state.memory_exceeded = Some(Grace {
                used: state.memory_used(),
                operations: 0,
            });
        }
        None
    })
}

/// Called by Rhai on every variable read: once the memory budget is exceeded, the read throws,
/// so the failure names the line.
fn on_var(
    _name: &str,
    _index: usize,
    _context: rhai::EvalContext,
) -> Result<Option<Dynamic>, Box<EvalAltResult>> {
    let exceeded = CALL.with_borrow(|state| {
        state
            .as_ref()
            .is_some_and(|state| state.memory_exceeded.is_some())
    });
    if exceeded {
        Err(limit_hit(MEMORY_LIMIT))
    } else {
        Ok(None)
    }
}

const MEMORY_LIMIT: &str = "memory";

fn capture(text: &str) {
    CALL.with_borrow_mut(|state| {
        if let Some(state) = state.as_mut() {
            let limits = state.limits;
            state.log.push(text, &limits);
        }
    });
}

/// The sandboxed engine. Build it once and share it; it is `Send + Sync`.
pub struct Sandbox {
    engine: Engine,
    limits: SandboxLimits,
}

impl std::fmt::Debug for Sandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sandbox")
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl Default for Sandbox {
    fn default() -> Self {
        Self::new(SandboxLimits::default())
    }
}

impl Sandbox {
    /// Builds the sandboxed engine with `limits`.
    pub fn new(limits: SandboxLimits) -> Self {
        let mut engine = Engine::new_raw();
        let max_log_line = limits.max_log_line_bytes;
        for package in [
            ArithmeticPackage::new().as_shared_module(),
            LogicPackage::new().as_shared_module(),
            BasicMathPackage::new().as_shared_module(),
            BasicStringPackage::new().as_shared_module(),
            MoreStringPackage::new().as_shared_module(),
            BasicArrayPackage::new().as_shared_module(),
            BasicMapPackage::new().as_shared_module(),
            BasicIteratorPackage::new().as_shared_module(),
            BasicFnPackage::new().as_shared_module(),
        ] {
            engine.register_global_module(package);
        }
        engine
            .disable_symbol("eval")
            .set_strict_variables(true)
            .set_optimization_level(OptimizationLevel::None)
            .set_max_operations(limits.max_operations)
            .set_max_call_levels(limits.max_call_levels)
            .set_max_expr_depths(limits.max_expr_depth, limits.max_function_expr_depth)
            .set_max_string_size(limits.max_string_size)
            .set_max_array_size(limits.max_array_size)
            .set_max_map_size(limits.max_map_size)
            .set_max_variables(1_000)
            .set_max_functions(1_000)
            .on_progress(on_progress);
        #[expect(deprecated, reason = "`on_var` is stable in use, only marked volatile")]
        engine.on_var(on_var);
        engine.on_print(capture).on_debug(move |text, _, position| {
            let text = bounded(text, max_log_line);
            capture(&match position.line() {
                Some(line) => format!("[debug line {line}] {text}"),
                None => format!("[debug] {text}"),
            });
        });
        rhai_api::register(&mut engine, &limits);
        Self { engine, limits }
    }

    /// The limits this sandbox enforces.
    pub fn limits(&self) -> &SandboxLimits {
        &self.limits
    }

    /// The engine, for reading a script as it compiles (its lexer); never for running code.
    pub(crate) fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Compiles a policy script (no code runs). Parse errors name the line.
    pub fn compile(&self, source: &str) -> Result<AST, RunError> {
        let compiled = stacker::maybe_grow(POLICY_STACK_MIN, POLICY_STACK, || {
            catch_unwind(AssertUnwindSafe(|| self.engine.compile(source)))
        });
        match compiled {
            Ok(Ok(ast)) => Ok(ast),
            Ok(Err(error)) if *error.err_type() == rhai::ParseErrorType::ExprTooDeep => {
                Err(RunError::Limit {
                    limit: "expression depth".to_owned(),
                    line: error.position().line(),
                })
            }
            Ok(Err(error)) => {
                let (line, column) = rhai_error::compile_position(
                    &self.engine,
                    source,
                    error.err_type(),
                    error.position(),
                );
                let hint = rhai_error::compile_hint(&self.engine, source, error.err_type());
                Err(RunError::Script {
                    message: format!("{}{hint}", display_bounded(error.err_type())),
                    line,
                    column,
                })
            }
            Err(payload) => Err(RunError::Panic(panic_message(payload.as_ref()))),
        }
    }

    /// Calls the script function `name` of `ast` with `args`, within the limits and the deadline,
    /// watching `cancel`. The top-level statements are not run. A panic inside the interpreter is
    /// contained and reported as [`RunError::Panic`].
    pub fn call(
        &self,
        ast: &AST,
        name: &str,
        args: impl FuncArgs,
        cancel: &CancelToken,
    ) -> CallOutput {
        self.call_until(ast, name, args, cancel, None)
    }

    /// [`Sandbox::call`] that also stops at `until` when it comes before the call's own deadline
    /// (a total budget over several calls). A call stopped at `until` fails with
    /// [`RunError::Timeout`] carrying the time it was given.
    pub fn call_until(
        &self,
        ast: &AST,
        name: &str,
        args: impl FuncArgs,
        cancel: &CancelToken,
        until: Option<Instant>,
    ) -> CallOutput {
        // The interpreter (and the size check of what it returns) recurse on the calling
        // thread's stack: the call runs on a stack of known size.
        stacker::maybe_grow(POLICY_STACK_MIN, POLICY_STACK, || {
            let started = Instant::now();
            let own = started + self.limits.deadline;
            let deadline = until.map_or(own, |until| until.min(own));
            let previous = CALL.replace(Some(CallState {
                deadline,
                timed_out: false,
                cancel: cancel.clone(),
                log: CallLog::default(),
                limits: self.limits,
                memory_start: budget::thread_net_bytes(),
                memory_exceeded: None,
            }));
            let options = CallFnOptions::new().eval_ast(false);
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                self.engine.call_fn_with_options::<Dynamic>(
                    options,
                    &mut Scope::new(),
                    ast,
                    name,
                    args,
                )
            }));
            let over_budget =
                CALL.with_borrow(|state| state.as_ref().is_some_and(CallState::over_budget));
            let state = CALL.replace(previous);
            let (timed_out, memory_exceeded, log) = state
                .map(|s| {
                    let exceeded = s.memory_exceeded.is_some();
                    (s.timed_out, exceeded, s.log.finish(&self.limits))
                })
                .unwrap_or_default();
            let result = match outcome {
                Ok(Ok(_)) if over_budget => Err(RunError::Limit {
                    limit: MEMORY_LIMIT.to_owned(),
                    line: None,
                }),
                Ok(Ok(value)) => self.check_size(value),
                Ok(Err(error)) if timed_out && is_terminated(&error) => Err(RunError::Timeout(
                    deadline.saturating_duration_since(started),
                )),
                Ok(Err(error)) if memory_exceeded && is_terminated(&error) => {
                    Err(RunError::Limit {
                        limit: MEMORY_LIMIT.to_owned(),
                        line: line_of(&error),
                    })
                }
                Ok(Err(error)) => Err(classify(&error)),
                Err(payload) => Err(RunError::Panic(panic_message(payload.as_ref()))),
            };
            CallOutput { result, log }
        })
    }
}

impl Sandbox {
    /// Rhai does not size-check every way of growing a value (a map filled by index assignment,
    /// a returned value) nor what it cannot see (map keys, the guidance of a `Diagnostic`):
    /// measure what a call returns against the same limits.
    fn check_size(&self, value: Dynamic) -> Result<Dynamic, RunError> {
        let sizes = Sizes::of(&value)?;
        let exceeded = if sizes.string > self.limits.max_string_size {
            Some("length of string")
        } else if sizes.array > self.limits.max_array_size {
            Some("size of array/blob")
        } else if sizes.map > self.limits.max_map_size {
            Some("size of object map")
        } else {
            None
        };
        match exceeded {
            Some(limit) => Err(RunError::Limit {
                limit: limit.to_owned(),
                line: None,
            }),
            None => Ok(value),
        }
    }
}

/// Summed sizes of a value, as Rhai measures them (nested values count towards their container),
/// plus map keys and the guidance of `Diagnostic` values as string bytes. A guidance string shared
/// with the previous diagnostic (as `snapshot.report(guidance)` makes them) counts once.
#[derive(Default)]
struct Sizes {
    string: usize,
    array: usize,
    map: usize,
}

/// How deep a returned value may nest (arrays and maps in arrays and maps).
const MAX_RESULT_DEPTH: usize = 1_000;

impl Sizes {
    fn of(value: &Dynamic) -> Result<Self, RunError> {
        let mut sizes = Self::default();
        let mut last_guidance = None;
        sizes.add(value, 0, &mut last_guidance)?;
        Ok(sizes)
    }

    fn add(
        &mut self,
        value: &Dynamic,
        depth: usize,
        last_guidance: &mut Option<*const u8>,
    ) -> Result<(), RunError> {
        if depth > MAX_RESULT_DEPTH {
            return Err(RunError::Limit {
                limit: "depth of a returned value".to_owned(),
                line: None,
            });
        }
        if let Some(text) = value.read_lock::<rhai::ImmutableString>() {
            self.string = self.string.saturating_add(text.len());
        } else if let Some(items) = value.read_lock::<rhai::Array>() {
            self.array = self.array.saturating_add(items.len());
            for item in items.iter() {
                self.add(item, depth + 1, last_guidance)?;
            }
        } else if let Some(map) = value.read_lock::<rhai::Map>() {
            self.map = self.map.saturating_add(map.len());
            for (key, item) in map.iter() {
                self.string = self.string.saturating_add(key.len());
                self.add(item, depth + 1, last_guidance)?;
            }
        } else if let Some(diagnostic) = value.read_lock::<DiagnosticValue>() {
            // Diagnostics from one `report(guidance)` share one string: count it once.
            let guidance = diagnostic.guidance();
            if *last_guidance != Some(guidance.as_ptr()) {
                self.string = self.string.saturating_add(guidance.len());
                *last_guidance = Some(guidance.as_ptr());
            }
        }
        Ok(())
    }
}

fn root_cause(error: &EvalAltResult) -> &EvalAltResult {
    match error {
        EvalAltResult::ErrorInFunctionCall(_, _, inner, _) => root_cause(inner),
        other => other,
    }
}

fn is_terminated(error: &EvalAltResult) -> bool {
    matches!(root_cause(error), EvalAltResult::ErrorTerminated(..))
}

/// The innermost known line: errors raised by native functions carry no position, the call that
/// raised them does.
fn line_of(error: &EvalAltResult) -> Option<usize> {
    match error {
        EvalAltResult::ErrorInFunctionCall(_, _, inner, position) => {
            line_of(inner).or_else(|| position.line())
        }
        other => other.position().line(),
    }
}

/// The column that goes with [`line_of`]'s line.
fn column_of(error: &EvalAltResult) -> Option<u32> {
    match error {
        EvalAltResult::ErrorInFunctionCall(_, _, inner, position) => {
            if line_of(inner).is_some() {
                column_of(inner)
            } else {
                position.position().and_then(|c| u32::try_from(c).ok())
            }
        }
        other => other
            .position()
            .position()
            .and_then(|c| u32::try_from(c).ok()),
    }
}

fn classify(error: &EvalAltResult) -> RunError {
    let cause = root_cause(error);
    let line = line_of(error);
    let limit = |name: &str| RunError::Limit {
        limit: name.to_owned(),
        line,
    };
    match cause {
        EvalAltResult::ErrorRuntime(value, _) if value.is::<LimitHit>() => {
            limit(value.clone().cast::<LimitHit>().0)
        }
        EvalAltResult::ErrorTerminated(..) => RunError::Cancelled,
        EvalAltResult::ErrorTooManyOperations(_) => limit("operations"),
        EvalAltResult::ErrorStackOverflow(_) => limit("call depth"),
        EvalAltResult::ErrorTooManyVariables(_) => limit("variables"),
        EvalAltResult::ErrorDataTooLarge(what, _) => limit(&what.to_lowercase()),
        other => RunError::Script {
            message: format!(
                "{}{}",
                rhai_error::without_position(display_bounded(other), other.position()),
                rhai_error::runtime_hint(other)
            ),
            line,
            column: column_of(error),
        },
    }
}

/// `value` as text, formatting at most [`MAX_MESSAGE_BYTES`] (a thrown 10 MB map costs no more
/// than a short one), with a marker when it was cut.
fn display_bounded(value: &impl std::fmt::Display) -> String {
    let mut writer = BoundedWriter {
        text: String::new(),
        cut: false,
    };
    // An error only means the writer stopped early.
    let _ = write!(writer, "{value}");
    if writer.cut {
        writer.text.push_str("… (truncated)");
    }
    writer.text
}

struct BoundedWriter {
    text: String,
    cut: bool,
}

impl std::fmt::Write for BoundedWriter {
    fn write_str(&mut self, part: &str) -> std::fmt::Result {
        let room = MAX_MESSAGE_BYTES.saturating_sub(self.text.len());
        if part.len() <= room {
            self.text.push_str(part);
            return Ok(());
        }
        let mut end = room;
        while !part.is_char_boundary(end) {
            end -= 1;
        }
        self.text.push_str(&part[..end]);
        self.cut = true;
        Err(std::fmt::Error)
    }
}

/// A panic's text, bounded as every message of a call is.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    bounded(
        &pi_native_hooks_base::panic_message(payload),
        MAX_MESSAGE_BYTES,
    )
}

#[cfg(test)]
mod tests;

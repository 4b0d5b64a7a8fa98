//! The Rhai sandbox every policy runs in: a raw engine with only pure packages, no modules, no
//! `eval`, strict variables, bounded operations, call depth, expression depth and value sizes, a
//! wall-clock deadline with cancellation, `print`/`debug` captured in memory, and panics contained.

use super::view;
use rhai::packages::{
    ArithmeticPackage, BasicArrayPackage, BasicFnPackage, BasicIteratorPackage, BasicMapPackage,
    BasicMathPackage, BasicStringPackage, LogicPackage, MoreStringPackage, Package,
};
use rhai::{
    AST, CallFnOptions, Dynamic, Engine, EvalAltResult, FuncArgs, OptimizationLevel, Scope,
};
use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

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
    /// Bytes of string data in one value (nested strings are summed).
    pub max_string_size: usize,
    /// Elements in one array (nested arrays are summed).
    pub max_array_size: usize,
    /// Entries in one object map (nested maps are summed).
    pub max_map_size: usize,
    /// Wall-clock time per call.
    pub deadline: Duration,
    /// Lines of `print`/`debug` output kept per call.
    pub max_log_lines: usize,
}

impl Default for SandboxLimits {
    fn default() -> Self {
        Self {
            max_operations: 5_000_000,
            max_call_levels: 32,
            max_expr_depth: 64,
            max_function_expr_depth: 32,
            max_string_size: 16 * 1024 * 1024,
            max_array_size: 200_000,
            max_map_size: 1_000_000,
            deadline: Duration::from_millis(500),
            max_log_lines: 100,
        }
    }
}

/// A flag that stops running policy calls at their next progress check.
#[derive(Clone, Debug, Default)]
pub struct Cancellation(Arc<AtomicBool>);

impl Cancellation {
    /// A flag that is not set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks every call watching this flag to stop.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// True once [`Cancellation::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

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
        /// Rhai's message.
        message: String,
        /// The 1-based script line, when known.
        line: Option<usize>,
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
    /// Captured `print`/`debug` output, oldest first, at most [`SandboxLimits::max_log_lines`].
    pub log: Vec<String>,
}

/// Per-call state the engine's callbacks reach through a thread-local: the engine is shared, the
/// call runs on the calling thread.
struct CallState {
    deadline: Instant,
    timed_out: bool,
    cancel: Cancellation,
    log: Vec<String>,
    max_log_lines: usize,
}

thread_local! {
    static CALL: RefCell<Option<CallState>> = const { RefCell::new(None) };
}

/// How many operations pass between two clock reads.
const CLOCK_EVERY: u64 = 512;

fn on_progress(operations: u64) -> Option<Dynamic> {
    CALL.with_borrow_mut(|state| {
        let state = state.as_mut()?;
        if state.cancel.is_cancelled() {
            return Some(Dynamic::from("cancelled"));
        }
        if operations.is_multiple_of(CLOCK_EVERY) && Instant::now() >= state.deadline {
            state.timed_out = true;
            return Some(Dynamic::from("deadline"));
        }
        None
    })
}

fn capture(line: String) {
    CALL.with_borrow_mut(|state| {
        if let Some(state) = state.as_mut()
            && state.log.len() < state.max_log_lines
        {
            state.log.push(line);
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
            .on_progress(on_progress)
            .on_print(|text| capture(text.to_owned()))
            .on_debug(|text, _, position| {
                capture(match position.line() {
                    Some(line) => format!("[debug line {line}] {text}"),
                    None => format!("[debug] {text}"),
                });
            });
        view::register(&mut engine);
        Self { engine, limits }
    }

    /// The limits this sandbox enforces.
    pub fn limits(&self) -> &SandboxLimits {
        &self.limits
    }

    /// Compiles a policy script (no code runs). Parse errors name the line.
    pub fn compile(&self, source: &str) -> Result<AST, RunError> {
        match catch_unwind(AssertUnwindSafe(|| self.engine.compile(source))) {
            Ok(Ok(ast)) => Ok(ast),
            Ok(Err(error)) if *error.err_type() == rhai::ParseErrorType::ExprTooDeep => {
                Err(RunError::Limit {
                    limit: "expression depth".to_owned(),
                    line: error.position().line(),
                })
            }
            Ok(Err(error)) => Err(RunError::Script {
                message: error.err_type().to_string(),
                line: error.position().line(),
            }),
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
        cancel: &Cancellation,
    ) -> CallOutput {
        let previous = CALL.replace(Some(CallState {
            deadline: Instant::now() + self.limits.deadline,
            timed_out: false,
            cancel: cancel.clone(),
            log: Vec::new(),
            max_log_lines: self.limits.max_log_lines,
        }));
        let options = CallFnOptions::new().eval_ast(false);
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            self.engine
                .call_fn_with_options::<Dynamic>(options, &mut Scope::new(), ast, name, args)
        }));
        let state = CALL.replace(previous);
        let (timed_out, log) = state.map(|s| (s.timed_out, s.log)).unwrap_or_default();
        let result = match outcome {
            Ok(Ok(value)) => self.check_size(value),
            Ok(Err(error)) if timed_out && is_terminated(&error) => {
                Err(RunError::Timeout(self.limits.deadline))
            }
            Ok(Err(error)) => Err(classify(&error)),
            Err(payload) => Err(RunError::Panic(panic_message(payload.as_ref()))),
        };
        CallOutput { result, log }
    }
}

impl Sandbox {
    /// Rhai does not size-check every way of growing a value (a map filled by index assignment,
    /// a returned value): measure what a call returns against the same limits.
    fn check_size(&self, value: Dynamic) -> Result<Dynamic, RunError> {
        let mut sizes = Sizes::default();
        sizes.add(&value);
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

/// Summed sizes of a value, as Rhai measures them (nested values count towards their container).
#[derive(Default)]
struct Sizes {
    string: usize,
    array: usize,
    map: usize,
}

impl Sizes {
    fn add(&mut self, value: &Dynamic) {
        if let Some(text) = value.read_lock::<rhai::ImmutableString>() {
            self.string += text.len();
        } else if value.is_array() {
            if let Some(items) = value.read_lock::<rhai::Array>() {
                self.array += items.len();
                items.iter().for_each(|item| self.add(item));
            }
        } else if value.is_map()
            && let Some(map) = value.read_lock::<rhai::Map>()
        {
            self.map += map.len();
            map.values().for_each(|item| self.add(item));
        }
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

fn classify(error: &EvalAltResult) -> RunError {
    let cause = root_cause(error);
    let line = cause.position().line().or_else(|| error.position().line());
    let limit = |name: &str| RunError::Limit {
        limit: name.to_owned(),
        line,
    };
    match cause {
        EvalAltResult::ErrorTerminated(..) => RunError::Cancelled,
        EvalAltResult::ErrorTooManyOperations(_) => limit("operations"),
        EvalAltResult::ErrorStackOverflow(_) => limit("call depth"),
        EvalAltResult::ErrorTooManyVariables(_) => limit("variables"),
        EvalAltResult::ErrorDataTooLarge(what, _) => limit(&what.to_lowercase()),
        other => RunError::Script {
            message: other.to_string(),
            line,
        },
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_inside_the_interpreter_is_contained() {
        let mut sandbox = Sandbox::default();
        sandbox
            .engine
            .register_fn("boom", || -> rhai::INT { panic!("boom inside rhai") });
        let ast = sandbox.compile("fn f() { boom() }").unwrap();
        let output = sandbox.call(&ast, "f", (), &Cancellation::new());
        assert_eq!(
            output.result.unwrap_err(),
            RunError::Panic("boom inside rhai".to_owned())
        );
        // The thread-local call state was restored: the next call works normally.
        let ast = sandbox.compile("fn f() { 41 + 1 }").unwrap();
        assert_eq!(
            sandbox
                .call(&ast, "f", (), &Cancellation::new())
                .result
                .unwrap()
                .as_int(),
            Ok(42)
        );
    }
}

//! How policies fail: at load time ([`PolicyProblem`]: untrusted, does not compile, breaks the
//! contract, duplicate id) and at run time ([`PolicyFailure`]: throws, times out, exceeds a limit,
//! returns a malformed result). Both name the file; siblings are never affected.

use crate::registry::contract::ContractError;
use crate::sandbox::RunError;
pub(crate) use crate::sandbox::limits::{MAX_MESSAGE_BYTES, bounded};
use pi_native_hooks_base::PolicyId;
use pi_native_hooks_config::trust::TrustError;
use std::fmt;
use std::path::PathBuf;

/// Why a policy file was not loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProblemReason {
    /// The file failed a trust check or could not be read.
    Untrusted(TrustError),
    /// The script does not compile (or exceeds the expression depth).
    Compile(RunError),
    /// The script compiles but breaks the policy contract.
    Contract(Vec<ContractError>),
    /// Another policy file already uses this id.
    DuplicateId {
        /// The id both files declare.
        id: PolicyId,
        /// The file that declared it first (and was loaded).
        first: PathBuf,
    },
}

/// A policy file that was not loaded, with the reason.
#[expect(missing_docs, reason = "`path` names what it holds")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyProblem {
    pub path: PathBuf,
    /// Why it was not loaded.
    pub reason: ProblemReason,
    /// Set when the previous registry had loaded this file as the given policy id: the policy is
    /// degraded, not silently gone.
    pub degraded_from: Option<String>,
}

impl fmt::Display for PolicyProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        if let Some(id) = &self.degraded_from {
            write!(f, "policy {id:?} degraded: ")?;
        }
        match &self.reason {
            ProblemReason::Untrusted(error) => write!(f, "{error}"),
            ProblemReason::Compile(RunError::Script {
                message,
                line: Some(line),
                column,
            }) => {
                write!(
                    f,
                    "{path}:{}: does not compile: {message}",
                    at(*line, *column)
                )
            }
            ProblemReason::Compile(error) => write!(f, "{path}: does not compile: {error}"),
            ProblemReason::Contract(errors) => {
                let mut first = true;
                for error in errors {
                    if !first {
                        f.write_str("\n")?;
                    }
                    first = false;
                    match error.line {
                        Some(line) => write!(f, "{path}:{line}: {}", error.message)?,
                        None => write!(f, "{path}: {}", error.message)?,
                    }
                }
                Ok(())
            }
            ProblemReason::DuplicateId { id, first } => {
                write!(
                    f,
                    "{path}: duplicate policy id {id:?}, already defined in {}",
                    first.display()
                )
            }
        }
    }
}

/// `line:column`, or `line` when the column is not known.
fn at(line: usize, column: Option<u32>) -> String {
    match column {
        Some(column) => format!("{line}:{column}"),
        None => line.to_string(),
    }
}

/// Why a loaded policy produced nothing in one run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FailureReason {
    /// The call threw, timed out, was cancelled, exceeded a limit or panicked.
    Run(RunError),
    /// The call returned a value of the wrong shape.
    Malformed(String),
}

/// A loaded policy that failed during one run. Its siblings' results are unaffected.
#[expect(missing_docs, reason = "bare fields name what they hold")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyFailure {
    pub policy: PolicyId,
    pub path: PathBuf,
    /// The function that failed, e.g. `evaluate` or an `affects` predicate.
    pub function: String,
    pub reason: FailureReason,
}

impl fmt::Display for PolicyFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        let function = &self.function;
        match &self.reason {
            FailureReason::Run(RunError::Script {
                message,
                line: Some(line),
                column,
            }) => {
                write!(
                    f,
                    "{path}:{}: `{function}` failed: {message}",
                    at(*line, *column)
                )
            }
            FailureReason::Run(error) => write!(f, "{path}: `{function}` failed: {error}"),
            FailureReason::Malformed(message) => {
                write!(
                    f,
                    "{path}: `{function}` returned a malformed result: {message}"
                )
            }
        }
    }
}

/// One line a policy wrote with `print` or `debug`.
#[expect(missing_docs, reason = "`policy` names what it holds")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyLog {
    pub policy: PolicyId,
    /// The text.
    pub line: String,
}

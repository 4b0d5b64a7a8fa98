//! The problems a contract can have, each with the line it was found on, collected while the
//! contract is read so that one pass reports them all.

use std::fmt;

/// One structural problem in a policy, with its 1-based line when known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContractError {
    /// The line the problem is on.
    pub line: Option<usize>,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl fmt::Display for ContractError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "line {line}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// Collects problems while reading fields.
#[derive(Default)]
pub(super) struct Problems(pub(super) Vec<ContractError>);

impl Problems {
    pub(super) fn at(&mut self, line: usize, message: impl Into<String>) {
        self.0.push(ContractError {
            line: (line > 0).then_some(line),
            message: message.into(),
        });
    }
}

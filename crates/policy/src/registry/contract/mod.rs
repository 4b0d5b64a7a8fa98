//! The policy contract: the metadata a policy declares as top-level `const NAME = <literal>;`
//! statements, read from the syntax tree without running code, and its structural validation.
//! Every problem names the line it was found on.
//!
//! [`read_contract`] reads the common constants here; the kind-specific parts are read by
//! `diagnostic` and `verification`, from the constants `constants` reads and the functions
//! `functions` finds, into the types of `spec`.

mod command;
mod constants;
mod diagnostic;
mod functions;
mod problems;
mod spec;
mod verification;

pub use command::{trim_command, unsafe_command_char};
pub use problems::ContractError;
pub(crate) use spec::rule_selected;
pub use spec::{
    DiagnosticSpec, PolicyContract, PolicyKind, PolicySpec, ProjectSpec, Requirement,
    VerificationSpec,
};

use constants::{
    DIAGNOSTIC_FIELDS, VERIFICATION_FIELDS, check_known, read_consts, required, string,
};
use diagnostic::diagnostic_spec;
use functions::Functions;
use problems::Problems;
use rhai::AST;
use verification::verification_spec;

/// Reads and validates the contract of a compiled policy. `source` is only used to find the
/// line of a function definition. Returns every problem found, not just the first.
pub(crate) fn read_contract(ast: &AST, source: &str) -> Result<PolicyContract, Vec<ContractError>> {
    let mut problems = Problems::default();
    let consts = read_consts(ast, &mut problems);
    let id = required(&consts, "ID", &mut problems).and_then(|l| string(l, "ID", &mut problems));
    if let Some(id) = &id
        && !is_valid_id(id)
    {
        problems.at(
            consts["ID"].line,
            format!(
                "`ID` {id:?} must be 1 to 64 lowercase letters, digits and `-`, not starting \
                 with `-`"
            ),
        );
    }
    let description = consts
        .get("DESCRIPTION")
        .and_then(|l| string(l, "DESCRIPTION", &mut problems));
    let kind =
        required(&consts, "KIND", &mut problems).and_then(|l| string(l, "KIND", &mut problems));
    let functions = Functions::of(ast, source);
    let spec = match kind.as_deref() {
        Some("diagnostic") => {
            check_known(&consts, DIAGNOSTIC_FIELDS, &mut problems);
            diagnostic_spec(&consts, &functions, &mut problems).map(PolicySpec::Diagnostic)
        }
        Some("verification") => {
            check_known(&consts, VERIFICATION_FIELDS, &mut problems);
            verification_spec(&consts, &functions, &mut problems).map(PolicySpec::Verification)
        }
        Some(other) => {
            problems.at(
                consts["KIND"].line,
                format!("`KIND` must be \"diagnostic\" or \"verification\", not {other:?}"),
            );
            None
        }
        None => None,
    };
    match (id, spec) {
        (Some(id), Some(spec)) if problems.0.is_empty() => Ok(PolicyContract {
            id: id.into(),
            description,
            spec,
        }),
        _ => Err(problems.0),
    }
}

fn is_valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !id.starts_with('-')
}

#[cfg(test)]
mod tests;

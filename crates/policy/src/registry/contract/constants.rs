//! Reading a policy's top-level constants from its syntax tree: each `const NAME = <literal>;`
//! as a [`Literal`] with its line, and the typed values a contract takes from them (a required
//! constant, a non-empty string, an object map with known keys).

use super::problems::Problems;
use crate::registry::literal::{self, Literal, Value};
use rhai::{AST, ASTFlags, Stmt};
use std::collections::BTreeMap;

/// The constants every policy may declare.
pub(super) const COMMON_FIELDS: &[&str] = &["ID", "KIND", "DESCRIPTION"];
/// The constants only a diagnostic policy may declare.
pub(super) const DIAGNOSTIC_FIELDS: &[&str] = &["ANALYZER", "RULES"];
/// The constants only a verification policy may declare.
pub(super) const VERIFICATION_FIELDS: &[&str] = &["PROJECT", "REQUIREMENTS"];

/// Every top-level constant by name; anything else at the top level but `fn` definitions is a
/// problem.
pub(super) fn read_consts(ast: &AST, problems: &mut Problems) -> BTreeMap<String, Literal> {
    let mut consts = BTreeMap::new();
    for stmt in ast.statements() {
        let line = stmt.position().line().unwrap_or(0);
        match stmt {
            Stmt::Var(var, flags, _) if flags.contains(ASTFlags::CONSTANT) => {
                let (ident, expr, _) = var.as_ref();
                match literal::read(expr) {
                    Ok(value) => {
                        if consts.insert(ident.name.to_string(), value).is_some() {
                            problems.at(line, format!("`{}` is declared twice", ident.name));
                        }
                    }
                    Err(at) => problems.at(
                        at.max(line),
                        format!(
                            "`{}` must be a literal value (no variables, calls or operators)",
                            ident.name
                        ),
                    ),
                }
            }
            Stmt::Noop(_) => {}
            _ => problems.at(
                line,
                "only `const NAME = <literal>;` and `fn` definitions are allowed at the top level",
            ),
        }
    }
    consts
}

/// A constant that is neither common nor one of `kind_fields` is a problem, with a did-you-mean.
pub(super) fn check_known(
    consts: &BTreeMap<String, Literal>,
    kind_fields: &[&str],
    problems: &mut Problems,
) {
    for (name, literal) in consts {
        if !COMMON_FIELDS.contains(&name.as_str()) && !kind_fields.contains(&name.as_str()) {
            let allowed = COMMON_FIELDS
                .iter()
                .chain(kind_fields)
                .copied()
                .collect::<Vec<_>>()
                .join(", ");
            let hint = pi_native_hooks_base::did_you_mean(
                name,
                COMMON_FIELDS.iter().chain(kind_fields).copied(),
            );
            problems.at(
                literal.line,
                format!("unknown field `{name}` (allowed: {allowed}){hint}"),
            );
        }
    }
}

/// The constant `name`; its absence is a problem.
pub(super) fn required<'a>(
    consts: &'a BTreeMap<String, Literal>,
    name: &str,
    problems: &mut Problems,
) -> Option<&'a Literal> {
    let found = consts.get(name);
    if found.is_none() {
        problems.at(0, format!("missing `const {name}`"));
    }
    found
}

/// The literal as a non-empty string; anything else is a problem naming `what`.
pub(super) fn string(literal: &Literal, what: &str, problems: &mut Problems) -> Option<String> {
    match &literal.value {
        Value::Str(text) if !text.trim().is_empty() => Some(text.clone()),
        Value::Str(_) => {
            problems.at(literal.line, format!("`{what}` must not be empty"));
            None
        }
        other => {
            problems.at(
                literal.line,
                format!("`{what}` must be a string, not {}", other.type_name()),
            );
            None
        }
    }
}

/// Reads a map literal with the keys `keys` and no others: all of them must be
/// present, the last `optional` may be left out.
pub(super) fn map_fields<'a, const N: usize>(
    literal: &'a Literal,
    what: &str,
    keys: &[&str; N],
    optional: usize,
    problems: &mut Problems,
) -> Option<[Option<&'a Literal>; N]> {
    let Value::Map(entries) = &literal.value else {
        problems.at(
            literal.line,
            format!(
                "{what} must be an object map `#{{...}}`, not {}",
                literal.value.type_name()
            ),
        );
        return None;
    };
    let mut found = [None; N];
    for (key, line, value) in entries {
        match keys.iter().position(|k| k == key) {
            Some(index) => found[index] = Some(value),
            None => problems.at(
                *line,
                format!(
                    "unknown field `{key}` in {what} (allowed: {})",
                    keys.join(", ")
                ),
            ),
        }
    }
    for (key, value) in keys.iter().zip(&found).take(N - optional) {
        if value.is_none() {
            problems.at(literal.line, format!("{what} is missing field `{key}`"));
        }
    }
    Some(found)
}

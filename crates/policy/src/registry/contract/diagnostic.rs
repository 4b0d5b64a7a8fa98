//! The contract of a diagnostic policy: `ANALYZER`, a non-empty `RULES` and `fn
//! evaluate(snapshot)`.

use super::constants::{required, string};
use super::functions::Functions;
use super::problems::Problems;
use super::spec::DiagnosticSpec;
use crate::registry::literal::{Literal, Value};
use pi_native_hooks_base::RuleId;
use std::collections::BTreeMap;

/// The diagnostic part of a contract, or `None` after recording why not.
pub(super) fn diagnostic_spec(
    consts: &BTreeMap<String, Literal>,
    functions: &Functions<'_>,
    problems: &mut Problems,
) -> Option<DiagnosticSpec> {
    let kind_line = consts.get("KIND").map_or(0, |l| l.line);
    functions.require("evaluate", 1, "evaluate(snapshot)", kind_line, problems);
    let analyzer =
        required(consts, "ANALYZER", problems).and_then(|l| string(l, "ANALYZER", problems));
    let rules = required(consts, "RULES", problems).and_then(|literal| match &literal.value {
        Value::Array(items) if !items.is_empty() => {
            let rules: Vec<RuleId> = items
                .iter()
                .filter_map(|item| string(item, "RULES entry", problems).map(RuleId::from))
                .collect();
            (rules.len() == items.len()).then_some(rules)
        }
        Value::Array(_) => {
            problems.at(literal.line, "`RULES` must name at least one rule id");
            None
        }
        other => {
            problems.at(
                literal.line,
                format!(
                    "`RULES` must be an array of rule ids, not {}",
                    other.type_name()
                ),
            );
            None
        }
    });
    Some(DiagnosticSpec {
        analyzer: analyzer?,
        rules: rules?,
    })
}

//! The reach of a rule: how many levels above a node its match can look, read from the rule's
//! serialized form (see the [module docs](super) for which rules reach how far).

use crate::rules::RuleSet;
use ast_grep_config::RuleConfig;
use ast_grep_language::SupportLang;
use serde_json::Value;
use std::collections::HashMap;

/// The reach of every rule of a rule set, by rule id: `Some(levels)` above a node that its match
/// can depend on, `None` when it cannot be bounded.
#[derive(Debug, Default)]
pub(crate) struct RuleReach(HashMap<String, Option<usize>>);

impl RuleReach {
    pub(crate) fn of(rules: &RuleSet) -> Self {
        let mut reach = HashMap::new();
        rules.for_each_rule(|rule| {
            reach.insert(rule.id.clone(), config_reach(rule));
        });
        Self(reach)
    }

    pub(crate) fn get(&self, rule: &RuleConfig<SupportLang>) -> Option<usize> {
        self.0.get(&rule.id).copied().flatten()
    }
}

/// The reach of a whole rule config: its rule, plus its constraints (evaluated on captured
/// nodes); unbounded with rewriters or an expanding fix.
fn config_reach(rule: &RuleConfig<SupportLang>) -> Option<usize> {
    let config = serde_json::to_value(&**rule).ok()?;
    let object = config.as_object()?;
    if object.get("rewriters").is_some_and(|v| !v.is_null()) {
        return None;
    }
    if let Some(Value::Object(fix)) = object.get("fix")
        && (fix.get("expandStart").is_some_and(|v| !v.is_null())
            || fix.get("expandEnd").is_some_and(|v| !v.is_null()))
    {
        return None;
    }
    let mut reach = rule_reach(object.get("rule")?)?;
    if let Some(Value::Object(constraints)) = object.get("constraints") {
        for constraint in constraints.values() {
            reach = reach.checked_add(rule_reach(constraint)?)?;
        }
    }
    Some(reach)
}

/// How many levels above a node the serialized rule `rule` can look (`None`: unbounded).
fn rule_reach(rule: &Value) -> Option<usize> {
    let Value::Object(keys) = rule else {
        return None;
    };
    let mut reach = 0usize;
    for (key, value) in keys {
        if value.is_null() {
            continue;
        }
        let here = match key.as_str() {
            "pattern" | "kind" | "regex" | "field" | "stopBy" => 0,
            "has" => {
                let stop = stop_reach(value.get("stopBy"))?;
                rule_reach(value)?.max(stop)
            }
            "not" => rule_reach(value)?,
            "all" | "any" => {
                let mut most = 0;
                for item in value.as_array()? {
                    most = most.max(rule_reach(item)?);
                }
                most
            }
            "inside" => match value.get("stopBy") {
                None | Some(Value::Null) => 1 + rule_reach(value)?,
                Some(Value::String(stop)) if stop == "neighbor" => 1 + rule_reach(value)?,
                Some(Value::String(stop)) if stop == "end" && kinds_only(value) => 0,
                _ => return None,
            },
            "follows" | "precedes" => {
                let stop = stop_reach(value.get("stopBy"))?;
                1 + rule_reach(value)?.max(stop)
            }
            "nthChild" => match value.get("ofRule") {
                Some(of) if !of.is_null() => 1 + rule_reach(of)?,
                _ => 1,
            },
            // `matches` (utility rules), `range` (absolute positions) and anything unknown.
            _ => return None,
        };
        reach = reach.max(here);
    }
    Some(reach)
}

/// The reach of a relational rule's `stopBy`: a rule is evaluated where the relation walks.
fn stop_reach(stop: Option<&Value>) -> Option<usize> {
    match stop {
        None | Some(Value::Null | Value::String(_)) => Some(0),
        Some(rule) => rule_reach(rule),
    }
}

/// Whether a relational rule names only kinds (through `any`, `all` and `not`), with `stopBy`
/// `end` and no `field`.
fn kinds_only(rule: &Value) -> bool {
    names_only_kinds(rule, true)
}

/// Whether `rule` names only kinds; `stopBy: end` is allowed on the relational rule itself
/// (`top`), not inside it.
fn names_only_kinds(rule: &Value, top: bool) -> bool {
    let Value::Object(keys) = rule else {
        return false;
    };
    keys.iter().all(|(key, value)| match key.as_str() {
        _ if value.is_null() => true,
        "kind" => value.is_string(),
        "stopBy" if top => value.as_str() == Some("end"),
        "not" => names_only_kinds(value, false),
        "any" | "all" => value
            .as_array()
            .is_some_and(|items| items.iter().all(|item| names_only_kinds(item, false))),
        _ => false,
    })
}

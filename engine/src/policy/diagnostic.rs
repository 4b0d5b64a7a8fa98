//! Diagnostics produced by policies: the shape `evaluate(snapshot)` must return and its checked
//! conversion into [`PolicyDiagnostic`].

use super::contract::DiagnosticSpec;
use super::view::{FindingView, SnapshotView};
use crate::analysis::Severity;
use crate::ids::{PolicyId, RuleId};
use rhai::{Dynamic, ImmutableString, Map};
use serde::Serialize;
use std::collections::HashSet;

/// One diagnostic a policy produced. Lines and columns are 1-based.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PolicyDiagnostic {
    /// Repository-relative path (one of the snapshot's paths).
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column in characters.
    pub column: usize,
    /// 1-based end line (defaults to `line`).
    pub end_line: usize,
    /// 1-based end column (defaults to `column`).
    pub end_column: usize,
    /// The rule the diagnostic is about (one of the policy's `RULES`).
    pub rule: RuleId,
    /// The id of the policy that produced it.
    pub policy: PolicyId,
    /// How loud it is (defaults to `warning`).
    pub severity: Severity,
    /// What is wrong.
    pub message: String,
    /// What the agent should do about it.
    pub guidance: String,
}

/// A diagnostic built natively from a finding (`finding.to_diagnostic(guidance)`,
/// `snapshot.report(guidance)`): everything but the guidance comes from the finding itself, so it
/// needs no map and no re-validation.
#[derive(Clone, Debug)]
pub struct DiagnosticValue {
    finding: FindingView,
    guidance: ImmutableString,
}

impl DiagnosticValue {
    /// The diagnostic for `finding` with `guidance`.
    pub fn new(finding: FindingView, guidance: ImmutableString) -> Self {
        Self { finding, guidance }
    }

    /// The guidance text.
    pub fn guidance(&self) -> &str {
        &self.guidance
    }

    fn into_diagnostic(
        self,
        policy: &str,
        spec: &DiagnosticSpec,
    ) -> Result<PolicyDiagnostic, String> {
        let finding = self.finding.finding();
        if !spec.rules.contains(&finding.rule) {
            return Err(format!(
                "rule {:?} is not one of the policy's RULES",
                finding.rule
            ));
        }
        if self.guidance.trim().is_empty() {
            return Err("`guidance` must not be empty".to_owned());
        }
        let (start, end) = (finding.range.start, finding.range.end);
        Ok(PolicyDiagnostic {
            path: finding.path.clone(),
            line: start.line + 1,
            column: start.column + 1,
            end_line: end.line + 1,
            end_column: end.column + 1,
            rule: finding.rule.clone(),
            policy: policy.into(),
            severity: finding.severity,
            message: finding.message.clone(),
            guidance: self.guidance.to_string(),
        })
    }
}

/// The keys a result map may have.
pub const RESULT_FIELDS: &[&str] = &[
    "path",
    "line",
    "column",
    "end_line",
    "end_column",
    "rule",
    "message",
    "guidance",
    "severity",
];

/// Converts what `evaluate` returned into diagnostics, or explains what is malformed.
pub(super) fn from_result(
    value: Dynamic,
    policy: &str,
    spec: &DiagnosticSpec,
    view: &SnapshotView,
) -> Result<Vec<PolicyDiagnostic>, String> {
    let snapshot = view.snapshot();
    let paths: HashSet<&str> = snapshot
        .paths
        .iter()
        .chain(snapshot.findings.iter().map(|f| &f.path))
        .map(String::as_str)
        .collect();
    let type_name = value.type_name();
    let items = value
        .try_cast::<rhai::Array>()
        .ok_or_else(|| format!("`evaluate` must return an array of maps, not {type_name}"))?;
    items
        .into_iter()
        .enumerate()
        .map(|(index, item)| {
            if item.is::<DiagnosticValue>() {
                let value = item.cast::<DiagnosticValue>();
                return value
                    .into_diagnostic(policy, spec)
                    .map_err(|e| format!("result #{index}: {e}"));
            }
            let type_name = item.type_name();
            let map = item
                .try_cast::<Map>()
                .ok_or_else(|| format!("result #{index} must be an object map, not {type_name}"))?;
            one(&map, policy, spec, &paths).map_err(|e| format!("result #{index}: {e}"))
        })
        .collect()
}

fn one(
    map: &Map,
    policy: &str,
    spec: &DiagnosticSpec,
    paths: &HashSet<&str>,
) -> Result<PolicyDiagnostic, String> {
    if let Some(key) = map.keys().find(|k| !RESULT_FIELDS.contains(&k.as_str())) {
        return Err(format!(
            "unknown field `{key}` (allowed: {})",
            RESULT_FIELDS.join(", ")
        ));
    }
    let path = text(map, "path")?;
    if !paths.contains(path.as_str()) {
        return Err(format!(
            "path {path:?} is not part of the analyzed snapshot"
        ));
    }
    let rule = RuleId::from(text(map, "rule")?);
    if !spec.rules.contains(&rule) {
        return Err(format!("rule {rule:?} is not one of the policy's RULES"));
    }
    let line = position(map, "line")?.ok_or("missing field `line`")?;
    let column = position(map, "column")?.ok_or("missing field `column`")?;
    let severity = match map.get("severity") {
        None => Severity::Warning,
        Some(value) => match value.clone().into_immutable_string().as_deref() {
            Ok("hint") => Severity::Hint,
            Ok("info") => Severity::Info,
            Ok("warning") => Severity::Warning,
            _ => {
                return Err(format!(
                    "`severity` must be \"hint\", \"info\" or \"warning\", not {value}"
                ));
            }
        },
    };
    Ok(PolicyDiagnostic {
        path,
        line,
        column,
        end_line: position(map, "end_line")?.unwrap_or(line),
        end_column: position(map, "end_column")?.unwrap_or(column),
        rule,
        policy: policy.into(),
        severity,
        message: text(map, "message")?,
        guidance: text(map, "guidance")?,
    })
}

fn text(map: &Map, key: &str) -> Result<String, String> {
    let value = map
        .get(key)
        .ok_or_else(|| format!("missing field `{key}`"))?;
    match value.clone().into_immutable_string() {
        Ok(text) if !text.trim().is_empty() => Ok(text.to_string()),
        Ok(_) => Err(format!("`{key}` must not be empty")),
        Err(type_name) => Err(format!("`{key}` must be a string, not {type_name}")),
    }
}

fn position(map: &Map, key: &str) -> Result<Option<usize>, String> {
    let Some(value) = map.get(key) else {
        return Ok(None);
    };
    match value.as_int() {
        Ok(number) if number >= 1 => usize::try_from(number).map(Some).map_err(|e| e.to_string()),
        Ok(number) => Err(format!("`{key}` must be 1 or more (1-based), not {number}")),
        Err(type_name) => Err(format!("`{key}` must be an integer, not {type_name}")),
    }
}

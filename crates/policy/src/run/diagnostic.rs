//! Diagnostics produced by policies: the shape `evaluate(snapshot)` must return and its checked
//! conversion into [`PolicyDiagnostic`].

use crate::registry::contract::DiagnosticSpec;
use crate::sandbox::view::{FindingView, SnapshotView};
use pi_native_hooks_analysis::{PolicyDiagnostic, Severity};
use pi_native_hooks_base::{PolicyId, RuleId, SharedText};
use rhai::{Dynamic, ImmutableString, Map};
use std::collections::HashSet;

/// The texts one policy call's diagnostics share: its id, and each distinct path, message and
/// guidance once (a policy words most of its diagnostics alike), so a run with thousands of
/// diagnostics holds each text once.
struct Shared {
    policy: PolicyId,
    texts: HashSet<SharedText>,
}

impl Shared {
    fn new(policy: &str) -> Self {
        Self {
            policy: policy.into(),
            texts: HashSet::new(),
        }
    }

    /// `text`, as the earlier diagnostics hold it if one did.
    fn text(&mut self, text: &str) -> SharedText {
        if let Some(held) = self.texts.get(text) {
            return held.clone();
        }
        let shared = SharedText::from(text);
        self.texts.insert(shared.clone());
        shared
    }
}

/// A diagnostic built natively from a finding (`finding.to_diagnostic(guidance)`,
/// `snapshot.report(guidance)`): everything but the guidance comes from the finding itself, so it
/// needs no map and no re-validation.
#[derive(Clone, Debug)]
pub(crate) struct DiagnosticValue {
    finding: FindingView,
    guidance: ImmutableString,
}

impl DiagnosticValue {
    /// The diagnostic for `finding` with `guidance`.
    pub(crate) fn new(finding: FindingView, guidance: ImmutableString) -> Self {
        Self { finding, guidance }
    }

    pub(crate) fn guidance(&self) -> &str {
        &self.guidance
    }

    fn into_diagnostic(
        self,
        shared: &mut Shared,
        spec: &DiagnosticSpec,
    ) -> Result<PolicyDiagnostic, ResultProblem> {
        let finding = self.finding.finding();
        if !spec.selects(finding.rule.as_str()) {
            return Err(ResultProblem::RuleNotInPolicy(finding.rule.clone()));
        }
        if self.guidance.trim().is_empty() {
            return Err(ResultProblem::Empty("guidance".to_owned()));
        }
        let (start, end) = (finding.range.start, finding.range.end);
        Ok(PolicyDiagnostic {
            path: finding.path.clone(),
            line: start.line + 1,
            column: start.column + 1,
            end_line: end.line + 1,
            end_column: end.column + 1,
            rule: finding.rule.clone(),
            policy: shared.policy.clone(),
            severity: finding.severity,
            message: finding.message.clone(),
            guidance: shared.text(&self.guidance),
        })
    }
}

/// The keys a result map may have.
pub(crate) const RESULT_FIELDS: &[&str] = &[
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

/// Why what `evaluate` returned is not a list of diagnostics. The policy's failure shows it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum MalformedDiagnostic {
    /// The result is not an array.
    #[error("`evaluate` must return an array of maps, not {0}")]
    NotAnArray(String),
    /// An item is neither a map nor a diagnostic built from a finding.
    #[error("result #{index} must be an object map, not {type_name}")]
    NotAMap {
        /// 0-based index in the returned array.
        index: usize,
        /// The item's Rhai type.
        type_name: String,
    },
    /// An item is a map, but not a valid diagnostic.
    #[error("result #{index}: {problem}")]
    Item {
        /// 0-based index in the returned array.
        index: usize,
        /// What is wrong with it.
        problem: ResultProblem,
    },
}

/// What is wrong with one returned diagnostic.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ResultProblem {
    /// A key outside [`RESULT_FIELDS`].
    #[error("unknown field `{0}` (allowed: {fields})", fields = RESULT_FIELDS.join(", "))]
    UnknownField(String),
    /// A required key is absent.
    #[error("missing field `{0}`")]
    Missing(String),
    /// A text field is empty or blank.
    #[error("`{0}` must not be empty")]
    Empty(String),
    /// A text field holds another type.
    #[error("`{key}` must be a string, not {type_name}")]
    NotAString {
        key: String,
        /// The value's Rhai type.
        type_name: String,
    },
    /// A position field holds another type.
    #[error("`{key}` must be an integer, not {type_name}")]
    NotAnInteger {
        key: String,
        /// The value's Rhai type.
        type_name: String,
    },
    /// A position below 1.
    #[error("`{key}` must be 1 or more (1-based), not {number}")]
    NotPositive { key: String, number: i64 },
    /// A position too large for this platform.
    #[error("{0}")]
    OutOfRange(std::num::TryFromIntError),
    /// The path is not one the snapshot analyzed.
    #[error("path {0:?} is not part of the analyzed snapshot")]
    PathNotInSnapshot(String),
    /// The rule is not one of the policy's `RULES`.
    #[error("rule {0:?} is not one of the policy's RULES")]
    RuleNotInPolicy(RuleId),
    /// `severity` is not `hint`, `info` or `warning`.
    #[error("`severity` must be \"hint\", \"info\" or \"warning\", not {0}")]
    BadSeverity(String),
}

/// Converts what `evaluate` returned into diagnostics, or explains what is malformed.
pub(crate) fn from_result(
    value: Dynamic,
    policy: &str,
    spec: &DiagnosticSpec,
    view: &SnapshotView,
) -> Result<Vec<PolicyDiagnostic>, MalformedDiagnostic> {
    let snapshot = view.snapshot();
    let paths: HashSet<&str> = snapshot
        .paths
        .iter()
        .map(String::as_str)
        .chain(snapshot.findings.iter().map(|f| &*f.path))
        .collect();
    let mut shared = Shared::new(policy);
    let type_name = value.type_name();
    let items = value
        .try_cast::<rhai::Array>()
        .ok_or_else(|| MalformedDiagnostic::NotAnArray(type_name.to_owned()))?;
    items
        .into_iter()
        .enumerate()
        .map(|(index, item)| {
            if item.is::<DiagnosticValue>() {
                let value = item.cast::<DiagnosticValue>();
                return value
                    .into_diagnostic(&mut shared, spec)
                    .map_err(|problem| MalformedDiagnostic::Item { index, problem });
            }
            let type_name = item.type_name();
            let map = item
                .try_cast::<Map>()
                .ok_or_else(|| MalformedDiagnostic::NotAMap {
                    index,
                    type_name: type_name.to_owned(),
                })?;
            one(&map, &mut shared, spec, &paths)
                .map_err(|problem| MalformedDiagnostic::Item { index, problem })
        })
        .collect()
}

fn one(
    map: &Map,
    shared: &mut Shared,
    spec: &DiagnosticSpec,
    paths: &HashSet<&str>,
) -> Result<PolicyDiagnostic, ResultProblem> {
    if let Some(key) = map.keys().find(|k| !RESULT_FIELDS.contains(&k.as_str())) {
        return Err(ResultProblem::UnknownField(key.to_string()));
    }
    let path = text(map, "path")?;
    if !paths.contains(path.as_str()) {
        return Err(ResultProblem::PathNotInSnapshot(path));
    }
    let rule = RuleId::from(text(map, "rule")?);
    if !spec.selects(rule.as_str()) {
        return Err(ResultProblem::RuleNotInPolicy(rule));
    }
    let line = position(map, "line")?.ok_or_else(|| ResultProblem::Missing("line".to_owned()))?;
    let column =
        position(map, "column")?.ok_or_else(|| ResultProblem::Missing("column".to_owned()))?;
    let severity = match map.get("severity") {
        None => Severity::Warning,
        Some(value) => match value.clone().into_immutable_string().as_deref() {
            Ok("hint") => Severity::Hint,
            Ok("info") => Severity::Info,
            Ok("warning") => Severity::Warning,
            _ => {
                return Err(ResultProblem::BadSeverity(value.to_string()));
            }
        },
    };
    Ok(PolicyDiagnostic {
        path: shared.text(&path),
        line,
        column,
        end_line: position(map, "end_line")?.unwrap_or(line),
        end_column: position(map, "end_column")?.unwrap_or(column),
        rule,
        policy: shared.policy.clone(),
        severity,
        message: shared.text(&text(map, "message")?),
        guidance: shared.text(&text(map, "guidance")?),
    })
}

fn text(map: &Map, key: &str) -> Result<String, ResultProblem> {
    let value = map
        .get(key)
        .ok_or_else(|| ResultProblem::Missing(key.to_owned()))?;
    match value.clone().into_immutable_string() {
        Ok(text) if !text.trim().is_empty() => Ok(text.to_string()),
        Ok(_) => Err(ResultProblem::Empty(key.to_owned())),
        Err(type_name) => Err(ResultProblem::NotAString {
            key: key.to_owned(),
            type_name: type_name.to_owned(),
        }),
    }
}

fn position(map: &Map, key: &str) -> Result<Option<usize>, ResultProblem> {
    let Some(value) = map.get(key) else {
        return Ok(None);
    };
    match value.as_int() {
        Ok(number) if number >= 1 => usize::try_from(number)
            .map(Some)
            .map_err(ResultProblem::OutOfRange),
        Ok(number) => Err(ResultProblem::NotPositive {
            key: key.to_owned(),
            number,
        }),
        Err(type_name) => Err(ResultProblem::NotAnInteger {
            key: key.to_owned(),
            type_name: type_name.to_owned(),
        }),
    }
}

//! The read-only views a diagnostic policy sees: `Snapshot` and `Finding`, registered as Rhai types
//! with getters only. Each holds the wave's `Arc<AnalysisSnapshot>` (plus an index), so findings
//! are shared by every policy and never copied into Rhai maps.

use super::diagnostic::DiagnosticValue;
use crate::analysis::{AnalysisSnapshot, Finding};
use rhai::{Array, Dynamic, Engine, INT, ImmutableString, Map};
use std::sync::Arc;

/// What `evaluate(snapshot)` receives: the wave's snapshot, restricted to the findings of the
/// rules the policy declared in `RULES`.
#[derive(Clone, Debug)]
pub struct SnapshotView {
    snapshot: Arc<AnalysisSnapshot>,
    selected: Arc<[usize]>,
}

impl SnapshotView {
    /// A view of `snapshot` showing the findings whose rule is in `rules`, in snapshot order.
    pub fn new(snapshot: Arc<AnalysisSnapshot>, rules: &[String]) -> Self {
        let selected = snapshot
            .findings
            .iter()
            .enumerate()
            .filter(|(_, finding)| rules.contains(&finding.rule))
            .map(|(index, _)| index)
            .collect();
        Self { snapshot, selected }
    }

    /// How many findings the policy sees.
    pub fn len(&self) -> usize {
        self.selected.len()
    }

    /// True when the policy sees no finding.
    pub fn is_empty(&self) -> bool {
        self.selected.is_empty()
    }

    /// The snapshot behind the view.
    pub fn snapshot(&self) -> &AnalysisSnapshot {
        &self.snapshot
    }

    fn views(&self) -> impl Iterator<Item = FindingView> + '_ {
        self.selected.iter().map(|&index| FindingView {
            snapshot: Arc::clone(&self.snapshot),
            index,
        })
    }

    fn findings(&mut self) -> Array {
        self.views().map(Dynamic::from).collect()
    }
}

/// One finding as a policy sees it: 1-based `line`/`column`/`end_line`/`end_column`.
#[derive(Clone, Debug)]
pub struct FindingView {
    snapshot: Arc<AnalysisSnapshot>,
    index: usize,
}

impl FindingView {
    /// The finding behind the view.
    pub fn finding(&self) -> &Finding {
        &self.snapshot.findings[self.index]
    }
}

fn text(value: &str) -> ImmutableString {
    value.into()
}

/// A zero-based position as the 1-based integer policies see.
pub(super) fn one_based(value: usize) -> INT {
    INT::try_from(value).map_or(INT::MAX, |v| v.saturating_add(1))
}

/// Registers `Snapshot` and `Finding` (getters and `to_string` only) on `engine`.
pub(super) fn register(engine: &mut Engine) {
    engine
        .register_type_with_name::<SnapshotView>("Snapshot")
        .register_get("findings", SnapshotView::findings)
        .register_get("analyzer", |s: &mut SnapshotView| {
            text(&s.snapshot.analyzer)
        })
        .register_get("paths", |s: &mut SnapshotView| -> Array {
            s.snapshot
                .paths
                .iter()
                .map(|p| Dynamic::from(text(p)))
                .collect()
        })
        .register_get("complete", |s: &mut SnapshotView| s.snapshot.is_complete())
        .register_fn("to_string", |s: &mut SnapshotView| {
            format!(
                "Snapshot({}, {} findings)",
                s.snapshot.analyzer,
                s.selected.len()
            )
        });
    engine
        .register_fn(
            "report",
            |s: &mut SnapshotView, guidance: ImmutableString| -> Array {
                s.views()
                    .map(|f| Dynamic::from(DiagnosticValue::new(f, guidance.clone())))
                    .collect()
            },
        )
        .register_fn(
            "report",
            |s: &mut SnapshotView, guidance: Map| -> Result<Array, Box<rhai::EvalAltResult>> {
                s.views()
                    .map(|f| {
                        let text = guidance
                            .get(f.finding().rule.as_str())
                            .and_then(|g| g.read_lock::<ImmutableString>().map(|g| g.clone()))
                            .ok_or_else(|| {
                                format!("no guidance string for rule {:?}", f.finding().rule)
                            })?;
                        Ok(Dynamic::from(DiagnosticValue::new(f, text)))
                    })
                    .collect()
            },
        );
    engine.register_type_with_name::<DiagnosticValue>("Diagnostic");
    engine
        .register_type_with_name::<FindingView>("Finding")
        .register_get("rule", |f: &mut FindingView| text(&f.finding().rule))
        .register_get("severity", |f: &mut FindingView| {
            text(f.finding().severity.as_str())
        })
        .register_get("path", |f: &mut FindingView| text(&f.finding().path))
        .register_get("line", |f: &mut FindingView| {
            one_based(f.finding().range.start.line)
        })
        .register_get("column", |f: &mut FindingView| {
            one_based(f.finding().range.start.column)
        })
        .register_get("end_line", |f: &mut FindingView| {
            one_based(f.finding().range.end.line)
        })
        .register_get("end_column", |f: &mut FindingView| {
            one_based(f.finding().range.end.column)
        })
        .register_get("message", |f: &mut FindingView| text(&f.finding().message))
        .register_get("note", |f: &mut FindingView| match &f.finding().note {
            Some(note) => Dynamic::from(text(note)),
            None => Dynamic::UNIT,
        })
        .register_get("text_hash", |f: &mut FindingView| {
            text(&f.finding().text_hash)
        })
        .register_fn(
            "to_diagnostic",
            |f: &mut FindingView, guidance: ImmutableString| {
                DiagnosticValue::new(f.clone(), guidance)
            },
        )
        .register_fn("to_string", |f: &mut FindingView| {
            let finding = f.finding();
            format!(
                "{}:{}:{} {}",
                finding.path,
                finding.range.start.line + 1,
                finding.range.start.column + 1,
                finding.rule
            )
        });
}

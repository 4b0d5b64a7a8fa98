//! Everything a policy script can call, registered on the sandbox's engine in one place: the
//! read-only `Snapshot` and `Finding` views (getters, `to_string`, `report`, `to_diagnostic`), the
//! `Diagnostic` type they produce, and the checked natives that replace Rhai's unbounded ones.

use crate::run::diagnostic::DiagnosticValue;
use crate::sandbox::limits::SandboxLimits;
use crate::sandbox::natives;
use crate::sandbox::view::{FindingView, SnapshotView, one_based};
use rhai::{Array, Dynamic, Engine, ImmutableString, Map};

/// The getters of each type a policy reads, by the type's script name: what an unknown property
/// is compared with for a did-you-mean. A test checks each one against the registered getters.
pub(crate) const PROPERTIES: &[(&str, &[&str])] = &[
    ("Snapshot", &["findings", "analyzer", "paths", "complete"]),
    (
        "Finding",
        &[
            "rule",
            "severity",
            "path",
            "line",
            "column",
            "end_line",
            "end_column",
            "message",
            "note",
            "text_hash",
        ],
    ),
];

fn text(value: &str) -> ImmutableString {
    value.into()
}

/// Registers the policy API on `engine`, the natives bounded by `limits`.
pub(crate) fn register(engine: &mut Engine, limits: &SandboxLimits) {
    register_views(engine);
    natives::register(engine, limits);
}

/// Registers `Snapshot` and `Finding` (getters and `to_string` only) on `engine`.
fn register_views(engine: &mut Engine) {
    engine
        .register_type_with_name::<SnapshotView>("Snapshot")
        .register_get("findings", SnapshotView::findings)
        .register_get("analyzer", |s: &mut SnapshotView| {
            text(s.snapshot.analyzer.as_str())
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

#[cfg(test)]
mod tests {
    use super::PROPERTIES;
    use crate::Sandbox;
    use crate::sandbox::view::SnapshotView;
    use pi_native_hooks_analysis::AnalysisSnapshot;
    use pi_native_hooks_base::CancelToken;
    use pi_native_hooks_test_support::finding;
    use std::sync::Arc;

    #[test]
    fn every_listed_property_is_a_registered_getter() {
        let finding = finding("r", "a.ts", (0, 0), (0, 1), "0");
        let snapshot = Arc::new(AnalysisSnapshot {
            findings: vec![finding],
            ..AnalysisSnapshot::default()
        });
        let sandbox = Sandbox::default();
        for (type_name, properties) in PROPERTIES {
            for property in *properties {
                let target = if *type_name == "Snapshot" {
                    "s"
                } else {
                    "s.findings[0]"
                };
                let script = format!("fn f(s) {{ {target}.{property} }}");
                let ast = sandbox.compile(&script).unwrap();
                let view = SnapshotView::new(Arc::clone(&snapshot), &["r".into()]);
                let output = sandbox.call(&ast, "f", (view,), &CancelToken::new());
                assert!(
                    output.result.is_ok(),
                    "{type_name}.{property}: {:?}",
                    output.result
                );
            }
        }
    }
}

//! Fingerprints and the delivery memory: new or changed diagnostics only, resolved ones
//! forgotten, incomplete results never resolving anything, unrelated files untouched.

use pi_native_hooks::analysis::{AnalysisSnapshot, Finding, Position, Severity, SourceRange};
use pi_native_hooks::delivery::{
    Coverage, DeliveryMemory, FindingIndex, Fingerprint, KeyedDiagnostic, WaveDiagnostics,
};
use pi_native_hooks::policy::PolicyDiagnostic;

fn diagnostic(policy: &str, path: &str, line: usize, message: &str) -> PolicyDiagnostic {
    PolicyDiagnostic {
        path: path.into(),
        line,
        column: 1,
        end_line: line,
        end_column: 4,
        rule: "r".into(),
        policy: policy.into(),
        severity: Severity::Warning,
        message: message.into(),
        guidance: "g".into(),
    }
}

fn keyed(policy: &str, path: &str, line: usize, text: &str) -> KeyedDiagnostic {
    let d = diagnostic(policy, path, line, "m");
    KeyedDiagnostic {
        fingerprint: Fingerprint::of(&d, text),
        diagnostic: d,
    }
}

fn wave(diagnostics: Vec<KeyedDiagnostic>, covered: &[(&str, &str)]) -> WaveDiagnostics {
    let mut coverage = Coverage::default();
    for (path, policy) in covered {
        coverage.add(path, policy);
    }
    WaveDiagnostics::new(diagnostics, coverage)
}

#[test]
fn fingerprints_change_with_every_identifying_field() {
    let base = diagnostic("p", "a.ts", 1, "m");
    let fp = Fingerprint::of(&base, "t");
    assert_eq!(fp, Fingerprint::of(&base.clone(), "t"));
    assert_ne!(fp, Fingerprint::of(&base, "other text"));
    for changed in [
        PolicyDiagnostic {
            policy: "q".into(),
            ..base.clone()
        },
        PolicyDiagnostic {
            rule: "s".into(),
            ..base.clone()
        },
        PolicyDiagnostic {
            path: "b.ts".into(),
            ..base.clone()
        },
        PolicyDiagnostic {
            line: 2,
            ..base.clone()
        },
        PolicyDiagnostic {
            end_column: 9,
            ..base.clone()
        },
    ] {
        assert_ne!(fp, Fingerprint::of(&changed, "t"), "{changed:?}");
    }
    assert_eq!(fp.to_string().len(), 32);
}

#[test]
fn the_finding_index_uses_the_matched_text_hash_or_the_message() {
    let snapshot = AnalysisSnapshot {
        findings: vec![Finding {
            rule: "r".into(),
            severity: Severity::Warning,
            message: "m".into(),
            note: None,
            path: "a.ts".into(),
            range: SourceRange {
                start: Position { line: 0, column: 0 },
                end: Position { line: 0, column: 3 },
            },
            text_hash: "abc".into(),
        }],
        ..AnalysisSnapshot::default()
    };
    let index = FindingIndex::new(&snapshot);
    let at_finding = diagnostic("p", "a.ts", 1, "m");
    assert_eq!(
        index.key(at_finding.clone()).fingerprint,
        Fingerprint::of(&at_finding, "abc")
    );
    let elsewhere = diagnostic("p", "a.ts", 7, "m");
    let key = index.key(elsewhere.clone()).fingerprint;
    assert_ne!(key, Fingerprint::of(&elsewhere, "abc"));
    assert_ne!(
        key,
        index
            .key(diagnostic("p", "a.ts", 7, "other message"))
            .fingerprint
    );
}

#[test]
fn only_new_diagnostics_are_selected_and_fixed_ones_are_forgotten() {
    let mut memory = DeliveryMemory::new();
    let first = wave(
        vec![keyed("p", "a.ts", 1, "x"), keyed("p", "a.ts", 2, "y")],
        &[("a.ts", "p")],
    );
    let selection = memory.select(&first);
    assert_eq!((selection.fresh.len(), selection.known), (2, 0));
    assert_eq!(memory.settle(&first, selection.fresh.clone()), 0);
    assert_eq!(memory.remembered("a.ts"), 2);

    // Line 2 fixed, line 1 unchanged, line 3 new.
    let second = wave(
        vec![keyed("p", "a.ts", 1, "x"), keyed("p", "a.ts", 3, "z")],
        &[("a.ts", "p")],
    );
    let selection = memory.select(&second);
    assert_eq!(selection.known, 1);
    assert_eq!(
        selection
            .fresh
            .iter()
            .map(|k| k.diagnostic.line)
            .collect::<Vec<_>>(),
        [3]
    );
    assert_eq!(memory.settle(&second, selection.fresh.clone()), 1);
    assert_eq!(memory.remembered("a.ts"), 2);

    // The file deleted (analyzed, nothing found): everything resolved.
    let gone = wave(vec![], &[("a.ts", "p")]);
    assert_eq!(memory.settle(&gone, []), 2);
    assert!(memory.is_empty());
}

#[test]
fn incomplete_results_and_unrelated_files_resolve_nothing() {
    let mut memory = DeliveryMemory::new();
    let first = wave(
        vec![
            keyed("p", "a.ts", 1, "x"),
            keyed("q", "a.ts", 1, "x"),
            keyed("p", "b.ts", 1, "x"),
        ],
        &[("a.ts", "p"), ("a.ts", "q"), ("b.ts", "p")],
    );
    let all: Vec<_> = first.diagnostics.iter().collect();
    memory.settle(&first, all);
    assert_eq!(memory.len(), 3);

    // Policy q failed on a.ts (not covered); b.ts was not analyzed at all.
    let partial = wave(vec![], &[("a.ts", "p")]);
    assert_eq!(
        memory.settle(&partial, []),
        1,
        "only p's diagnostic on a.ts"
    );
    assert_eq!(
        (memory.remembered("a.ts"), memory.remembered("b.ts")),
        (1, 1)
    );

    // An undelivered (cut or carrier-less) diagnostic stays new.
    let next = wave(vec![keyed("p", "c.ts", 1, "x")], &[("c.ts", "p")]);
    memory.settle(&next, []);
    assert_eq!(memory.select(&next).fresh.len(), 1);
}

#[test]
fn wave_diagnostics_are_sorted_and_unique_per_fingerprint() {
    let a = keyed("p", "b.ts", 1, "x");
    let b = keyed("p", "a.ts", 9, "x");
    let w = wave(vec![a.clone(), b.clone(), a.clone()], &[]);
    assert_eq!(w.diagnostics, [b, a]);
}

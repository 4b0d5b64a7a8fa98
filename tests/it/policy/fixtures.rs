//! Policy fixture tests: the shipped policies pass their own fixtures through the real ast-grep
//! analyzer, and the runner reports noisy, missing, unknown-policy, empty and snapshot problems.
//! Set `PI_NATIVE_HOOKS_UPDATE_SNAPSHOTS=1` to rewrite the shipped snapshots.

#![expect(clippy::unwrap_used, reason = "test helpers: a panic is a failed test")]

use crate::support::{ConfigRoot, checkout};
use pi_native_hooks_analysis::load_source;
use pi_native_hooks_analysis::{
    AnalysisSnapshot, Analyzer, AnalyzerKey, Finding, Position, ScanLimits, Severity, SourceRange,
};
use pi_native_hooks_cli::fixtures::{SnapshotStatus, TestReport, run_fixtures};
use pi_native_hooks_config::ConfigSource;
use pi_native_hooks_policy::PolicyRegistry;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::sync::Arc;

fn builtin_analyzer() -> Analyzer {
    let (rules, errors) = load_source(&ConfigSource::BuiltIn);
    assert!(errors.is_empty(), "{errors:?}");
    Analyzer::new("ast-grep:builtin", rules, ScanLimits::default(), 1).unwrap()
}

fn describe(report: &TestReport) -> String {
    format!("{report:#?}")
}

#[test]
fn shipped_policies_pass_their_fixtures_with_the_real_analyzer() {
    let update = std::env::var_os("PI_NATIVE_HOOKS_UPDATE_SNAPSHOTS").is_some();
    let registry = PolicyRegistry::load(checkout());
    let report = run_fixtures(checkout(), &registry, &mut builtin_analyzer(), update);
    assert!(report.passed(), "{}", describe(&report));
    assert!(
        report.untested.is_empty(),
        "every shipped policy has fixtures: {:?}",
        report.untested
    );
    assert!(report.case_count() >= 10);
}

#[test]
fn example_policies_pass_their_fixtures() {
    // `examples/` is a config root of verification policies to copy (docs/verification.md).
    let examples = checkout().join("examples");
    let registry = PolicyRegistry::load(&examples);
    assert!(registry.problems().is_empty(), "{:?}", registry.problems());
    assert_eq!(registry.policies().len(), 1);
    let report = run_fixtures(&examples, &registry, &mut builtin_analyzer(), false);
    assert!(report.passed(), "{}", describe(&report));
    assert!(report.untested.is_empty(), "{:?}", report.untested);
    assert_eq!(report.case_count(), 3);
}

/// A stand-in analyzer: every line containing `BAD` is a finding of `rule-a`.
fn marker_analyzer(files: &[(String, String)]) -> Arc<AnalysisSnapshot> {
    let findings = files
        .iter()
        .flat_map(|(path, source)| {
            source.lines().enumerate().filter_map(move |(line, text)| {
                let column = text.find("BAD")?;
                Some(Finding {
                    rule: "rule-a".into(),
                    severity: Severity::Warning,
                    message: "bad marker".into(),
                    note: None,
                    path: path.clone().into(),
                    range: SourceRange {
                        start: Position { line, column },
                        end: Position {
                            line,
                            column: column + 3,
                        },
                    },
                    text_hash: "0".to_owned(),
                    fix: None,
                })
            })
        })
        .collect();
    Arc::new(AnalysisSnapshot {
        analyzer: AnalyzerKey::personal(),
        paths: files.iter().map(|(p, _)| p.clone()).collect(),
        findings,
        ..AnalysisSnapshot::default()
    })
}

/// Reports markers only on lines 1..=limit, so later markers go missing.
fn policy(id: &str, body: &str) -> String {
    format!(
        "const ID = \"{id}\";\nconst KIND = \"diagnostic\";\nconst ANALYZER = \"ast-grep\";\nconst RULES = [\"rule-a\"];\nfn evaluate(snapshot) {{ {body} }}\n"
    )
}

const FIXTURE: &str = "policy: markers
cases:
  - name: flags the marker
    files:
      - { path: a.ts, source: \"ok\\nBAD\\n\" }
    expect:
      - { rule: rule-a, path: a.ts, line: 2, column: 1 }
  - name: clean input
    files:
      - { path: b.ts, source: \"ok\\n\" }
    expect: []
";

fn temp_root() -> ConfigRoot {
    ConfigRoot::builder().dir("policies/tests").build()
}

#[test]
fn passing_fixtures_need_a_snapshot_which_update_writes() {
    let root = temp_root();
    root.write("policies/markers.rhai",
        &policy(
            "markers",
            "snapshot.findings.map(|f| #{ path: f.path, line: f.line, column: f.column, rule: f.rule, message: f.message, guidance: \"remove it\" })",
        ),
    );
    root.write("policies/tests/markers.yml", FIXTURE);
    let registry = PolicyRegistry::load(root.path());
    let first = run_fixtures(root.path(), &registry, &mut marker_analyzer, false);
    assert!(
        first.files[0]
            .cases
            .iter()
            .all(pi_native_hooks_cli::fixtures::CaseReport::passed),
        "{}",
        describe(&first)
    );
    assert_eq!(first.files[0].snapshot, SnapshotStatus::Missing);
    assert!(!first.passed());

    let updated = run_fixtures(root.path(), &registry, &mut marker_analyzer, true);
    assert_eq!(updated.files[0].snapshot, SnapshotStatus::Updated);
    assert!(updated.passed(), "{}", describe(&updated));
    let snap = fs::read_to_string(root.path().join("policies/tests/markers.snap")).unwrap();
    assert!(
        snap.contains(
            "a.ts:2:1-2:1 warning rule-a [markers]\n  message: bad marker\n  guidance: remove it"
        ),
        "{snap}"
    );
    assert!(snap.contains("## clean input\n(none)"), "{snap}");
    let mode = fs::metadata(root.path().join("policies/tests/markers.snap"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);

    let again = run_fixtures(root.path(), &registry, &mut marker_analyzer, false);
    assert!(again.passed(), "{}", describe(&again));

    // A changed guidance shows up as a snapshot difference.
    root.write("policies/markers.rhai",
        &policy(
            "markers",
            "snapshot.findings.map(|f| #{ path: f.path, line: f.line, column: f.column, rule: f.rule, message: f.message, guidance: \"delete it\" })",
        ),
    );
    let changed = run_fixtures(
        root.path(),
        &PolicyRegistry::load(root.path()),
        &mut marker_analyzer,
        false,
    );
    assert!(
        matches!(&changed.files[0].snapshot, SnapshotStatus::Differs { diff } if diff.contains("\n-  guidance: remove it\n") && diff.contains("\n+  guidance: delete it\n")),
        "{}",
        describe(&changed)
    );
    assert!(!changed.passed());
}

#[test]
fn noisy_and_missing_policies_are_reported() {
    let root = temp_root();
    // Silent policy: misses the marker.
    root.write("policies/markers.rhai", &policy("markers", "[]"));
    root.write("policies/tests/markers.yml", FIXTURE);
    let report = run_fixtures(
        root.path(),
        &PolicyRegistry::load(root.path()),
        &mut marker_analyzer,
        true,
    );
    assert_eq!(report.files[0].cases[0].outcome().as_str(), "missing");
    assert_eq!(report.files[0].cases[0].missing, ["a.ts:2:1 rule-a"]);
    assert!(!report.passed());

    // Noisy policy: reports a marker the fixture says is acceptable.
    root.write("policies/markers.rhai",
        &policy(
            "markers",
            "snapshot.findings.map(|f| #{ path: f.path, line: f.line, column: f.column, rule: f.rule, message: f.message, guidance: \"g\" })",
        ),
    );
    root.write(
        "policies/tests/markers.yml",
        &FIXTURE.replace("\"ok\\n\" }", "\"ok BAD\\n\" }"),
    );
    let report = run_fixtures(
        root.path(),
        &PolicyRegistry::load(root.path()),
        &mut marker_analyzer,
        true,
    );
    assert_eq!(
        report.files[0].cases[1].outcome().as_str(),
        "noisy",
        "{}",
        describe(&report)
    );
    assert_eq!(
        report.files[0].cases[1].noisy,
        ["b.ts:1:4 rule-a: bad marker"]
    );
}

#[test]
fn unknown_policies_malformed_fixtures_and_zero_tests_fail() {
    let root = temp_root();
    root.write("policies/markers.rhai", &policy("markers", "[]"));
    let empty = run_fixtures(
        root.path(),
        &PolicyRegistry::load(root.path()),
        &mut marker_analyzer,
        false,
    );
    assert!(!empty.passed());
    assert!(
        empty
            .problems
            .iter()
            .any(|p| p.message.contains("no policy tests found")),
        "{empty:?}"
    );
    assert_eq!(empty.untested, ["markers"]);

    root.write("policies/tests/ghost.yml", "policy: ghost\ncases: []\n");
    root.write(
        "policies/tests/typo.yml",
        "policy: markers\ncases:\n  - name: x\n    fils: []\n",
    );
    let report = run_fixtures(
        root.path(),
        &PolicyRegistry::load(root.path()),
        &mut marker_analyzer,
        false,
    );
    assert!(!report.passed());
    assert!(
        report.problems.iter().any(|p| p
            .message
            .contains("ghost.yml: names unknown policy \"ghost\"")),
        "{report:?}"
    );
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.message.contains("typo.yml") && p.message.contains("fils")),
        "{report:?}"
    );

    // A verification-style case for a diagnostic policy is malformed.
    root.write(
        "policies/tests/typo.yml",
        "policy: markers\ncases:\n  - name: x\n    changed: [a.ts]\n    requires: []\n",
    );
    root.remove("policies/tests/ghost.yml");
    let report = run_fixtures(
        root.path(),
        &PolicyRegistry::load(root.path()),
        &mut marker_analyzer,
        true,
    );
    assert_eq!(report.files[0].cases[0].outcome().as_str(), "error");
}

/// A policy over the type checker's snapshot: the runner does not run that analyzer, so its cases
/// give the findings; a case without them is an error naming what to add, and one whose finding
/// points outside its files names the finding. The marker analyzer must never be asked.
#[test]
fn a_type_checker_policy_is_tested_on_given_findings() {
    let root = temp_root();
    root.write(
        "policies/types.rhai",
        "const ID = \"types\";\nconst KIND = \"diagnostic\";\nconst ANALYZER = \"typescript\";\nconst RULES = [\"TS2322\"];\nfn evaluate(snapshot) { snapshot.report(\"fix the type\") }\n",
    );
    root.write(
        "policies/tests/types.yml",
        "policy: types
cases:
  - name: lists the selected code only
    files:
      - { path: a.ts, source: \"const n: number = 's';\\nf(1, 2);\\n\" }
    findings:
      - { rule: TS2322, path: a.ts, line: 1, column: 7, end_column: 8, message: \"Type 'string' is not assignable to type 'number'.\" }
      - { rule: TS2554, path: a.ts, line: 2, column: 6, message: \"Expected 1 arguments, but got 2.\" }
    expect:
      - { rule: TS2322, path: a.ts, line: 1, column: 7 }
  - name: without findings
    files:
      - { path: a.ts, source: \"const n: number = 's';\\n\" }
    expect: []
  - name: a finding elsewhere
    files:
      - { path: a.ts, source: \"ok\\n\" }
    findings:
      - { rule: TS2322, path: b.ts, line: 1, column: 1, message: m }
    expect: []
",
    );
    let mut never = |_: &[(String, String)]| -> Arc<AnalysisSnapshot> {
        panic!("a type checker policy's case must not reach the ast-grep analyzer")
    };
    let report = run_fixtures(
        root.path(),
        &PolicyRegistry::load(root.path()),
        &mut never,
        true,
    );
    let cases = &report.files[0].cases;
    assert!(cases[0].passed(), "{}", describe(&report));
    assert_eq!(
        cases[1].error.as_deref(),
        Some(
            "the test runner does not run the `typescript` analyzer: give its findings in `findings`"
        )
    );
    assert_eq!(
        cases[2].error.as_deref(),
        Some("given finding 1 (TS2322 at b.ts:1:1): its path is not among the case's `files`")
    );
    assert!(!report.passed());
    let snapshot = fs::read_to_string(root.path().join("policies/tests/types.snap")).unwrap();
    assert!(
        snapshot.contains("a.ts:1:7-1:8 warning TS2322 [types]\n  message: Type 'string' is not assignable to type 'number'.\n  guidance: fix the type"),
        "{snapshot}"
    );
    assert!(!snapshot.contains("TS2554"), "{snapshot}");
}

#[test]
fn the_committed_fixture_schema_is_current() {
    // Regenerate with PI_NATIVE_HOOKS_UPDATE_SNAPSHOTS=1 after changing the fixture types.
    let path = checkout().join("schemas/policy-fixture.schema.json");
    let generated = pi_native_hooks_cli::fixtures::fixture_schema();
    if std::env::var_os("PI_NATIVE_HOOKS_UPDATE_SNAPSHOTS").is_some() {
        fs::write(&path, &generated).unwrap();
    }
    let committed = fs::read_to_string(&path).unwrap();
    assert!(
        committed == generated,
        "{} is stale: run this test with PI_NATIVE_HOOKS_UPDATE_SNAPSHOTS=1 and commit it",
        path.display()
    );
    // The schema describes the fixture shape, and `init` ships exactly the committed file.
    let schema: serde_json::Value = serde_json::from_str(&committed).unwrap();
    assert_eq!(schema["required"], serde_json::json!(["policy", "cases"]));
    assert_eq!(pi_native_hooks_policy::FIXTURE_SCHEMA.1, committed);
}

#[test]
fn every_fixture_references_the_schema() {
    for (dir, reference) in [
        ("policies/tests", "../../schemas/policy-fixture.schema.json"),
        (
            "examples/policies/tests",
            "../../../schemas/policy-fixture.schema.json",
        ),
    ] {
        let dir = checkout().join(dir);
        let mut seen = 0;
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|ext| ext != "yml") {
                continue;
            }
            seen += 1;
            let text = fs::read_to_string(&path).unwrap();
            let first = text.lines().next().unwrap_or_default();
            assert_eq!(
                first,
                format!("# yaml-language-server: $schema={reference}"),
                "{}",
                path.display()
            );
            assert!(
                dir.join(reference).is_file(),
                "{reference} resolves from {}",
                dir.display()
            );
        }
        assert!(seen > 0, "no fixtures in {}", dir.display());
    }
}

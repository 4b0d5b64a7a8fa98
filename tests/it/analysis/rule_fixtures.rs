//! Valid/invalid fixtures for every shipped rule, run through the real ast-grep engine with the
//! built-in rule pack; the rendered findings are snapshot-tested.

use crate::support::snapshot::assert_snapshot;
use crate::support::{checkout, test_data};
use pi_native_hooks_analysis::{Analyzer, RuleSet, ScanLimits};
use pi_native_hooks_config::builtin;
use std::sync::Arc;

fn analyzer() -> Analyzer {
    let load = RuleSet::load(&builtin::rule_files(), &[]);
    assert!(
        load.errors.is_empty(),
        "built-in rules must load: {:?}",
        load.errors
    );
    Analyzer::new(
        "ast-grep:builtin",
        Arc::new(load.rules),
        ScanLimits::default(),
        1,
    )
    .expect("analyzer starts")
}

fn scan_fixture(relative: &str) -> Vec<String> {
    let dir = test_data("fixtures");
    let text = std::fs::read_to_string(dir.join(relative)).expect("fixture is readable");
    let snapshot = analyzer().scan_sources(&[(relative.to_owned(), text)]);
    assert!(snapshot.is_complete(), "{snapshot:?}");
    snapshot
        .findings
        .iter()
        .map(|f| {
            format!(
                "{f} [{}..{}:{}]",
                f.severity,
                f.range.end.line + 1,
                f.range.end.column + 1
            )
        })
        .collect()
}

fn check_valid(relative: &str) {
    let findings = scan_fixture(relative);
    assert!(
        findings.is_empty(),
        "{relative} must be clean, got:\n{}",
        findings.join("\n")
    );
}

fn check_invalid(relative: &str, rule: &str, expected: usize) {
    let findings = scan_fixture(relative);
    assert!(
        findings.iter().all(|f| f.contains(rule)),
        "{relative}: only {rule} may fire:\n{}",
        findings.join("\n")
    );
    assert_eq!(
        findings.len(),
        expected,
        "{relative}:\n{}",
        findings.join("\n")
    );
    assert_snapshot!(relative.replace('/', "__"), findings.join("\n"));
}

#[test]
fn non_null_assertion_invalid_ts() {
    check_invalid(
        "rules/typescript-no-non-null-assertion/invalid.ts",
        "typescript-no-non-null-assertion-ts",
        7,
    );
}

#[test]
fn non_null_assertion_invalid_tsx() {
    check_invalid(
        "rules/typescript-no-non-null-assertion/invalid.tsx",
        "typescript-no-non-null-assertion-tsx",
        2,
    );
}

#[test]
fn non_null_assertion_valid_ts() {
    check_valid("rules/typescript-no-non-null-assertion/valid.ts");
}

#[test]
fn non_null_assertion_valid_tsx() {
    check_valid("rules/typescript-no-non-null-assertion/valid.tsx");
}

#[test]
fn dynamic_import_invalid_ts() {
    check_invalid(
        "rules/typescript-no-dynamic-import/invalid.ts",
        "typescript-no-dynamic-import-ts",
        4,
    );
}

#[test]
fn dynamic_import_invalid_tsx() {
    check_invalid(
        "rules/typescript-no-dynamic-import/invalid.tsx",
        "typescript-no-dynamic-import-tsx",
        1,
    );
}

#[test]
fn dynamic_import_valid_ts() {
    check_valid("rules/typescript-no-dynamic-import/valid.ts");
}

#[test]
fn dynamic_import_valid_tsx() {
    check_valid("rules/typescript-no-dynamic-import/valid.tsx");
}

/// The four fixture tests of one rule family: `invalid.ts` and `invalid.tsx` fire exactly the
/// given number of findings of the family's rule (snapshot-tested), `valid.ts` and `valid.tsx`
/// (look-alikes and justified suppressions) are clean.
macro_rules! family_fixtures {
    ($module:ident, $family:literal, ts: $ts:literal, tsx: $tsx:literal) => {
        mod $module {
            #[test]
            fn invalid_ts() {
                super::check_invalid(
                    concat!("rules/", $family, "/invalid.ts"),
                    concat!($family, "-ts"),
                    $ts,
                );
            }

            #[test]
            fn invalid_tsx() {
                super::check_invalid(
                    concat!("rules/", $family, "/invalid.tsx"),
                    concat!($family, "-tsx"),
                    $tsx,
                );
            }

            #[test]
            fn valid_ts() {
                super::check_valid(concat!("rules/", $family, "/valid.ts"));
            }

            #[test]
            fn valid_tsx() {
                super::check_valid(concat!("rules/", $family, "/valid.tsx"));
            }
        }
    };
}

family_fixtures!(explicit_any, "typescript-no-explicit-any", ts: 8, tsx: 2);
family_fixtures!(ts_suppression, "typescript-no-ts-suppression", ts: 6, tsx: 1);
family_fixtures!(lint_suppression, "typescript-no-lint-suppression", ts: 8, tsx: 1);
family_fixtures!(focused_test, "typescript-no-focused-test", ts: 11, tsx: 1);
family_fixtures!(skipped_test, "typescript-no-skipped-test", ts: 12, tsx: 1);
family_fixtures!(empty_catch, "typescript-no-empty-catch", ts: 4, tsx: 1);
family_fixtures!(debugger, "typescript-no-debugger", ts: 3, tsx: 1);
family_fixtures!(console_log, "typescript-no-console-log", ts: 5, tsx: 1);
family_fixtures!(elision_placeholder, "typescript-no-elision-placeholder", ts: 10, tsx: 2);
family_fixtures!(unimplemented_stub, "typescript-no-unimplemented-stub", ts: 7, tsx: 1);

#[test]
fn explicit_any_is_not_steered_in_declaration_files() {
    let findings = scan_fixture("rules/typescript-no-explicit-any/valid.d.ts");
    assert!(findings.is_empty(), "{}", findings.join("\n"));
    // The same text as a source file is flagged: the file name, not the content, exempts it.
    let dir = test_data("fixtures");
    let text = std::fs::read_to_string(dir.join("rules/typescript-no-explicit-any/valid.d.ts"))
        .expect("fixture is readable");
    let snapshot = analyzer().scan_sources(&[("src/legacy.ts".to_owned(), text)]);
    assert!(snapshot.is_complete(), "{snapshot:?}");
    assert_eq!(snapshot.findings.len(), 3, "{:?}", snapshot.findings);
    assert!(
        snapshot
            .findings
            .iter()
            .all(|f| f.rule == "typescript-no-explicit-any-ts")
    );
}

#[test]
fn console_output_in_test_and_script_paths_is_not_steered() {
    check_valid("rules/typescript-no-console-log/__tests__/valid.ts");
    check_valid("rules/typescript-no-console-log/scripts/valid.ts");
    let dir = test_data("fixtures");
    let text =
        std::fs::read_to_string(dir.join("rules/typescript-no-console-log/__tests__/valid.ts"))
            .expect("fixture is readable");
    let mut sources = Vec::new();
    for path in [
        "src/parser.test.ts",
        "src/parser.spec.tsx",
        "test/parser.ts",
        "packages/a/tests/parser.ts",
        "src/__tests__/parser.ts",
        "src/__mocks__/fs.ts",
        "e2e/login.ts",
        "src/fixtures/input.ts",
        "scripts/release.ts",
        "bin/cli.ts",
        "bench/parse.ts",
        "src/parse.bench.ts",
        "benchmarks/parse.ts",
        "examples/basic.tsx",
    ] {
        sources.push((path.to_owned(), text.clone()));
    }
    // Not a test or script path: both dumps are reported.
    sources.push(("src/parser.ts".to_owned(), text.clone()));
    sources.push(("src/testing/parser.ts".to_owned(), text));
    let snapshot = analyzer().scan_sources(&sources);
    assert!(snapshot.is_complete(), "{snapshot:?}");
    let flagged: Vec<&str> = snapshot.findings.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        flagged,
        [
            "src/parser.ts",
            "src/parser.ts",
            "src/testing/parser.ts",
            "src/testing/parser.ts"
        ]
    );
}

#[test]
fn unused_suppressions_are_hints_and_other_rule_ids_do_not_suppress() {
    let findings = scan_fixture("suppressions/unused.ts");
    assert_snapshot!("suppressions__unused.ts", findings.join("\n"));
    assert_eq!(findings.len(), 3, "{}", findings.join("\n"));
    assert!(
        findings[0].starts_with("suppressions/unused.ts:3:1 unused-suppression"),
        "{}",
        findings[0]
    );
    assert!(
        findings[1].starts_with("suppressions/unused.ts:6:1 unused-suppression"),
        "{}",
        findings[1]
    );
    assert!(
        findings[2].starts_with("suppressions/unused.ts:7:24 typescript-no-non-null-assertion-ts"),
        "{}",
        findings[2]
    );
}

#[test]
fn unicode_before_a_match_counts_characters_not_bytes() {
    let findings = scan_fixture("rules/typescript-no-non-null-assertion/invalid.ts");
    // `export const label = "日本語のテキスト"; export const late = ` is 53 characters but 69 bytes.
    assert!(
        findings
            .iter()
            .any(|f| f.starts_with("rules/typescript-no-non-null-assertion/invalid.ts:7:54 ")),
        "{findings:#?}"
    );
}

#[test]
fn every_shipped_rule_file_is_embedded() {
    let dir = checkout().join("rules");
    let mut on_disk: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".yml"))
        .collect();
    on_disk.sort();
    let embedded: Vec<String> = builtin::RULE_FILES
        .iter()
        .map(|(n, _)| (*n).to_owned())
        .collect();
    assert_eq!(on_disk, embedded);
}

//! Valid/invalid fixtures for every shipped rule, run through the real ast-grep engine with the
//! built-in rule pack; the rendered findings are snapshot-tested.

use pi_native_hooks::analysis::{Analyzer, RuleSet, ScanLimits};
use pi_native_hooks::config::builtin;
use std::path::Path;
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
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
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
    insta::assert_snapshot!(relative.replace('/', "__"), findings.join("\n"));
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

#[test]
fn unused_suppressions_are_hints_and_other_rule_ids_do_not_suppress() {
    let findings = scan_fixture("suppressions/unused.ts");
    insta::assert_snapshot!("suppressions__unused.ts", findings.join("\n"));
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
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../rules");
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

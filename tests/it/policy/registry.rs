//! Loading, isolation, fan-out and reloads of the policy registry.

use crate::support::ConfigRoot;
use pi_native_hooks_analysis::{
    AnalysisSnapshot, AnalyzerKey, Finding, Position, Severity, SourceRange,
};
use pi_native_hooks_base::CancelToken;
use pi_native_hooks_policy::{
    FailureReason, PolicyRegistry, ProblemReason, RegistrySource, RunError, Sandbox, SandboxLimits,
};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::sync::Arc;
use std::time::Duration;

fn root() -> ConfigRoot {
    ConfigRoot::builder().dir("policies").build()
}

fn diagnostic(id: &str, body: &str) -> String {
    format!(
        "const ID = \"{id}\";\nconst KIND = \"diagnostic\";\nconst ANALYZER = \"ast-grep\";\nconst RULES = [\"rule-a\"];\nfn evaluate(snapshot) {{\n{body}\n}}\n"
    )
}

const REPORT_ALL: &str = "snapshot.findings.map(|f| #{ path: f.path, line: f.line, column: f.column, rule: f.rule, message: f.message, guidance: \"fix it\" })";

fn finding(path: &str, line: usize, rule: &str) -> Finding {
    Finding {
        rule: rule.into(),
        severity: Severity::Warning,
        message: format!("{rule} matched").into(),
        note: None,
        path: path.into(),
        range: SourceRange {
            start: Position { line, column: 4 },
            end: Position { line, column: 9 },
        },
        text_hash: "0".to_owned(),
        fix: None,
    }
}

fn snapshot(findings: Vec<Finding>) -> Arc<AnalysisSnapshot> {
    let mut paths: Vec<String> = findings.iter().map(|f| f.path.to_string()).collect();
    paths.dedup();
    Arc::new(AnalysisSnapshot {
        analyzer: AnalyzerKey::personal(),
        paths,
        findings,
        ..Default::default()
    })
}

#[test]
fn absent_root_is_an_inactive_registry_with_guidance() {
    let dir = tempfile::tempdir().unwrap();
    let registry = PolicyRegistry::load(&dir.path().join("missing"));
    assert!(!registry.is_active());
    assert!(registry.policies().is_empty() && registry.problems().is_empty());
    assert!(
        registry
            .guidance()
            .unwrap()
            .contains("pi-native-hooks init")
    );
    let fallback = PolicyRegistry::personal_or_builtin(&dir.path().join("missing"));
    assert_eq!(fallback.source(), &RegistrySource::Builtin);
}

#[test]
fn builtin_pack_loads_cleanly() {
    let registry = PolicyRegistry::builtin();
    assert!(registry.problems().is_empty(), "{:?}", registry.problems());
    let ids: Vec<&str> = registry
        .policies()
        .iter()
        .map(|p| p.contract.id.as_str())
        .collect();
    assert_eq!(
        ids,
        [
            "typescript-no-console-log",
            "typescript-no-debugger",
            "typescript-no-dynamic-import",
            "typescript-no-elision-placeholder",
            "typescript-no-empty-catch",
            "typescript-no-explicit-any",
            "typescript-no-focused-test",
            "typescript-no-lint-suppression",
            "typescript-no-non-null-assertion",
            "typescript-no-skipped-test",
            "typescript-no-ts-suppression",
            "typescript-no-unimplemented-stub",
            "typescript-type-errors"
        ]
    );
}

#[test]
fn broken_policies_never_hide_their_siblings_at_load_time() {
    let root = root();
    root.write_policy("a-good.rhai", &diagnostic("good", REPORT_ALL));
    root.write_policy("b-syntax.rhai", "const ID = \"x\";\nfn evaluate(s) { [ }\n");
    root.write_policy(
        "c-contract.rhai",
        "const ID = \"c\";\nconst KIND = \"diagnostic\";\n",
    );
    root.write_policy("d-duplicate.rhai", &diagnostic("good", "[]"));
    root.write_policy("e-writable.rhai", &diagnostic("writable", "[]"));
    fs::set_permissions(
        root.path().join("policies/e-writable.rhai"),
        fs::Permissions::from_mode(0o666),
    )
    .unwrap();
    std::os::unix::fs::symlink(
        root.path().join("policies/a-good.rhai"),
        root.path().join("policies/f-link.rhai"),
    )
    .unwrap();
    root.write_policy("notes.txt", "not a policy");
    root.write_policy("nested/z.rhai", "garbage");

    let registry = PolicyRegistry::load(root.path());
    assert!(registry.is_active());
    assert_eq!(registry.policies().len(), 1);
    assert_eq!(registry.policies()[0].contract.id, "good");
    let problems: Vec<String> = registry
        .problems()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(problems.len(), 5, "{problems:#?}");
    assert!(
        problems[0].contains("b-syntax.rhai:2:20: does not compile"),
        "{}",
        problems[0]
    );
    assert!(
        problems[1].contains("c-contract.rhai: missing `const ANALYZER`"),
        "{}",
        problems[1]
    );
    assert!(
        problems[2].contains("d-duplicate.rhai: duplicate policy id \"good\", already defined in")
    );
    assert!(
        problems[2].contains("a-good.rhai"),
        "names both files: {}",
        problems[2]
    );
    assert!(
        problems[3].contains("e-writable.rhai: mode 0666"),
        "{}",
        problems[3]
    );
    assert!(
        problems[4].contains("f-link.rhai: is a symbolic link"),
        "{}",
        problems[4]
    );

    let run = registry.evaluate_diagnostics(
        &snapshot(vec![finding("src/a.ts", 0, "rule-a")]),
        &CancelToken::new(),
    );
    assert_eq!(run.diagnostics.len(), 1);
    assert_eq!(run.diagnostics[0].policy, "good");
    assert_eq!(
        (run.diagnostics[0].line, run.diagnostics[0].column),
        (1, 5),
        "1-based"
    );
}

#[test]
fn failing_policies_never_hide_their_siblings_at_run_time() {
    let root = root();
    root.write_policy("1-throws.rhai", &diagnostic("throws", "throw \"broken\";"));
    root.write_policy("2-spins.rhai", &diagnostic("spins", "loop {}"));
    root.write_policy("3-not-array.rhai", &diagnostic("not-array", "42"));
    root.write_policy("4-bad-map.rhai",
        &diagnostic(
            "bad-map",
            "[#{ path: \"src/a.ts\", line: 0, column: 1, rule: \"rule-a\", message: \"m\", guidance: \"g\" }]",
        ),
    );
    root.write_policy("5-foreign-path.rhai",
        &diagnostic(
            "foreign",
            "[#{ path: \"/etc/passwd\", line: 1, column: 1, rule: \"rule-a\", message: \"m\", guidance: \"g\" }]",
        ),
    );
    root.write_policy("6-extra-key.rhai",
        &diagnostic(
            "extra",
            "[#{ path: \"src/a.ts\", line: 1, column: 1, rule: \"rule-a\", message: \"m\", guidance: \"g\", fix: \"x\" }]",
        ),
    );
    root.write_policy("7-good.rhai", &diagnostic("good", REPORT_ALL));
    let sandbox = Arc::new(Sandbox::new(SandboxLimits {
        deadline: Duration::from_millis(100),
        ..SandboxLimits::default()
    }));
    let registry = PolicyRegistry::load_with(root.path(), sandbox);
    assert_eq!(registry.policies().len(), 7, "{:?}", registry.problems());

    let run = registry.evaluate_diagnostics(
        &snapshot(vec![finding("src/a.ts", 2, "rule-a")]),
        &CancelToken::new(),
    );
    assert_eq!(
        run.diagnostics
            .iter()
            .map(|d| d.policy.as_str())
            .collect::<Vec<_>>(),
        ["good"]
    );
    let failures: Vec<(&str, String)> = run
        .failures
        .iter()
        .map(|f| (f.policy.as_str(), f.to_string()))
        .collect();
    assert_eq!(failures.len(), 6, "{failures:#?}");
    assert!(
        failures[0]
            .1
            .contains("1-throws.rhai:6:1: `evaluate` failed: Runtime error: broken"),
        "{}",
        failures[0].1
    );
    assert!(matches!(
        run.failures[1].reason,
        FailureReason::Run(RunError::Timeout(_) | RunError::Limit { .. })
    ));
    assert!(
        failures[2]
            .1
            .contains("must return an array of maps, not i64"),
        "{}",
        failures[2].1
    );
    assert!(
        failures[3].1.contains("`line` must be 1 or more"),
        "{}",
        failures[3].1
    );
    assert!(
        failures[4].1.contains("not part of the analyzed snapshot"),
        "{}",
        failures[4].1
    );
    assert!(
        failures[5].1.contains("unknown field `fix`"),
        "{}",
        failures[5].1
    );
}

#[test]
fn one_policy_cannot_change_what_another_sees() {
    let root = root();
    root.write_policy(
        "1-mutator.rhai",
        &diagnostic(
            "mutator",
            "let all = snapshot.findings; all.clear(); all.push(42); []",
        ),
    );
    root.write_policy(
        "2-setter.rhai",
        &diagnostic(
            "setter",
            "for f in snapshot.findings { f.rule = \"other\"; } []",
        ),
    );
    root.write_policy("3-observer.rhai", &diagnostic("observer", REPORT_ALL));
    let registry = PolicyRegistry::load(root.path());
    let shared = snapshot(vec![
        finding("src/a.ts", 0, "rule-a"),
        finding("src/b.ts", 3, "rule-a"),
    ]);
    let before = shared.findings.clone();
    let run = registry.evaluate_diagnostics(&shared, &CancelToken::new());
    assert_eq!(
        run.diagnostics.len(),
        2,
        "the observer sees every finding: {:?}",
        run.failures
    );
    assert!(
        run.diagnostics
            .iter()
            .all(|d| d.policy == "observer" && d.rule == "rule-a")
    );
    assert_eq!(
        run.failures.len(),
        1,
        "only the setter fails: {:?}",
        run.failures
    );
    assert_eq!(run.failures[0].policy, "setter");
    assert_eq!(shared.findings, before, "the shared snapshot is unchanged");
}

#[test]
fn policies_see_only_their_rules_and_analyzer() {
    let root = root();
    root.write_policy("a.rhai", &diagnostic("a", REPORT_ALL));
    root.write_policy(
        "b.rhai",
        &diagnostic("b", REPORT_ALL).replace("\"ast-grep\"", "\"ast-grep:builtin\""),
    );
    let registry = PolicyRegistry::load(root.path());
    let run = registry.evaluate_diagnostics(
        &snapshot(vec![
            finding("src/a.ts", 0, "rule-a"),
            finding("src/a.ts", 1, "rule-z"),
        ]),
        &CancelToken::new(),
    );
    assert_eq!(run.diagnostics.len(), 1, "{run:?}");
    assert_eq!(
        (
            run.diagnostics[0].policy.as_str(),
            run.diagnostics[0].rule.as_str()
        ),
        ("a", "rule-a")
    );
}

#[test]
fn a_previously_loaded_policy_that_now_fails_is_degraded() {
    let root = root();
    root.write_policy("a.rhai", &diagnostic("a", REPORT_ALL));
    root.write_policy("b.rhai", &diagnostic("b", REPORT_ALL));
    let first = PolicyRegistry::load(root.path());
    assert_eq!(first.policies().len(), 2);
    root.write_policy("b.rhai", "const ID = \"b\";\n");
    root.write_policy("c.rhai", "broken(");
    let second = first.reload();
    assert_eq!(second.policies().len(), 1);
    let problems = second.problems();
    assert_eq!(problems.len(), 2);
    assert_eq!(problems[0].degraded_from.as_deref(), Some("b"));
    assert!(
        problems[0]
            .to_string()
            .starts_with("policy \"b\" degraded: "),
        "{}",
        problems[0]
    );
    assert_eq!(problems[1].degraded_from, None, "c was never loaded");
    assert!(matches!(problems[1].reason, ProblemReason::Compile(_)));
    assert_ne!(first.digest_with([]), second.digest_with([]));
}

#[test]
fn digest_covers_policies_and_rule_files() {
    let root = root();
    root.write_policy("a.rhai", &diagnostic("a", REPORT_ALL));
    let registry = PolicyRegistry::load(root.path());
    let alone = registry.digest_with([]);
    assert_eq!(
        alone,
        PolicyRegistry::load(root.path()).digest_with([]),
        "stable"
    );
    assert_ne!(
        alone,
        registry.digest_with([("ast-grep/rules/r.yml", "id: r")])
    );
}

#[test]
fn builtin_pack_holds_no_verification_policy() {
    // Verification stays off until the user writes a policy for their project: a first run on
    // the built-in pack arms nothing.
    let registry = PolicyRegistry::builtin();
    let kinds: Vec<String> = registry
        .policies()
        .iter()
        .map(|p| p.contract.kind().to_string())
        .collect();
    assert!(kinds.iter().all(|k| k == "diagnostic"), "{kinds:?}");
    let run = registry.affected_requirements(
        &["src/a.ts".to_owned(), "package.json".to_owned()],
        &CancelToken::new(),
    );
    assert!(run.requirements.is_empty() && run.failures.is_empty());
}

#[test]
fn verification_requirements_follow_affects_predicates() {
    // This repository's own verification policy, in its `policies/` (not in the built-in pack).
    let registry = PolicyRegistry::load(crate::support::checkout());
    let paths: Vec<String> = ["engine/src/lib.rs", "docs/policies.md", "Cargo.lock"]
        .map(String::from)
        .into();
    let run = registry.affected_requirements(&paths, &CancelToken::new());
    assert!(run.failures.is_empty(), "{:?}", run.failures);
    let ours: Vec<(&str, &[String])> = run
        .requirements
        .iter()
        .filter(|r| r.policy == "pi-native-hooks-verification")
        .map(|r| (r.requirement.id.as_str(), r.paths.as_slice()))
        .collect();
    let both = ["engine/src/lib.rs".to_owned(), "Cargo.lock".to_owned()];
    let lib = ["engine/src/lib.rs".to_owned()];
    assert_eq!(
        ours,
        [
            ("test", &both[..]),
            ("clippy", &both[..]),
            ("fmt", &lib[..])
        ]
    );
    let docs_only =
        registry.affected_requirements(&["docs/policies.md".to_owned()], &CancelToken::new());
    assert!(
        docs_only.requirements.is_empty(),
        "{:?}",
        docs_only.requirements
    );
}

#[test]
fn a_non_boolean_affects_result_is_a_failure() {
    let root = root();
    root.write_policy("v.rhai",
        "const ID = \"v\";\nconst KIND = \"verification\";\nconst PROJECT = #{ manifest: \"package.json\", name: \"n\" };\nconst REQUIREMENTS = [#{ id: \"t\", command: \"npm test\", affects: \"f\" }];\nfn f(path) { path.len() }\n",
    );
    let registry = PolicyRegistry::load(root.path());
    let run = registry.affected_requirements(&["a.ts".to_owned()], &CancelToken::new());
    assert!(run.requirements.is_empty());
    assert!(
        run.failures[0]
            .to_string()
            .contains("`f` returned a malformed result: must return a boolean"),
        "{}",
        run.failures[0]
    );
}

#[test]
fn report_builds_diagnostics_natively_and_needs_guidance_for_every_rule() {
    let root = root();
    root.write_policy("a.rhai", &diagnostic("all", "snapshot.report(\"fix it\")"));
    root.write_policy(
        "b.rhai",
        &diagnostic("by-rule", "snapshot.report(#{ \"rule-b\": \"other\" })"),
    );
    root.write_policy(
        "c.rhai",
        &diagnostic(
            "one",
            "snapshot.findings.filter(|f| f.line > 1).map(|f| f.to_diagnostic(\"later\"))",
        ),
    );
    let registry = PolicyRegistry::load(root.path());
    let run = registry.evaluate_diagnostics(
        &snapshot(vec![
            finding("src/a.ts", 0, "rule-a"),
            finding("src/a.ts", 4, "rule-a"),
        ]),
        &CancelToken::new(),
    );
    let all: Vec<_> = run
        .diagnostics
        .iter()
        .filter(|d| d.policy == "all")
        .collect();
    assert_eq!(all.len(), 2);
    assert_eq!((all[0].line, all[0].column, all[0].end_column), (1, 5, 10));
    assert_eq!(
        (all[0].message.as_str(), all[0].guidance.as_str()),
        ("rule-a matched", "fix it")
    );
    let one: Vec<_> = run
        .diagnostics
        .iter()
        .filter(|d| d.policy == "one")
        .collect();
    assert_eq!(
        (one.len(), one[0].line, one[0].guidance.as_str()),
        (1, 5, "later")
    );
    assert_eq!(run.failures.len(), 1);
    assert_eq!(run.failures[0].policy, "by-rule");
    assert!(
        run.failures[0]
            .to_string()
            .contains("no guidance string for rule \"rule-a\""),
        "{}",
        run.failures[0]
    );
}

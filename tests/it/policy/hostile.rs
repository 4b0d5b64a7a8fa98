//! Hostile policies hit a bound and fail alone: print floods, big variables, big returned values
//! (custom diagnostics, map keys), natives whose output outgrows their input, closure cycles,
//! huge thrown values, `affects` floods and slow `affects` predicates. Each case asserts the
//! bounded outcome: the failure names the limit (and the line when it is known), the siblings'
//! diagnostics are still produced, logs are capped in bytes, undecided requirements are reported
//! as such, and cached answers run no predicate.
//!
//! The test crate installs the counting allocator, as the CLI and the Node addon do, so the
//! memory budget is enforced here. Wall-clock figures are measured by
//! `cargo run --release -p pi-native-hooks-benches --bin policy_bombs`, not asserted.

use pi_native_hooks_analysis::{
    AnalysisSnapshot, AnalyzerKey, Finding, Position, Severity, SourceRange,
};
use pi_native_hooks_base::CancelToken;
use pi_native_hooks_policy::MAX_MESSAGE_BYTES;
use pi_native_hooks_policy::PolicySource;
use pi_native_hooks_policy::budget;
use pi_native_hooks_policy::{
    AffectsOptions, DiagnosticRun, FailureReason, PolicyFailure, PolicyRegistry, ProblemReason,
    RegistrySource, RunError, Sandbox, SandboxLimits,
};
use std::sync::Arc;
use std::time::Duration;

const RULE: &str = "rule-a";

fn diagnostic(id: &str, body: &str) -> String {
    format!(
        "const ID = \"{id}\";\nconst KIND = \"diagnostic\";\nconst ANALYZER = \"ast-grep\";\nconst RULES = [\"{RULE}\"];\n{BIG}fn evaluate(snapshot) {{\n{body}\n}}\n"
    )
}

/// `big(seed, n)`: a string of `n` bytes starting with `seed` (`pad` grows a string in place).
const BIG: &str = "fn big(seed, n) { let s = seed; s.pad(n, \"x\"); s }\n";

/// Three MiB: under the 4 MiB string limit, so only the memory budget can stop many of them.
const THREE_MIB: usize = 3 * 1024 * 1024;

const GOOD: &str = "snapshot.report(\"fix it\")";

fn verification(id: &str, requirements: &[(&str, &str)], functions: &str) -> String {
    let requirements: Vec<String> = requirements
        .iter()
        .map(|(id, affects)| {
            format!("#{{ id: \"{id}\", command: \"make {id}\", affects: \"{affects}\" }}")
        })
        .collect();
    format!(
        "const ID = \"{id}\";\nconst KIND = \"verification\";\nconst PROJECT = #{{ manifest: \"package.json\", name: \"p\" }};\nconst REQUIREMENTS = [{}];\n{BIG}{functions}\n",
        requirements.join(", ")
    )
}

fn registry_with(limits: SandboxLimits, policies: &[(&str, String)]) -> PolicyRegistry {
    let sources = policies
        .iter()
        .map(|(name, text)| PolicySource {
            path: format!("{name}.rhai").into(),
            relative: format!("policies/{name}.rhai"),
            text: Ok(text.clone()),
        })
        .collect();
    PolicyRegistry::from_sources(
        RegistrySource::Builtin,
        sources,
        Arc::new(Sandbox::new(limits)),
    )
}

/// The default limits, with a deadline no loaded test machine reaches: these tests are about the
/// other bounds.
fn patient() -> SandboxLimits {
    SandboxLimits {
        deadline: Duration::from_secs(60),
        ..SandboxLimits::default()
    }
}

fn registry(policies: &[(&str, String)]) -> PolicyRegistry {
    registry_with(patient(), policies)
}

fn snapshot(findings: usize) -> Arc<AnalysisSnapshot> {
    let findings = (0..findings)
        .map(|line| Finding {
            rule: RULE.into(),
            severity: Severity::Warning,
            message: "matched".into(),
            note: None,
            path: "src/a.ts".into(),
            range: SourceRange {
                start: Position { line, column: 0 },
                end: Position { line, column: 1 },
            },
            text_hash: format!("{line}"),
            fix: None,
        })
        .collect();
    Arc::new(AnalysisSnapshot {
        analyzer: AnalyzerKey::personal(),
        paths: vec!["src/a.ts".to_owned()],
        findings,
        ..AnalysisSnapshot::default()
    })
}

/// Runs `bomb` beside a good sibling over `findings` findings: the sibling's diagnostics are all
/// there, and the bomb's single failure is returned.
fn run_beside_sibling(bomb: &str, findings: usize) -> (PolicyFailure, DiagnosticRun) {
    let registry = registry(&[
        ("bomb", diagnostic("bomb", bomb)),
        ("good", diagnostic("good", GOOD)),
    ]);
    assert!(registry.problems().is_empty(), "{:?}", registry.problems());
    let run = registry.evaluate_diagnostics(&snapshot(findings), &CancelToken::new());
    assert_eq!(run.diagnostics.len(), findings, "{:?}", run.failures);
    assert!(run.diagnostics.iter().all(|d| d.policy == "good"));
    assert_eq!(run.failures.len(), 1, "{:?}", run.failures);
    let failure = run.failures[0].clone();
    assert_eq!(failure.policy, "bomb");
    (failure, run)
}

fn limit_of(failure: &PolicyFailure) -> (&str, Option<usize>) {
    match &failure.reason {
        FailureReason::Run(RunError::Limit { limit, line }) => (limit.as_str(), *line),
        other => panic!("expected a limit, got {other:?}"),
    }
}

fn log_bytes(lines: &[String]) -> usize {
    lines.iter().map(String::len).sum()
}

#[test]
fn the_counting_allocator_is_installed() {
    assert!(budget::is_installed());
}

#[test]
fn a_print_flood_is_capped_in_lines_and_bytes() {
    let limits = patient();
    let sandbox = Sandbox::new(limits);
    let ast = sandbox
        .compile(&format!(
            "{BIG}fn f() {{\n let s = big(\"x\", {THREE_MIB});\n for i in 0..100 {{ print(s); debug(s); }}\n 7\n}}"
        ))
        .unwrap();
    let output = sandbox.call(&ast, "f", (), &CancelToken::new());
    assert_eq!(output.result.unwrap().as_int(), Ok(7));
    // At most 16 KiB of kept text, plus each cut line's marker and the final summary line.
    let (kept, summary) = output.log.split_at(output.log.len() - 1);
    assert!(
        log_bytes(kept) <= limits.max_log_bytes + kept.len() * 40,
        "{}",
        log_bytes(kept)
    );
    assert!(
        kept.iter()
            .all(|line| line.len() <= limits.max_log_line_bytes + 40)
    );
    assert!(
        kept[0].ends_with(&format!("… ({THREE_MIB} bytes, truncated)")),
        "{}",
        &kept[0][1000..]
    );
    assert!(
        summary[0].contains("not kept: the log keeps 100 lines and 16384 bytes per call"),
        "{}",
        summary[0]
    );
}

#[test]
fn a_sixteen_megabyte_string_is_refused_at_its_line() {
    let (failure, run) = run_beside_sibling(
        "let s = big(\"x\", 16000000);\nfor i in 0..100 { print(s); }\n[]",
        3,
    );
    // Line 5 is `big`'s `pad`, where the string would grow past the limit.
    assert_eq!(limit_of(&failure), ("length of string", Some(5)));
    assert!(run.logs.is_empty());
    assert!(
        failure.to_string().starts_with(
            "bomb.rhai: `evaluate` failed: exceeded the length of string limit (line 5)"
        ),
        "{failure}"
    );
}

#[test]
fn big_variables_are_stopped_by_the_memory_budget() {
    let body: String = (0..40)
        .map(|i| format!("let v{i} = big(\"{i}\", {THREE_MIB});\n"))
        .collect();
    let (failure, _) = run_beside_sibling(&format!("{body}[]"), 2);
    let (limit, line) = limit_of(&failure);
    assert_eq!(limit, "memory");
    assert!(line.is_some(), "{failure}");
    assert!(
        failure
            .to_string()
            .contains("exceeded the memory limit (line"),
        "{failure}"
    );
}

#[test]
fn distinct_big_guidance_per_finding_is_stopped_by_the_memory_budget() {
    let (failure, _) = run_beside_sibling(
        "snapshot.findings.map(|f| f.to_diagnostic(big(f.line.to_string(), 3000000)))",
        100,
    );
    assert_eq!(limit_of(&failure).0, "memory");
}

#[test]
fn returned_diagnostics_and_map_keys_are_measured() {
    // Within the memory budget, but the returned value holds 6 MiB of strings: in the guidance of
    // custom `Diagnostic` values, then in map keys. Neither is a string Rhai measures itself.
    let limits = SandboxLimits {
        memory_budget: 256 * 1024 * 1024,
        ..patient()
    };
    for (name, body) in [
        (
            "guidance",
            "snapshot.findings.map(|f| f.to_diagnostic(big(f.line.to_string(), 2000000)))",
        ),
        (
            "keys",
            "let out = [];\nfor f in snapshot.findings { let m = #{}; m[big(f.line.to_string(), 2000000)] = 1; out.push(m); }\nout",
        ),
    ] {
        let registry = registry_with(
            limits,
            &[
                ("bomb", diagnostic("bomb", body)),
                ("good", diagnostic("good", GOOD)),
            ],
        );
        let run = registry.evaluate_diagnostics(&snapshot(3), &CancelToken::new());
        assert_eq!(run.diagnostics.len(), 3, "{name}");
        assert_eq!(run.failures.len(), 1, "{name}: {:?}", run.failures);
        assert_eq!(
            limit_of(&run.failures[0]),
            ("length of string", None),
            "{name}"
        );
    }
}

#[test]
fn a_shared_guidance_counts_once() {
    // `report` shares one guidance string between every diagnostic: 10,000 findings with a
    // 1 KiB guidance are 10 MiB if counted per diagnostic, 1 KiB when counted once.
    let registry = registry(&[(
        "shared",
        diagnostic("shared", "snapshot.report(big(\"g\", 1024))"),
    )]);
    let run = registry.evaluate_diagnostics(&snapshot(10_000), &CancelToken::new());
    assert!(run.failures.is_empty(), "{:?}", run.failures);
    assert_eq!(run.diagnostics.len(), 10_000);
}

#[test]
fn native_split_of_a_big_string_is_refused_before_it_allocates() {
    for split in [
        "s.split(\"\")",
        "s.to_chars()",
        "s.split(\"x\")",
        "s.split_rev('x')",
    ] {
        let (failure, _) = run_beside_sibling(
            &format!("let s = big(\"x\", {THREE_MIB});\nlet parts = {split};\n[]"),
            1,
        );
        assert_eq!(
            limit_of(&failure),
            ("size of array/blob", Some(8)),
            "{split}"
        );
    }
    // `replace` is refused when its result would exceed the string limit.
    let (failure, _) = run_beside_sibling(
        "let s = big(\"x\", 100000);\nlet t = big(\"y\", 100000);\ns.replace(\"x\", t);\n[]",
        1,
    );
    assert_eq!(limit_of(&failure), ("length of string", Some(9)));
    // Within the limits they behave as Rhai's own.
    let sandbox = Sandbox::default();
    let ast = sandbox
        .compile(r#"fn f() { let s = "a,b,,c"; let t = "aXbX"; t.replace("X", "--"); `${s.split(",").len()}|${s.split(",", 2)}|${s.split_rev(',')}|${"a b".split()}|${"ab".to_chars()}|${t}|${"ab".split("")}` }"#)
        .unwrap();
    let value = sandbox.call(&ast, "f", (), &CancelToken::new()).result;
    assert_eq!(
        value.unwrap().into_string().unwrap(),
        r#"4|["a", "b,,c"]|["c", "", "b", "a"]|["a", "b"]|[a, b]|a--b--|["", "a", "b", ""]"#
    );
}

#[test]
fn a_closure_that_captures_does_not_compile() {
    let cycle = diagnostic(
        "cycle",
        "let m = #{ big: \"x\" };\nm.f = || m.big.len();\nlet g = m.f;\ng.call();\n[]",
    );
    let registry = registry(&[("cycle", cycle), ("good", diagnostic("good", GOOD))]);
    assert_eq!(registry.policies().len(), 1);
    let problem = &registry.problems()[0];
    assert!(
        matches!(
            &problem.reason,
            ProblemReason::Compile(RunError::Script { message, line: Some(8), .. })
                if message.contains("Undefined variable: m")
        ),
        "{problem}"
    );
    // Anonymous functions that capture nothing still work.
    let run = registry.evaluate_diagnostics(&snapshot(2), &CancelToken::new());
    assert_eq!(run.diagnostics.len(), 2);
}

#[test]
fn a_huge_thrown_value_becomes_a_short_message() {
    let (failure, _) = run_beside_sibling(
        &format!("let m = #{{}};\nm.big = big(\"x\", {THREE_MIB});\nthrow m;"),
        1,
    );
    let FailureReason::Run(RunError::Script { message, line, .. }) = &failure.reason else {
        panic!("{failure:?}");
    };
    assert_eq!(*line, Some(9));
    assert!(
        message.starts_with("Runtime error: #{\"big\": \"xxx"),
        "{message}"
    );
    assert!(message.ends_with("… (truncated)"), "{message}");
    assert!(message.len() <= MAX_MESSAGE_BYTES + 20, "{}", message.len());
    assert!(failure.to_string().len() < MAX_MESSAGE_BYTES + 100);
}

#[test]
fn a_malformed_result_message_is_truncated() {
    // The unknown key is echoed in the explanation: cut to the message limit.
    let (failure, _) = run_beside_sibling(
        "let m = #{ path: \"src/a.ts\", line: 1, column: 1, rule: \"rule-a\", message: \"m\", guidance: \"g\" };\nm[big(\"k\", 1000000)] = 1;\n[m]",
        1,
    );
    let FailureReason::Malformed(message) = &failure.reason else {
        panic!("{failure:?}");
    };
    assert!(message.len() <= MAX_MESSAGE_BYTES + 40, "{}", message.len());
    assert!(message.ends_with("bytes, truncated)"), "{message}");
}

fn paths(count: usize) -> Vec<String> {
    (0..count).map(|i| format!("src/file{i}.ts")).collect()
}

#[test]
fn an_affects_flood_keeps_capped_logs_or_none() {
    let policy = verification(
        "flood",
        &[("test", "affects_all")],
        &format!(
            "fn affects_all(path) {{\n let s = big(path, {THREE_MIB});\n for i in 0..100 {{ print(s); }}\n false\n}}"
        ),
    );
    let registry = registry(&[("flood", policy)]);
    let keep = AffectsOptions {
        budget: Duration::from_secs(600),
        keep_logs: true,
    };
    let run = registry.affected_requirements_with(&paths(3), &CancelToken::new(), keep);
    assert!(run.failures.is_empty(), "{:?}", run.failures);
    assert!(run.requirements.is_empty() && run.undecided.is_empty());
    assert_eq!(run.predicate_calls, 3);
    let lines: Vec<String> = run.logs.iter().map(|log| log.line.clone()).collect();
    // Each of the three calls keeps at most 16 KiB (plus markers).
    assert!(
        log_bytes(&lines) <= 3 * (16 * 1024 + 17 * 40 + 200),
        "{}",
        log_bytes(&lines)
    );

    // The gate's evaluation keeps none (and the cache answers without running anything).
    let quiet = AffectsOptions {
        keep_logs: false,
        ..keep
    };
    let run = registry.affected_requirements_with(&paths(4), &CancelToken::new(), quiet);
    assert!(run.logs.is_empty());
    assert_eq!(run.predicate_calls, 1);
}

/// A verification policy whose two predicates each spin for a while and answer `false`; `nonce`
/// makes its text (and so its cache key) unique to the test.
fn slow_policy(nonce: &str) -> String {
    verification(
        "slow",
        &[("test", "slow_a"), ("lint", "slow_b")],
        &format!(
            "fn spin() {{ let x = 0; for i in 0..300000 {{ x += 1; }} x }}\nfn slow_a(path) {{ spin() < 0 }}\nfn slow_b(path) {{ spin() < 0 }} // {nonce}"
        ),
    )
}

#[test]
fn requirements_left_when_the_budget_runs_out_are_undecided() {
    let registry = registry(&[("slow", slow_policy("budget"))]);
    let options = AffectsOptions {
        budget: Duration::from_millis(300),
        keep_logs: false,
    };
    let run = registry.affected_requirements_with(&paths(40), &CancelToken::new(), options);
    // 80 calls of tens of milliseconds each do not fit in 300 ms: neither requirement was found
    // affected, neither is reported unaffected, and no call counts as a policy failure.
    assert!(run.requirements.is_empty());
    assert!(run.failures.is_empty(), "{:?}", run.failures);
    let undecided: Vec<&str> = run
        .undecided
        .iter()
        .map(|u| u.requirement.id.as_str())
        .collect();
    assert_eq!(undecided, ["test", "lint"]);
    assert!(run.undecided[0].reason.contains("300 ms budget"));
    assert!(run.predicate_calls < 80, "{}", run.predicate_calls);

    // With no budget at all, nothing runs and everything is undecided.
    let none = AffectsOptions {
        budget: Duration::ZERO,
        keep_logs: false,
    };
    let registry = registry_with(patient(), &[("slow", slow_policy("no budget"))]);
    let run = registry.affected_requirements_with(&paths(2), &CancelToken::new(), none);
    assert_eq!(run.predicate_calls, 0);
    assert_eq!(run.undecided.len(), 2);
}

#[test]
fn a_cached_answer_decides_even_without_budget() {
    let policy = verification(
        "cached",
        &[("test", "affects_ts"), ("docs", "affects_md")],
        "fn affects_ts(path) { path.ends_with(\".ts\") }\nfn affects_md(path) { path.ends_with(\".md\") } // cached",
    );
    let registry = registry(&[("cached", policy)]);
    let first = vec!["src/a.ts".to_owned()];
    let run = registry.affected_requirements(&first, &CancelToken::new());
    assert_eq!(run.predicate_calls, 2);
    let none = AffectsOptions {
        budget: Duration::ZERO,
        keep_logs: false,
    };
    let both = vec!["src/a.ts".to_owned(), "README.md".to_owned()];
    let run = registry.affected_requirements_with(&both, &CancelToken::new(), none);
    assert_eq!(run.predicate_calls, 0);
    // `test` is affected by the cached answer for src/a.ts; `docs` has no answer for README.md.
    let affected: Vec<&str> = run
        .requirements
        .iter()
        .map(|r| r.requirement.id.as_str())
        .collect();
    assert_eq!(affected, ["test"]);
    assert_eq!(run.undecided.len(), 1);
    assert_eq!(run.undecided[0].requirement.id, "docs");
}

#[test]
fn a_second_evaluation_runs_no_predicate_and_an_edit_misses_the_cache() {
    let functions = "fn affects_ts(path) { print(path); path.ends_with(\".ts\") } // second";
    let policy = verification("second", &[("test", "affects_ts")], functions);
    let changed = paths(5);
    let registry = registry(&[("second", policy.clone())]);
    let first = registry.affected_requirements(&changed, &CancelToken::new());
    assert_eq!(first.predicate_calls, 5);
    assert_eq!(first.logs.len(), 5);
    let second = registry.affected_requirements(&changed, &CancelToken::new());
    assert_eq!(second.predicate_calls, 0);
    assert!(second.logs.is_empty(), "no predicate printed");
    assert_eq!(second.requirements, first.requirements);

    // The same text in another registry shares the answers; an edited policy does not.
    let reloaded = registry_with(patient(), &[("second", policy)]);
    assert_eq!(
        reloaded
            .affected_requirements(&changed, &CancelToken::new())
            .predicate_calls,
        0
    );
    let edited = verification(
        "second",
        &[("test", "affects_ts")],
        &functions.replace(".ts", ".tsx"),
    );
    let edited = registry_with(patient(), &[("second", edited)]);
    let run = edited.affected_requirements(&changed, &CancelToken::new());
    assert_eq!(run.predicate_calls, 5);
    assert!(run.requirements.is_empty());
}

#[test]
fn a_failing_predicate_is_not_cached() {
    let policy = verification(
        "throws",
        &[("test", "affects_all")],
        "fn affects_all(path) { throw \"no\"; } // throws",
    );
    let registry = registry(&[("throws", policy)]);
    for _ in 0..2 {
        let run = registry.affected_requirements(&paths(3), &CancelToken::new());
        assert_eq!(
            run.predicate_calls, 1,
            "the first failure stops the requirement"
        );
        assert_eq!(run.failures.len(), 1);
    }
}

#[test]
fn calls_get_their_own_stack_on_a_small_thread() {
    // A 256 KiB thread is far too small for the deepest recursion the limits allow in a debug
    // build; the call runs on its own stack and ends with the limit, not a crash.
    let outcome = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            let sandbox = Sandbox::default();
            let deep = format!(
                "fn r(n) {{ {}r(n + 1){} }} fn f() {{ r(0) }}",
                "(".repeat(10),
                ")".repeat(10)
            );
            let ast = sandbox.compile(&deep).unwrap();
            sandbox.call(&ast, "f", (), &CancelToken::new()).result
        })
        .unwrap()
        .join()
        .unwrap();
    assert!(
        matches!(&outcome, Err(RunError::Limit { limit, .. }) if limit == "call depth"),
        "{outcome:?}"
    );
}

#[test]
fn deeply_nested_values_do_not_exhaust_the_stack() {
    // Nest an array as deep as half a second allows, on a small thread: the call ends at its
    // deadline and the value is dropped on the call's own stack.
    let outcome = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            let sandbox = Sandbox::new(SandboxLimits {
                deadline: Duration::from_millis(500),
                ..SandboxLimits::default()
            });
            let ast = sandbox
                .compile("fn f() { let a = []; loop { a = [a]; } }")
                .unwrap();
            sandbox.call(&ast, "f", (), &CancelToken::new()).result
        })
        .unwrap()
        .join()
        .unwrap();
    assert!(
        matches!(&outcome, Err(RunError::Timeout(_) | RunError::Limit { .. })),
        "{outcome:?}"
    );
}

#[test]
fn a_deeply_nested_returned_value_is_refused() {
    let sandbox = Sandbox::new(patient());
    let ast = sandbox
        .compile("fn f() { let a = []; for i in 0..1100 { a = [a]; } a }")
        .unwrap();
    let outcome = sandbox.call(&ast, "f", (), &CancelToken::new()).result;
    assert!(
        matches!(&outcome, Err(RunError::Limit { limit, line: None }) if limit == "depth of a returned value"),
        "{outcome:?}"
    );
}

//! What `pi-native-hooks test` tells a policy author: one snapshot of the whole output per kind
//! of failure (a failing case, a snapshot mismatch, a missing snapshot, policies that do not
//! load, a malformed fixture, a policy failing at run time, no tests), `--filter`, and a summary
//! that names every failure.

#![expect(clippy::unwrap_used, reason = "test helpers: a panic is a failed test")]

use crate::support::ConfigRoot;
use crate::support::cli::cli;
use crate::support::snapshot::{assert_snapshot, redact};
use pi_native_hooks_cli::ExitStatus;

const DEBUGGER: &str = "typescript-no-debugger";

/// `pi-native-hooks test --config <root> <args>`.
fn run_test(root: &ConfigRoot, args: &[&str]) -> (ExitStatus, String, String) {
    let root_arg = root.path().to_str().unwrap();
    let all: Vec<&str> = ["test", "--config", root_arg]
        .into_iter()
        .chain(args.iter().copied())
        .collect();
    cli(root.path(), &all)
}

/// Runs `test --filter <policy>` on `root`, checks that it failed and that its summary names a
/// failure (never only "0 failed"), and returns stdout with the root redacted.
fn failed_run(root: &ConfigRoot, policy: &str) -> String {
    let (status, stdout, stderr) = run_test(root, &["--filter", policy]);
    assert_eq!(status, ExitStatus::Findings, "{stdout}{stderr}");
    let summary = stdout.lines().last().unwrap();
    let counts = summary
        .strip_prefix("policy tests FAILED: ")
        .unwrap_or_else(|| panic!("{summary}"));
    assert!(
        counts
            .split(", ")
            .any(|part| !part.ends_with(" passed") && part != "0 failed"),
        "a failed run names its failure: {summary}"
    );
    redact(&stdout, &[(root.path(), "[root]")])
}

fn edit(root: &ConfigRoot, relative: &str, from: &str, to: &str) {
    let path = root.path().join(relative);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{relative} holds {from:?}");
    root.write(relative, &text.replacen(from, to, 1));
}

/// A diagnostic policy over the debugger rules with `body` as `evaluate`'s body.
fn policy(id: &str, body: &str) -> String {
    format!(
        "const ID = \"{id}\";\nconst KIND = \"diagnostic\";\nconst ANALYZER = \"ast-grep\";\nconst RULES = [\"typescript-no-debugger-ts\"];\n\nfn evaluate(snapshot) {{\n{body}\n}}\n"
    )
}

const FIXTURE: &str = "policy: misspelled
cases:
  - name: flags a debugger statement
    files:
      - { path: src/a.ts, source: \"debugger;\\n\" }
    expect:
      - { rule: typescript-no-debugger-ts, path: src/a.ts, line: 1, column: 1 }
";

#[test]
fn a_passing_filtered_run_covers_only_the_named_policy() {
    let root = ConfigRoot::builtin();
    let (status, stdout, stderr) = run_test(&root, &["--filter", DEBUGGER]);
    assert_eq!(status, ExitStatus::Clean, "{stdout}{stderr}");
    assert_eq!(stderr, "", "no other policy is reported untested");
    let headers: Vec<&str> = stdout.lines().filter(|l| !l.starts_with(' ')).collect();
    assert_eq!(headers.len(), 2, "{stdout}");
    assert!(
        headers[0].starts_with("typescript-no-debugger ("),
        "{stdout}"
    );
    assert_eq!(headers[1], "policy tests ok: 4 cases passed, 0 failed");
}

#[test]
fn an_unknown_filter_exits_2_with_the_closest_id_and_every_loaded_one() {
    let root = ConfigRoot::builtin();
    let (status, stdout, stderr) = run_test(&root, &["--filter", "typescript-no-debuger"]);
    assert_eq!(status, ExitStatus::Error);
    assert_eq!(stdout, "");
    assert!(
        stderr.starts_with(
            "pi-native-hooks: error: --filter: no loaded policy has the id \"typescript-no-debuger\"; did you mean `typescript-no-debugger`?\nloaded policies: typescript-no-console-log, typescript-no-debugger, "
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("typescript-no-unimplemented-stub"),
        "{stderr}"
    );

    // A policy that failed to load cannot be filtered on; its file is named.
    root.write_policy("mine.rhai", "const ID = ;\n");
    let (status, _, stderr) = run_test(&root, &["--filter", "mine"]);
    assert_eq!(status, ExitStatus::Error);
    assert!(!stderr.contains("did you mean"), "{stderr}");
    assert!(
        stderr.contains(
            "1 policy file(s) failed to load (run `test` without --filter for details):\n  "
        ) && stderr.contains("policies/mine.rhai"),
        "{stderr}"
    );
}

#[test]
fn a_failing_case_shows_line_column_and_message() {
    let root = ConfigRoot::builtin();
    // The fixture expects the wrong column.
    edit(
        &root,
        "policies/tests/typescript-no-debugger.yml",
        "line: 2, column: 3",
        "line: 2, column: 4",
    );
    let out = failed_run(&root, DEBUGGER);
    assert!(
        out.contains(
            "      unexpected: src/total.ts:2:3 typescript-no-debugger-ts: A `debugger` statement"
        ) && out.contains(
            "      missing: src/total.ts:2:4 typescript-no-debugger-ts (reported at column 3)"
        ),
        "{out}"
    );
    assert!(
        out.ends_with("policy tests FAILED: 3 cases passed, 1 failed\n"),
        "{out}"
    );
    assert_snapshot!("failing_case", out);
}

#[test]
fn a_snapshot_mismatch_is_a_unified_diff_naming_the_file() {
    let root = ConfigRoot::builtin();
    edit(
        &root,
        "policies/tests/typescript-no-debugger.snap",
        "guidance: Remove the",
        "guidance: Delete the",
    );
    let out = failed_run(&root, DEBUGGER);
    assert!(
        out.contains("    --- [root]/policies/tests/typescript-no-debugger.snap (snapshot)\n    +++ [root]/policies/tests/typescript-no-debugger.snap (rendered now)\n    @@ "),
        "{out}"
    );
    assert!(
        out.contains("\n    -  guidance: Delete the")
            && out.contains("\n    +  guidance: Remove the"),
        "{out}"
    );
    assert!(
        out.ends_with("policy tests FAILED: 4 cases passed, 0 failed, 1 snapshot mismatch\n"),
        "{out}"
    );
    assert_snapshot!("snapshot_mismatch", out);
}

#[test]
fn a_missing_snapshot_is_counted() {
    let root = ConfigRoot::builtin();
    root.remove("policies/tests/typescript-no-debugger.snap");
    let out = failed_run(&root, DEBUGGER);
    assert!(
        out.ends_with("policy tests FAILED: 4 cases passed, 0 failed, 1 snapshot missing\n"),
        "{out}"
    );
    assert_snapshot!("snapshot_missing", out);
}

#[test]
fn policies_that_do_not_load_show_file_line_column_a_frame_and_a_suggestion() {
    let root = ConfigRoot::builtin();
    // A missing `;` that Rhai reports at the `fn` two lines later.
    root.write_policy(
        "a-semicolon.rhai",
        &policy("a-semicolon", "  []").replace("-ts\"];\n", "-ts\"]\n"),
    );
    // A top-level constant misspelled, and used inside a function.
    root.write_policy(
        "b-constant.rhai",
        &policy("b-constant", "  let rules = RULE;\n  []"),
    );
    // A contract field misspelled.
    root.write_policy(
        "c-field.rhai",
        &policy("c-field", "  []").replace("const RULES", "const RULE"),
    );
    let out = failed_run(&root, DEBUGGER);
    assert!(
        out.contains("problem: [root]/policies/a-semicolon.rhai:4:44: does not compile: Expecting ';' to terminate this statement\n"),
        "{out}"
    );
    assert!(
        out.contains("problem: [root]/policies/b-constant.rhai:7:15: does not compile: Undefined variable: RULE; did you mean `RULES`?"),
        "{out}"
    );
    assert!(
        out.contains("c-field.rhai:4: unknown field `RULE` (allowed: ID, KIND, DESCRIPTION, ANALYZER, RULES); did you mean `RULES`?"),
        "{out}"
    );
    assert!(
        out.ends_with("policy tests FAILED: 4 cases passed, 0 failed, 3 policies failed to load\n"),
        "{out}"
    );
    assert_snapshot!("policies_not_loaded", out);
}

#[test]
fn a_malformed_fixture_names_its_file_line_and_column() {
    let root = ConfigRoot::builtin();
    root.write(
        "policies/tests/typo.yml",
        "policy: typescript-no-debugger\ncases:\n  - name: a\n    fils: []\n",
    );
    root.write(
        "policies/tests/ghost.yml",
        "policy: typescript-no-debuger\ncases: []\n",
    );
    let out = failed_run(&root, DEBUGGER);
    assert!(
        out.contains("problem: [root]/policies/tests/typo.yml:4:5: unknown field `fils`, expected one of name, files, expect, findings, changed, requires; did you mean `files`?\n"),
        "{out}"
    );
    assert!(!out.contains("<input>"), "{out}");
    assert!(
        out.ends_with(
            "policy tests FAILED: 4 cases passed, 0 failed, 1 fixture file could not be run\n"
        ),
        "{out}"
    );
    assert_snapshot!("fixture_not_run", out);

    // Without the filter, a fixture for an unknown policy gets the closest id.
    let (status, stdout, _) = run_test(&root, &[]);
    assert_eq!(status, ExitStatus::Findings);
    assert!(
        stdout.contains("ghost.yml: names unknown policy \"typescript-no-debuger\"; did you mean `typescript-no-debugger`?"),
        "{stdout}"
    );
}

#[test]
fn a_policy_failing_at_run_time_shows_the_line_and_the_property_it_meant() {
    let root = ConfigRoot::builtin();
    root.write_policy(
        "misspelled.rhai",
        &policy(
            "misspelled",
            "  snapshot.findings.map(|f| #{ path: f.path, line: f.lin, column: f.column, rule: f.rule, message: f.message, guidance: \"g\" })",
        ),
    );
    root.write("policies/tests/misspelled.yml", FIXTURE);
    let out = failed_run(&root, "misspelled");
    assert!(
        out.contains("      error: [root]/policies/misspelled.rhai:7:54: `evaluate` failed: Unknown property 'lin' - a getter is not registered for type 'Finding'; did you mean `line`?\n"),
        "{out}"
    );
    assert!(
        out.ends_with("policy tests FAILED: 0 cases passed, 1 failed, 1 snapshot missing\n"),
        "{out}"
    );
    assert_snapshot!("runtime_error", out);
}

#[test]
fn a_run_without_tests_says_so() {
    let root = ConfigRoot::builtin();
    root.write_policy("untested.rhai", &policy("untested", "  []"));
    let (status, stdout, stderr) = run_test(&root, &["--filter", "untested"]);
    assert_eq!(status, ExitStatus::Findings);
    assert_eq!(
        redact(&stdout, &[(root.path(), "[root]")]),
        "problem: no policy tests for policy \"untested\" found in [root]/policies/tests; add fixtures (see docs/policies.md)\npolicy tests FAILED: 0 cases passed, 0 failed, 1 other problem\n"
    );
    assert_eq!(
        stderr,
        "pi-native-hooks: warning: policy \"untested\" has no fixtures\n"
    );
}

//! Rules no policy consumes on the command line: `check` prints their findings as the rule's
//! message and note (what a Pi wave delivers, see `wave::unconsumed`), a consuming policy speaks
//! for its rule's findings, including those it leaves out, and `doctor` lists such rules without
//! calling the root unhealthy, while a rule that does not compile makes it unhealthy.

use crate::support::cli::cli;
use crate::support::{ConfigRoot, TestRepo};
use pi_native_hooks_cli::ExitStatus;
use pi_native_hooks_doctor::root_report;
use serde_json::Value;

const SGCONFIG: &str = "ruleDirs:\n  - rules\n";
const NO_VAR: &str = "id: no-var\nlanguage: TypeScript\nseverity: warning\nmessage: Use const.\nnote: Replace `var` with `const`.\nrule:\n  kind: variable_declaration\n";
const NO_EVAL: &str = "id: no-eval\nlanguage: TypeScript\nseverity: info\nmessage: eval runs arbitrary code.\nrule:\n  pattern: eval($$$)\n";
const FILTERING_POLICY: &str = r#"const ID = "var-policy";
const KIND = "diagnostic";
const ANALYZER = "ast-grep";
const RULES = ["no-var"];

fn evaluate(snapshot) {
    snapshot.findings
        .filter(|f| !f.path.starts_with("gen/"))
        .map(|f| f.to_diagnostic("Declare it with const."))
}
"#;

/// Path, rule, policy, guidance and note of one `--json` line.
type Brief<'a> = (
    &'a str,
    &'a str,
    Option<&'a str>,
    Option<&'a str>,
    Option<&'a str>,
);

fn root() -> ConfigRoot {
    ConfigRoot::builder()
        .file("sgconfig.yml", SGCONFIG)
        .file("rules/no-var.yml", NO_VAR)
        .file("rules/no-eval.yml", NO_EVAL)
        .policy("var-policy.rhai", FILTERING_POLICY)
        .build()
}

#[test]
fn check_prints_unconsumed_rules_raw_and_leaves_a_policy_its_rules() {
    let root = root();
    let repo = TestRepo::with_commit(&[
        ("gen/a.ts", "var x = 1;\n"),
        ("src/b.ts", "var y = 2;\neval(\"y\");\n"),
    ]);
    let config = root.path().to_str().unwrap();
    let (status, stdout, stderr) = cli(
        repo.path(),
        &[
            "check", "--config", config, "--json", "gen/a.ts", "src/b.ts",
        ],
    );
    assert_eq!(status, ExitStatus::Findings, "{stdout}{stderr}");
    let lines: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let brief: Vec<Brief<'_>> = lines
        .iter()
        .map(|l| {
            (
                l["path"].as_str().unwrap(),
                l["rule"].as_str().unwrap(),
                l["policy"].as_str(),
                l["guidance"].as_str(),
                l["note"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        brief,
        [
            (
                "src/b.ts",
                "no-var",
                Some("var-policy"),
                Some("Declare it with const."),
                Some("Replace `var` with `const`.")
            ),
            ("src/b.ts", "no-eval", None, None, None),
        ],
        "gen/a.ts is left out by the policy that consumes no-var: {stdout}"
    );
}

#[test]
fn doctor_lists_the_rules_no_policy_consumes_and_stays_healthy() {
    let root = root();
    let report = root_report(root.path());
    assert!(report.healthy(), "{report}");
    assert_eq!(report.rules, 2);
    assert_eq!(report.unconsumed_rules, ["no-eval"]);
    let (status, stdout, stderr) = cli(
        root.path(),
        &["doctor", "--config", root.path().to_str().unwrap()],
    );
    assert_eq!(status, ExitStatus::Clean, "{stdout}{stderr}");
    let rules: Vec<&str> = stdout
        .lines()
        .skip_while(|l| !l.starts_with("rules:"))
        .take_while(|l| !l.starts_with("policies:"))
        .collect();
    assert_eq!(
        rules,
        [
            "rules: 2 file(s) read, 2 rule(s) compiled",
            "  info: no policy consumes `no-eval`: its findings are delivered as the rule's message and note",
        ],
        "{stdout}"
    );
}

#[test]
fn doctor_is_unhealthy_while_a_rule_does_not_compile_and_names_its_file() {
    let root = root();
    root.write(
        "rules/broken.yml",
        "id: broken\nlanguage: TypeScript\nseverity: warning\nmessage: m\nrule:\n  pattern: \"foo(\"\n",
    );
    // An id with a line break cannot forge a doctor line.
    root.write(
        "rules/odd.yml",
        "id: \"odd\\n  ok: forged\"\nlanguage: TypeScript\nseverity: hint\nmessage: m\nrule:\n  kind: debugger_statement\n",
    );
    let report = root_report(root.path());
    assert!(!report.healthy(), "{report}");
    let broken = root.path().join("rules/broken.yml");
    assert_eq!(
        report.rule_problems,
        [format!(
            "{}: rule `broken` is invalid: Rule must specify a set of AST kinds to match. Try adding `kind` rule.",
            broken.display()
        )]
    );
    assert_eq!(report.unconsumed_rules, ["no-eval", "odd\n  ok: forged"]);

    let (status, stdout, _) = cli(
        root.path(),
        &["doctor", "--config", root.path().to_str().unwrap()],
    );
    assert_eq!(status, ExitStatus::Findings, "{stdout}");
    assert!(
        stdout.contains(&format!("  problem: {}\n", report.rule_problems[0])),
        "{stdout}"
    );
    assert!(
        stdout.contains("  info: no policy consumes `odd\\n  ok: forged`"),
        "{stdout}"
    );
    assert!(!stdout.contains("\n  ok: forged"), "{stdout}");
}

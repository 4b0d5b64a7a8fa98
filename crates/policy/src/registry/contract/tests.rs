//! The policy contract is read from the syntax tree and every violation names its line.

use super::*;
use crate::Sandbox;

fn errors(script: &str) -> Vec<ContractError> {
    let ast = Sandbox::default().compile(script).expect("compiles");
    read_contract(&ast, script).expect_err("should be invalid")
}

fn has(errors: &[ContractError], line: Option<usize>, needle: &str) -> bool {
    errors
        .iter()
        .any(|e| e.line == line && e.message.contains(needle))
}

const DIAGNOSTIC: &str = r#"const ID = "demo";
const KIND = "diagnostic";
const ANALYZER = "ast-grep";
const RULES = ["rule-a", "rule-b"];
fn evaluate(snapshot) { [] }
"#;

#[test]
fn valid_diagnostic_policy_is_read_without_running_it() {
    let script = format!("{DIAGNOSTIC}fn never_called() {{ loop {{}} }}\n");
    let ast = Sandbox::default().compile(&script).unwrap();
    let contract = read_contract(&ast, &script).unwrap();
    assert_eq!(contract.id, "demo");
    assert_eq!(contract.kind(), PolicyKind::Diagnostic);
    let PolicySpec::Diagnostic(spec) = contract.spec else {
        panic!("diagnostic")
    };
    assert_eq!(spec.rules, ["rule-a", "rule-b"]);
    assert!(spec.accepts_analyzer(&"ast-grep:personal".into()));
    assert!(spec.accepts_analyzer(&"ast-grep".into()));
    assert!(!spec.accepts_analyzer(&"ast-grepx".into()));
}

#[test]
fn valid_verification_policy_is_read() {
    let script = r#"const ID = "v";
const KIND = "verification";
const PROJECT = #{ manifest: "Cargo.toml", name: "demo" };
const REQUIREMENTS = [#{ id: "test", command: "  cargo test  ", affects: "code" }];
fn code(path) { path.ends_with(".rs") }
"#;
    let ast = Sandbox::default().compile(script).unwrap();
    let PolicySpec::Verification(spec) = read_contract(&ast, script).unwrap().spec else {
        panic!()
    };
    assert_eq!(spec.project.manifest, "Cargo.toml");
    assert_eq!(spec.requirements[0].command, "cargo test", "trimmed only");
    assert_eq!(spec.requirements[0].affects, "code");
}

fn verification_with_project(project: &str) -> String {
    format!(
        "const ID = \"v\";\nconst KIND = \"verification\";\nconst PROJECT = {project};\nconst REQUIREMENTS = [#{{ id: \"t\", command: \"npm test\", affects: \"f\" }}];\nfn f(p) {{ true }}\n"
    )
}

#[test]
fn a_glob_of_manifests_is_read_with_or_without_a_name() {
    for (project, name) in [
        (r#"#{ manifests: "packages/*/package.json" }"#, ""),
        (
            r#"#{ manifests: "crates/**/Cargo.toml", name: "core" }"#,
            "core",
        ),
    ] {
        let script = verification_with_project(project);
        let ast = Sandbox::default().compile(&script).unwrap();
        let PolicySpec::Verification(spec) = read_contract(&ast, &script).unwrap().spec else {
            panic!()
        };
        assert_eq!(spec.project.name, name);
        assert_eq!(spec.project.dir, None);
        let glob = spec.project.manifests.as_deref().expect("the glob");
        assert!(glob.ends_with(&spec.project.manifest), "{glob}");
    }
}

#[test]
fn a_bad_glob_of_manifests_is_named_with_its_line() {
    for (project, needle) in [
        (
            r#"#{ manifests: "../*/package.json" }"#,
            "has the component \"..\"",
        ),
        (
            r#"#{ manifests: "/packages/*/package.json" }"#,
            "has the component \"\"",
        ),
        (
            r#"#{ manifests: "packages/*/*.json" }"#,
            "ends in a pattern",
        ),
        (
            r#"#{ manifests: "packages/[a/package.json" }"#,
            "is not a valid glob",
        ),
        (
            r#"#{ manifests: "packages/*/package.json", dir: "a" }"#,
            "unknown field `dir` in `PROJECT` (allowed: manifests, name)",
        ),
        (r"#{ manifests: 3 }", "`PROJECT.manifests`"),
    ] {
        let found = errors(&verification_with_project(project));
        assert!(has(&found, Some(3), needle), "{project}: {found:?}");
    }
}

#[test]
fn missing_and_mistyped_fields_are_named() {
    let found = errors(
        "const KIND = \"diagnostic\";\nconst ANALYZER = 3;\nconst RULES = \"rule-a\";\nfn evaluate(s) { [] }\n",
    );
    assert!(has(&found, None, "missing `const ID`"), "{found:?}");
    assert!(
        has(&found, Some(2), "`ANALYZER` must be a string, not integer"),
        "{found:?}"
    );
    assert!(
        has(
            &found,
            Some(3),
            "`RULES` must be an array of rule ids, not string"
        ),
        "{found:?}"
    );
    let found = errors("const ID = \"x\";\nconst KIND = \"linter\";\n");
    assert!(
        has(
            &found,
            Some(2),
            "`KIND` must be \"diagnostic\" or \"verification\""
        ),
        "{found:?}"
    );
    let found = errors(
        "const ID = \"Bad Id\";\nconst KIND = \"diagnostic\";\nconst ANALYZER = \"a\";\nconst RULES = [\"r\"];\nfn evaluate(s) { [] }\n",
    );
    assert!(has(&found, Some(1), "lowercase"), "{found:?}");
}

#[test]
fn missing_function_and_wrong_arity_are_named() {
    let found = errors(&DIAGNOSTIC.replace("fn evaluate(snapshot) { [] }", ""));
    assert!(
        has(&found, Some(2), "missing function `fn evaluate(snapshot)`"),
        "{found:?}"
    );
    let found = errors(&DIAGNOSTIC.replace("fn evaluate(snapshot)", "fn evaluate(a, b)"));
    assert!(
        has(&found, Some(5), "`fn evaluate` takes 2 parameter(s)"),
        "{found:?}"
    );
    let found = errors(
        "const ID = \"v\";\nconst KIND = \"verification\";\nconst PROJECT = #{ manifest: \"Cargo.toml\", name: \"d\" };\nconst REQUIREMENTS = [\n  #{ id: \"t\", command: \"c\", affects: \"nope\" },\n];\n",
    );
    assert!(
        has(&found, Some(5), "missing function `fn nope(path)`"),
        "{found:?}"
    );
}

#[test]
fn non_literal_consts_and_top_level_code_are_refused() {
    let found = errors(&DIAGNOSTIC.replace(
        "const ANALYZER = \"ast-grep\";",
        "const ANALYZER = \"ast\" + \"-grep\";",
    ));
    assert!(
        has(&found, Some(3), "`ANALYZER` must be a literal value"),
        "{found:?}"
    );
    let found = errors(&DIAGNOSTIC.replace(
        "const RULES = [\"rule-a\", \"rule-b\"];",
        "const RULES = [\"a\", name()];",
    ));
    assert!(
        has(&found, Some(4), "`RULES` must be a literal value"),
        "{found:?}"
    );
    let found = errors(&format!("{DIAGNOSTIC}let x = 1;\nprint(x);\n"));
    assert!(
        has(&found, Some(6), "only `const NAME = <literal>;`"),
        "{found:?}"
    );
    assert!(
        has(&found, Some(7), "only `const NAME = <literal>;`"),
        "{found:?}"
    );
}

#[test]
fn unknown_and_duplicate_fields_are_refused() {
    let found = errors(&format!(
        "{DIAGNOSTIC}const PROJECT = #{{}};\nconst EXTRA = 1;\n"
    ));
    assert!(has(&found, Some(6), "unknown field `PROJECT`"), "{found:?}");
    assert!(has(&found, Some(7), "unknown field `EXTRA`"), "{found:?}");
    let found = errors(
        "const ID = \"v\";\nconst KIND = \"verification\";\nconst PROJECT = #{ manifest: \"Cargo.toml\", name: \"d\", extra: 1 };\nconst REQUIREMENTS = [\n  #{ id: \"t\", command: \"c\", affects: \"f\" },\n  #{ id: \"t\", command: \"d\", affects: \"f\" },\n  #{ id: \"u\", command: \"d\" },\n];\nfn f(p) { true }\n",
    );
    assert!(
        has(&found, Some(3), "unknown field `extra` in `PROJECT`"),
        "{found:?}"
    );
    assert!(
        has(&found, Some(6), "duplicate requirement id \"t\""),
        "{found:?}"
    );
    assert!(has(&found, Some(7), "missing field `affects`"), "{found:?}");
}

//! Diagnostic policies over the type checker's snapshot: `ANALYZER = "typescript"` with chosen
//! codes sees exactly those; `"TS*"` sees every code; an ast-grep policy sees none of them.

use super::analyzer::{Harness, assert_complete, patient};
use crate::support::typescript::{ts7_project, write};
use pi_native_hooks_base::CancelToken;
use pi_native_hooks_policy::{
    PolicyRegistry, PolicySource, RegistrySource, Sandbox, SandboxLimits,
};
use std::sync::Arc;
use std::time::Duration;

fn registry(policies: &[(&str, &str)]) -> PolicyRegistry {
    let sources = policies
        .iter()
        .map(|(name, text)| PolicySource {
            path: format!("{name}.rhai").into(),
            relative: format!("policies/{name}.rhai"),
            text: Ok((*text).to_owned()),
        })
        .collect();
    PolicyRegistry::from_sources(
        RegistrySource::Builtin,
        sources,
        Arc::new(Sandbox::new(SandboxLimits {
            deadline: Duration::from_secs(60),
            ..SandboxLimits::default()
        })),
    )
}

fn policy(id: &str, analyzer: &str, rules: &str) -> String {
    format!(
        "const ID = \"{id}\";\nconst KIND = \"diagnostic\";\nconst ANALYZER = \"{analyzer}\";\nconst RULES = {rules};\nfn evaluate(snapshot) {{\n  snapshot.findings.map(|f| f.to_diagnostic(\"Fix the type.\"))\n}}\n"
    )
}

#[test]
fn a_policy_selecting_one_type_error_code_sees_exactly_those_and_ts_star_sees_all() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    ts7_project(root);
    let mut h = Harness::new(root, patient());
    h.commit(
        root,
        "src/a.ts",
        "export function f(x: number) { return x; }\n",
    );
    write(
        root,
        "src/a.ts",
        "export function f(x: number) { return x; }\nconst n: number = \"s\";\nf(\"t\");\nexport { n };\n",
    );
    let snapshot = h.analyzer.scan(root, &["src/a.ts".to_owned()]);
    assert_complete(&snapshot);
    let rules: Vec<&str> = snapshot.findings.iter().map(|f| f.rule.as_str()).collect();
    assert_eq!(rules, ["TS2322", "TS2345"]);

    let one = policy("only-2345", "typescript", "[\"TS2345\"]");
    let all = policy("every-code", "typescript", "[\"TS*\"]");
    let grep = policy("ast-grep-only", "ast-grep", "[\"TS2345\"]");
    let registry = registry(&[("one", &one), ("all", &all), ("grep", &grep)]);
    assert!(registry.problems().is_empty(), "{:?}", registry.problems());
    let run = registry.evaluate_diagnostics(&snapshot, &CancelToken::new());
    assert!(run.failures.is_empty(), "{:?}", run.failures);
    let mut seen: Vec<(String, String)> = run
        .diagnostics
        .iter()
        .map(|d| (d.policy.as_str().to_owned(), d.rule.as_str().to_owned()))
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        [
            ("every-code".to_owned(), "TS2322".to_owned()),
            ("every-code".to_owned(), "TS2345".to_owned()),
            ("only-2345".to_owned(), "TS2345".to_owned()),
        ]
    );
}

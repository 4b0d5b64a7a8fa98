//! Policy changes: a changed requirement digest, a missing or failing policy and a failing
//! predicate leave armed requirements `unknown` until rerun or waived — never silently cleared.

use crate::support::gate::{DEMO_POLICY, Session, continuation_text, success};
use crate::support::{ConfigRoot, TestRepo};
use pi_native_hooks_verification::{RequirementState, SettleDecision};

/// A session where `npm test` passed, about to be resumed.
fn passed() -> Session {
    let mut session = Session::demo();
    session.edit("src/a.ts", "export const a = 2;\n");
    session.run("npm test", success());
    assert_eq!(session.state("test"), RequirementState::Passed);
    session
}

/// A diagnostic policy (the demo root's second policy) whose guidance can be edited.
const GUIDANCE_POLICY: &str = r#"
const ID = "demo-guidance";
const KIND = "diagnostic";
const ANALYZER = "ast-grep";
const RULES = ["no-console"];

fn evaluate(snapshot) {
    snapshot.report("Remove the console call.")
}
"#;

/// A session with the demo policy and a diagnostic policy where `npm test` passed, with both
/// requirements armed (`docs` not run), about to be resumed.
fn passed_with_guidance() -> Session {
    let config = ConfigRoot::with_policies(&[
        ("demo.rhai", DEMO_POLICY),
        ("guidance.rhai", GUIDANCE_POLICY),
    ]);
    let mut session = Session::start(TestRepo::demo(), config, Vec::new());
    session.edit("src/a.ts", "export const a = 2;\n");
    session.edit("docs/guide.md", "# guide, edited\n");
    session.run("npm test", success());
    assert_eq!(session.state("test"), RequirementState::Passed);
    assert_eq!(session.state("docs"), RequirementState::NotRun);
    session
}

/// Resumes `session` after `edit` rewrote the demo policy (`None`: left as it is) and the
/// diagnostic policy, and returns the states of `test` and `docs`.
fn resumed_after(
    session: Session,
    demo: Option<String>,
    guidance: Option<String>,
) -> (Session, RequirementState, RequirementState) {
    if let Some(demo) = demo {
        session.config.write_policy("demo.rhai", &demo);
    }
    if let Some(guidance) = guidance {
        session.config.write_policy("guidance.rhai", &guidance);
    }
    let session = session.resume();
    assert!(
        session.restored.warnings.is_empty(),
        "{:?}",
        session.restored.warnings
    );
    let (test, docs) = (session.state("test"), session.state("docs"));
    (session, test, docs)
}

#[test]
fn editing_a_diagnostic_policy_leaves_a_passed_requirement_passed() {
    let (mut session, test, docs) = resumed_after(
        passed_with_guidance(),
        None,
        Some(GUIDANCE_POLICY.replace("Remove the console call.", "Use the logger instead.")),
    );
    assert_eq!(test, RequirementState::Passed);
    assert_eq!(docs, RequirementState::NotRun);
    let text = continuation_text(&session.settle()).to_owned();
    assert!(
        text.contains("`npm run docs`") && !text.contains("`npm test`"),
        "{text}"
    );
}

#[test]
fn comments_whitespace_and_another_requirement_leave_a_passed_requirement_passed() {
    let edited = format!("// edited\n{DEMO_POLICY}")
        .replace(
            "fn affects_code(path) {\n",
            "fn affects_code(path) {\n    // TypeScript\n\n",
        )
        .replace(
            "path.starts_with(\"docs/\")",
            "path.starts_with(\"docs/\") || path == \"mkdocs.yml\"",
        )
        .replace("\"npm run docs\"", "\"npm run docs:build\"");
    let (session, test, docs) = resumed_after(passed_with_guidance(), Some(edited), None);
    assert_eq!(test, RequirementState::Passed, "only `docs` was redefined");
    assert_eq!(docs, RequirementState::Unknown);
    let reason = session
        .requirement("docs")
        .unknown_reason()
        .expect("reason");
    assert!(reason.contains("`npm run docs:build`"), "{reason}");
}

#[test]
fn changing_the_predicate_makes_the_requirement_unknown_until_rerun() {
    let edited = DEMO_POLICY.replace("path == \"package.json\"", "path == \"deno.json\"");
    let (mut session, test, docs) = resumed_after(passed_with_guidance(), Some(edited), None);
    assert_eq!(test, RequirementState::Unknown);
    assert_eq!(docs, RequirementState::NotRun, "its predicate is unchanged");
    let reason = session
        .requirement("test")
        .unknown_reason()
        .expect("reason");
    assert!(reason.contains("definition changed"), "{reason}");
    assert!(continuation_text(&session.settle()).contains("`npm test`"));

    session.run("npm test", success());
    assert_eq!(session.state("test"), RequirementState::Passed);
}

#[test]
fn changing_a_function_the_predicate_calls_makes_the_requirement_unknown() {
    let policy = DEMO_POLICY
        .replace(
            "path.ends_with(\".ts\") || path == \"package.json\"",
            "is_code(path)",
        )
        .replace(
            "fn affects_docs",
            "fn is_code(path) { path.ends_with(\".ts\") }\n\nfn affects_docs",
        );
    let config = ConfigRoot::with_policies(&[("demo.rhai", &policy)]);
    let mut session = Session::start(TestRepo::demo(), config, Vec::new());
    session.edit("src/a.ts", "export const a = 2;\n");
    session.run("npm test", success());
    assert_eq!(session.state("test"), RequirementState::Passed);
    session.config.write_policy(
        "demo.rhai",
        &policy.replace("ends_with(\".ts\") }", "ends_with(\".tsx\") }"),
    );
    let session = session.resume();
    assert_eq!(session.state("test"), RequirementState::Unknown);
}

#[test]
fn changing_the_project_makes_every_requirement_of_the_policy_unknown() {
    let session = passed_with_guidance();
    session.repo.write(
        "package.json",
        r#"{"name": "demo2", "scripts": {"test": "true"}}"#,
    );
    let edited = DEMO_POLICY.replace("name: \"demo\"", "name: \"demo2\"");
    let (session, test, docs) = resumed_after(session, Some(edited), None);
    assert_eq!(test, RequirementState::Unknown);
    assert_eq!(docs, RequirementState::Unknown);
    let reason = session
        .requirement("test")
        .unknown_reason()
        .expect("reason");
    assert!(reason.contains("project changed"), "{reason}");
}

#[test]
fn digest_change_on_reload_makes_armed_requirements_unknown() {
    let mut session = passed();
    session.config.write_policy(
        "demo.rhai",
        &DEMO_POLICY.replace("\"npm test\"", "\"npm run test:ci\""),
    );
    let registry = session.config.registry();
    session.gate.reload(&registry);
    session.persist();

    assert_eq!(session.state("test"), RequirementState::Unknown);
    assert_eq!(session.requirement("test").command, "npm run test:ci");
    session.run("npm run test:ci", success());
    assert_eq!(session.state("test"), RequirementState::Passed);
}

#[test]
fn missing_policy_keeps_armed_requirements_unknown_until_waived() {
    let session = passed();
    session.config.remove("policies/demo.rhai");
    let mut session = session.resume();

    let test = session.requirement("test");
    assert_eq!(test.state(), RequirementState::Unknown);
    assert!(
        test.detached
            .as_deref()
            .is_some_and(|why| why.contains("no longer loaded"))
    );
    assert!(
        session
            .gate
            .requirements()
            .iter()
            .all(|r| r.key.id != "docs"),
        "an inactive requirement of a missing policy has nothing to clear"
    );
    assert!(continuation_text(&session.settle()).contains("`npm test`"));

    let waiver = session
        .waive("the policy was deleted on purpose")
        .expect("waiver");
    assert_eq!(waiver.covers.len(), 1);
    assert!(
        session.gate.requirements().is_empty(),
        "a waived detached requirement is done"
    );
    assert_eq!(session.settle(), SettleDecision::Settle);
}

#[test]
fn missing_policy_requirement_clears_on_rerun() {
    let session = passed();
    session.config.remove("policies/demo.rhai");
    let mut session = session.resume();
    session.run("npm test", success());
    assert!(session.gate.requirements().is_empty());
    assert_eq!(session.settle(), SettleDecision::Settle);
}

#[test]
fn failing_policy_on_reload_leaves_armed_requirements_unknown() {
    let mut session = passed();
    let loaded = session.config.registry();
    session.config.write_policy(
        "demo.rhai",
        &DEMO_POLICY.replace("fn affects_docs", "fn affects_docs("),
    );
    session.gate.reload(&loaded.reload());
    session.persist();

    let test = session.requirement("test");
    assert_eq!(test.state(), RequirementState::Unknown);
    let why = test.detached.clone().expect("detached");
    assert!(why.contains("failed to load"), "{why}");
    assert!(matches!(session.settle(), SettleDecision::Continue(_)));
}

#[test]
fn failing_predicate_makes_the_requirement_unknown() {
    let config = ConfigRoot::with_policies(&[(
        "demo.rhai",
        &DEMO_POLICY.replace(
            "path.ends_with(\".ts\") || path == \"package.json\"",
            "if path == \"src/boom.ts\" { throw \"cannot classify\" } path.ends_with(\".ts\")",
        ),
    )]);
    let mut session = Session::start(TestRepo::demo(), config, Vec::new());
    session.edit("src/boom.ts", "export {};\n");

    assert_eq!(session.state("test"), RequirementState::Unknown);
    let reason = session
        .requirement("test")
        .unknown_reason()
        .expect("reason");
    assert!(reason.contains("cannot classify"), "{reason}");
}

#[test]
fn a_required_command_with_a_unicode_or_control_blank_is_a_load_error_naming_file_and_line() {
    // Rhai escapes for the characters a text editor would hide; the no-break and ideographic
    // spaces are written as they are.
    for (blank, code) in [
        ("\u{a0}", "U+00A0"),
        ("\\r", "U+000D"),
        ("\\x0B", "U+000B"),
        ("\u{3000}", "U+3000"),
        ("\\u200B", "U+200B"),
    ] {
        for command in [
            format!("npm test{blank}"),
            format!("{blank}npm test"),
            format!("npm{blank}test"),
        ] {
            let policy =
                DEMO_POLICY.replace("command: \"npm test\"", &format!("command: \"{command}\""));
            assert_ne!(policy, DEMO_POLICY);
            let config = ConfigRoot::with_policies(&[("demo.rhai", &policy)]);
            let registry = config.registry();
            assert!(registry.policies().is_empty(), "{command:?} loaded");
            let problems: Vec<String> = registry
                .problems()
                .iter()
                .map(ToString::to_string)
                .collect();
            let line = policy
                .lines()
                .position(|line| line.contains("id: \"test\""))
                .expect("the requirement's line")
                + 1;
            let expected = format!("demo.rhai:{line}: requirement `command`");
            assert!(
                problems.len() == 1
                    && problems[0].contains(&expected)
                    && problems[0].contains(code),
                "{command:?}: {problems:?}"
            );
        }
    }
}

#[test]
fn a_required_command_keeps_ascii_blanks_inside_and_loses_them_at_the_ends() {
    let policy = DEMO_POLICY.replace(
        "command: \"npm test\"",
        "command: \"\\t npm test\\tsuite \\n\"",
    );
    let config = ConfigRoot::with_policies(&[("demo.rhai", &policy)]);
    let registry = config.registry();
    assert!(registry.problems().is_empty(), "{:?}", registry.problems());
    let mut session = Session::start(TestRepo::demo(), config, Vec::new());
    assert_eq!(session.requirement("test").command, "npm test\tsuite");
    session.edit("src/a.ts", "export const a = 2;\n");
    session.run(" npm test\tsuite\n", success());
    assert_eq!(session.state("test"), RequirementState::Passed);
}

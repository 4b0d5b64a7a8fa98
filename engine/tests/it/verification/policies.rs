//! Policy changes: a changed registry digest, a missing or failing policy and a failing
//! predicate leave armed requirements `unknown` until rerun or waived — never silently cleared.

use crate::support::gate::{DEMO_POLICY, Session, continuation_text, success};
use crate::support::{ConfigRoot, TestRepo};
use pi_native_hooks::verification::{RequirementState, SettleDecision};

/// A session where `npm test` passed, about to be resumed.
fn passed() -> Session {
    let mut session = Session::demo();
    session.edit("src/a.ts", "export const a = 2;\n");
    session.run("npm test", success());
    assert_eq!(session.state("test"), RequirementState::Passed);
    session
}

#[test]
fn digest_change_makes_armed_requirements_unknown_until_rerun() {
    let session = passed();
    session
        .config
        .write_policy("demo.rhai", &format!("// edited\n{DEMO_POLICY}"));
    let mut session = session.resume();

    assert_eq!(session.state("test"), RequirementState::Unknown);
    let reason = session
        .requirement("test")
        .unknown_reason()
        .expect("reason");
    assert!(reason.contains("policies changed"), "{reason}");
    assert_eq!(session.state("docs"), RequirementState::Inactive);
    assert!(continuation_text(&session.settle()).contains("`npm test`"));

    session.run("npm test", success());
    assert_eq!(session.state("test"), RequirementState::Passed);
    assert_eq!(session.settle(), SettleDecision::Settle);
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

//! The exact-command evidence rule: which `bash` runs count as a pass, a failure, or not at all.

use crate::support::gate::{
    Session, bash, continuation_text, exit, read_call, success, write_call,
};
use pi_native_hooks_verification::{
    CallOutcome, RejectionReason, RequirementState, SettleDecision,
};

/// A session where a relevant write armed `npm test`.
fn armed() -> Session {
    let mut session = Session::demo();
    session.edit("src/a.ts", "export const a = 2;\n");
    assert_eq!(session.state("test"), RequirementState::NotRun);
    session
}

#[test]
fn exact_success_passes_and_records_identity_digest_and_revision() {
    let mut session = armed();
    let required = session.requirement("test").required_revision;
    let id = session.run("npm test", success());

    assert_eq!(session.state("test"), RequirementState::Passed);
    let evidence = session
        .requirement("test")
        .last_success
        .clone()
        .expect("evidence recorded");
    assert_eq!(evidence.tool_call_id, id);
    assert_eq!(evidence.command, "npm test");
    assert_eq!(evidence.project.name, "demo");
    assert_eq!(evidence.project.manifest, "package.json");
    assert_eq!(evidence.project.root, session.root());
    assert_eq!(evidence.registry_digest, session.gate.registry_digest());
    assert_eq!(Some(evidence.required_revision), required);
    assert!(evidence.started_at_revision >= evidence.required_revision);
    assert_eq!(session.settle(), SettleDecision::Settle);
}

#[test]
fn surrounding_whitespace_is_trimmed() {
    let mut session = armed();
    session.run("  npm test \n", success());
    assert_eq!(session.state("test"), RequirementState::Passed);
}

#[test]
fn surrounding_tabs_are_trimmed() {
    let mut session = armed();
    session.run("\tnpm test\t\n", success());
    assert_eq!(session.state("test"), RequirementState::Passed);
}

/// Blanks bash does not split words on: a no-break space, a carriage return, a vertical tab, an
/// ideographic space, and characters that render as nothing.
const NOT_BASH_BLANKS: [char; 7] = [
    '\u{a0}', '\r', '\u{b}', '\u{3000}', '\u{200b}', '\u{feff}', '\u{85}',
];

#[test]
fn commands_with_unicode_or_control_blanks_never_count() {
    let mut session = armed();
    let mut runs = 0;
    for blank in NOT_BASH_BLANKS {
        for command in [
            format!("npm test{blank}"),
            format!("{blank}npm test"),
            format!("npm{blank}test"),
            format!("npm test {blank} "),
            format!("  npm test\n{blank}"),
        ] {
            let id = session.run(&command, success());
            runs += 1;
            assert_eq!(
                session.state("test"),
                RequirementState::NotRun,
                "{command:?} counted as `npm test`"
            );
            // A different command, never a run; when it still reads as a try at `npm test`
            // (it contains it, or its first two words split on Unicode blanks are `npm test`)
            // the status names the command that counts.
            let near_miss = command.contains("npm test")
                || command.split_whitespace().take(2).eq(["npm", "test"]);
            let expected = near_miss.then(|| RejectionReason::NotExactCommand {
                expected: "npm test".to_owned(),
                dir: session.root(),
            });
            assert_eq!(
                rejected_by(&session, &id),
                expected,
                "{command:?} is a different command, not a run of `npm test`"
            );
        }
    }
    assert_eq!(runs, 35);
    assert!(matches!(session.settle(), SettleDecision::Continue(_)));
    session.run("npm test", success());
    assert_eq!(session.state("test"), RequirementState::Passed);
}

#[test]
fn nonzero_exit_is_a_failure() {
    let mut session = armed();
    session.run("npm test", exit(1));

    assert_eq!(session.state("test"), RequirementState::Failed);
    let failure = session
        .requirement("test")
        .last_failure
        .clone()
        .expect("failure recorded");
    assert_eq!(failure.exit_code, Some(1));
    assert!(continuation_text(&session.settle()).contains("failed with exit code 1"));
}

#[test]
fn exit_code_zero_reported_as_error_does_not_pass() {
    let mut session = armed();
    session.run(
        "npm test",
        CallOutcome::Finished {
            is_error: true,
            exit_code: Some(0),
        },
    );
    assert_eq!(session.state("test"), RequirementState::Failed);
}

#[test]
fn aborted_run_does_not_count() {
    let mut session = armed();
    let id = session.run("npm test", CallOutcome::NoResult);

    assert_eq!(session.state("test"), RequirementState::NotRun);
    let rejection = session
        .requirement("test")
        .last_rejection
        .clone()
        .expect("rejection recorded");
    assert_eq!(rejection.tool_call_id, id);
    assert_eq!(rejection.reason, RejectionReason::NoResult);
    assert!(continuation_text(&session.settle()).contains("did not count"));
}

#[test]
fn timed_out_run_is_a_failure_without_exit_code() {
    let mut session = armed();
    session.run(
        "npm test",
        CallOutcome::Finished {
            is_error: true,
            exit_code: None,
        },
    );
    assert_eq!(session.state("test"), RequirementState::Failed);
    assert!(continuation_text(&session.settle()).contains("without an exit code"));
}

#[test]
fn success_without_exit_code_does_not_count() {
    let mut session = armed();
    session.run(
        "npm test",
        CallOutcome::Finished {
            is_error: false,
            exit_code: None,
        },
    );
    assert_eq!(session.state("test"), RequirementState::NotRun);
    assert_eq!(
        session
            .requirement("test")
            .last_rejection
            .as_ref()
            .map(|r| &r.reason),
        Some(&RejectionReason::NoExitCode)
    );
}

#[test]
fn wrong_directory_does_not_count() {
    let mut session = armed();
    let id = session.id();
    let elsewhere = session.root().join("src");
    session.wave(vec![bash(&id, "npm test", &elsewhere, success())], |_| {});

    assert_eq!(session.state("test"), RequirementState::NotRun);
    assert_eq!(
        session
            .requirement("test")
            .last_rejection
            .as_ref()
            .map(|r| &r.reason),
        Some(&RejectionReason::WrongDirectory { cwd: elsewhere })
    );
}

/// The reason a near miss of `npm test` at the session's root leaves.
fn not_exact(session: &Session) -> Option<RejectionReason> {
    Some(RejectionReason::NotExactCommand {
        expected: "npm test".to_owned(),
        dir: session.root(),
    })
}

fn last_reason(session: &Session) -> Option<RejectionReason> {
    session
        .requirement("test")
        .last_rejection
        .clone()
        .map(|rejection| rejection.reason)
}

/// Why call `id` was rejected, when the last rejected run of `npm test` is that call.
fn rejected_by(session: &Session, id: &str) -> Option<RejectionReason> {
    session
        .requirement("test")
        .last_rejection
        .clone()
        .filter(|rejection| rejection.tool_call_id == id)
        .map(|rejection| rejection.reason)
}

#[test]
fn focused_command_does_not_count_and_is_a_near_miss() {
    let mut session = armed();
    session.run("npm test -- --watch", success());
    assert_eq!(session.state("test"), RequirementState::NotRun);
    assert_eq!(last_reason(&session), not_exact(&session));
}

#[test]
fn near_misses_name_the_exact_command_and_its_directory() {
    let mut session = armed();
    let root = session.root();
    for command in [
        "npm test && npm run lint".to_owned(),
        "npm test | tee out.log".to_owned(),
        format!("cd {} && npm test", root.display()),
        "npm test --silent".to_owned(),
        "npm  test -- -t focus".to_owned(),
    ] {
        let id = session.run(&command, success());
        assert_eq!(session.state("test"), RequirementState::NotRun, "{command}");
        assert_eq!(rejected_by(&session, &id), not_exact(&session), "{command}");
        let decision = session.settle();
        let text = continuation_text(&decision);
        assert!(
            text.contains(&format!(
                "did not count: not the exact command: expected `npm test` in {}",
                root.display()
            )),
            "{command}: {text}"
        );
    }
    // Other programs and other subcommands are not tries at `npm test`.
    for command in ["npm install", "npm run test", "npm t", "yarn test", "ls"] {
        let id = session.run(command, success());
        assert_eq!(rejected_by(&session, &id), None, "{command}");
    }
    // A near miss never counts, not even as a failure.
    session.run("npm test -- --watch", exit(1));
    assert_eq!(session.state("test"), RequirementState::NotRun);
    assert_eq!(session.requirement("test").last_failure, None);
}

#[test]
fn combined_command_does_not_count() {
    let mut session = armed();
    session.run("npm test && npm run lint", success());
    session.run("cd . && npm test", success());
    assert_eq!(session.state("test"), RequirementState::NotRun);
}

#[test]
fn aliased_command_does_not_count() {
    let mut session = armed();
    session.run("npm t", success());
    session.run("npm run test", success());
    session.run("npm  test", success());
    assert_eq!(session.state("test"), RequirementState::NotRun);
}

#[test]
fn check_racing_a_mutating_sibling_with_a_net_diff_does_not_count() {
    let mut session = armed();
    let (check, writer) = (session.id(), session.id());
    let root = session.root();
    session.wave(
        vec![
            bash(&check, "npm test", &root, success()),
            write_call(&writer, "src/b.ts", &root),
        ],
        |repo| repo.write("src/b.ts", "export const b = 1;\n"),
    );

    assert_eq!(session.state("test"), RequirementState::NotRun);
    assert_eq!(
        session
            .requirement("test")
            .last_rejection
            .as_ref()
            .map(|r| &r.reason),
        Some(&RejectionReason::MutatingSibling {
            tool_call_id: writer.into(),
            tool: "write".to_owned()
        })
    );
    assert!(matches!(session.settle(), SettleDecision::Continue(_)));
}

#[test]
fn check_racing_a_mutating_sibling_without_a_net_diff_does_not_count() {
    let mut session = armed();
    let revision = session.gate.revision();
    let (check, writer) = (session.id(), session.id());
    let root = session.root();
    let unchanged = session.repo.read("src/a.ts");
    session.wave(
        vec![
            bash(&check, "npm test", &root, success()),
            write_call(&writer, "src/a.ts", &root),
        ],
        |repo| repo.write("src/a.ts", &unchanged),
    );

    assert_eq!(
        session.gate.revision(),
        revision,
        "the wave changed nothing"
    );
    assert_eq!(session.state("test"), RequirementState::NotRun);
    assert!(matches!(
        session
            .requirement("test")
            .last_rejection
            .as_ref()
            .map(|r| &r.reason),
        Some(RejectionReason::MutatingSibling { .. })
    ));
    let text = continuation_text(&session.settle()).to_owned();
    assert!(text.contains("may have changed files"), "{text}");
}

#[test]
fn read_only_sibling_does_not_invalidate_a_check() {
    let mut session = armed();
    let (check, reader) = (session.id(), session.id());
    let root = session.root();
    session.wave(
        vec![
            bash(&check, "npm test", &root, success()),
            read_call(&reader, "src/a.ts", &root),
        ],
        |_| {},
    );
    assert_eq!(session.state("test"), RequirementState::Passed);
}

#[test]
fn run_before_arming_is_not_evidence() {
    let mut session = Session::demo();
    session.run("npm test", success());
    assert_eq!(session.state("test"), RequirementState::Inactive);
    assert_eq!(session.requirement("test").last_success, None);
    session.edit("src/a.ts", "export const a = 3;\n");
    assert_eq!(session.state("test"), RequirementState::NotRun);
}

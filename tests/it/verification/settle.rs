//! The settle decision: the continuation message and the continuation cap.

use crate::support::gate::{Session, bash, continuation_text, exit, success};
use crate::support::snapshot::assert_snapshot;
use crate::support::{ConfigRoot, TestRepo};
use pi_native_hooks_session::VerificationStatus;
use pi_native_hooks_verification::{RequirementState, SettleDecision, VERIFICATION_MESSAGE_TYPE};

#[test]
fn continuation_lists_the_exact_commands_with_the_project_root() {
    let mut session = Session::demo();
    session.edit("src/a.ts", "export const a = 2;\n");
    session.edit("docs/guide.md", "# guide, edited\n");

    let decision = session.settle();
    let SettleDecision::Continue(continuation) = &decision else {
        panic!("expected a continuation, got {decision:?}");
    };
    let commands: Vec<&str> = continuation
        .checks
        .iter()
        .map(|check| check.command.as_str())
        .collect();
    assert_eq!(commands, ["npm run docs", "npm test"]);
    let text = &continuation.content;
    assert_snapshot!(
        "continuation",
        text,
        redact = &[(session.repo.path(), "[repo]")]
    );
    assert_eq!(VERIFICATION_MESSAGE_TYPE, "pi-native-hooks-verification");
}

#[test]
fn settle_is_free_when_nothing_is_armed() {
    let mut session = Session::demo();
    assert_eq!(session.settle(), SettleDecision::Settle);
    assert_eq!(session.settle(), SettleDecision::Settle);
}

#[test]
fn continuation_cap_stops_forcing_after_n_continuations_without_progress() {
    let mut session = Session::demo();
    session.edit("src/a.ts", "export const a = 2;\n");
    for expected in 1..=8 {
        match session.settle() {
            SettleDecision::Continue(continuation) => {
                assert_eq!(continuation.without_progress, expected);
            }
            other => panic!("continuation {expected}: got {other:?}"),
        }
    }

    let SettleDecision::Exhausted(exhaustion) = session.settle() else {
        panic!("the ninth settle without progress must stop forcing");
    };
    assert_eq!(exhaustion.continuations, 8);
    let notice = exhaustion.notification.expect("the user is notified once");
    assert!(notice.contains("`npm test`"), "{notice}");
    let SettleDecision::Exhausted(again) = session.settle() else {
        panic!("stays exhausted without progress");
    };
    assert_eq!(again.notification, None);

    assert_eq!(
        session.state("test"),
        RequirementState::NotRun,
        "still pending"
    );
    let status = VerificationStatus::of(&session.gate);
    assert!(status.gate.exhausted);
    assert_eq!(status.gate.continuation_cap, 8);
}

#[test]
fn progress_resets_the_continuation_cap() {
    let mut session = Session::start_with(TestRepo::demo(), ConfigRoot::demo(), Vec::new(), 2);
    session.edit("src/a.ts", "export const a = 2;\n");
    continuation_text(&session.settle());
    continuation_text(&session.settle());
    assert!(matches!(session.settle(), SettleDecision::Exhausted(_)));

    session.run("npm test", exit(1));
    let decision = session.settle();
    assert!(continuation_text(&decision).contains("failed"));
    assert!(!VerificationStatus::of(&session.gate).gate.exhausted);

    session.run("npm test", exit(1));
    continuation_text(&session.settle());
    assert!(
        matches!(session.settle(), SettleDecision::Exhausted(_)),
        "rerunning the same failing check without a change is not progress"
    );

    session.edit("src/a.ts", "export const a = 3;\n");
    continuation_text(&session.settle());
    session.run("npm test", success());
    assert_eq!(session.settle(), SettleDecision::Settle);
}

#[test]
fn unprovable_changes_that_repeat_do_not_count_as_progress() {
    let mut session = Session::start_with(TestRepo::demo(), ConfigRoot::demo(), Vec::new(), 3);
    session.edit("src/a.ts", "export const a = 2;\n");
    std::fs::remove_dir_all(session.root().join(".git")).expect("remove .git");
    // The first continuation is for `npm test` not run; its first run turns it `unknown` (the
    // workspace cannot be proven), a new outstanding set. Every run after that leaves the same
    // set, so the cap of 3 allows exactly 3 more continuations.
    let mut without_progress = Vec::new();
    let exhaustion = loop {
        match session.settle() {
            SettleDecision::Continue(continuation) => {
                without_progress.push(continuation.without_progress);
            }
            SettleDecision::Exhausted(exhaustion) => break exhaustion,
            SettleDecision::Settle => panic!("an unprovable workspace never passes"),
        }
        assert!(without_progress.len() <= 4, "the cap must end the loop");
        let (id, root) = (session.id(), session.root());
        session.wave_outside_git(vec![bash(&id, "npm test", &root, success())]);
    };
    assert_eq!(without_progress, [1, 1, 2, 3]);
    assert_eq!(exhaustion.continuations, 3);
    assert_eq!(session.state("test"), RequirementState::Unknown);
}

#[test]
fn gate_can_move_between_threads() {
    fn shareable<T: Send + Sync + 'static>() {}
    shareable::<pi_native_hooks_verification::VerificationGate>();
}

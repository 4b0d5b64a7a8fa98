//! Checks that write: the files an accepted run of a requirement's exact command changes (it ran
//! alone and succeeded) are the state it verified, so they neither stale nor arm that
//! requirement; they still arm the others they affect. A sibling's changes, a failing run's, and
//! any change after the run still count.

use crate::support::gate::{Session, bash, continuation_text, exit, success, write_call};
use pi_native_hooks_verification::{
    CallOutcome, RejectionReason, RequirementState, SettleDecision,
};

/// A session where `npm test` is armed by a relevant write and not run yet.
fn armed() -> Session {
    let mut session = Session::demo();
    session.edit("src/a.ts", "export const a = 2;\n");
    assert_eq!(session.state("test"), RequirementState::NotRun);
    session
}

/// Runs `npm test` alone with `outcome`, the command itself writing `path`.
fn run_writing(
    session: &mut Session,
    outcome: CallOutcome,
    path: &'static str,
    content: &'static str,
) {
    let id = session.id();
    let root = session.root();
    session.wave(vec![bash(&id, "npm test", &root, outcome)], move |repo| {
        repo.write(path, content);
    });
}

#[test]
fn a_passing_check_that_rewrites_a_relevant_file_settles() {
    let mut session = armed();
    run_writing(
        &mut session,
        success(),
        "src/a.test.ts.snap.ts",
        "// snapshot\n",
    );

    assert_eq!(session.state("test"), RequirementState::Passed);
    assert_eq!(session.state("docs"), RequirementState::Inactive);
    assert_eq!(session.settle(), SettleDecision::Settle);
    let session = session.resume();
    assert_eq!(session.state("test"), RequirementState::Passed, "persisted");
}

#[test]
fn a_later_edit_of_the_written_file_still_stales_it() {
    let mut session = armed();
    run_writing(
        &mut session,
        success(),
        "src/generated.ts",
        "export const g = 1;\n",
    );
    assert_eq!(session.state("test"), RequirementState::Passed);

    session.edit("src/generated.ts", "export const g = 2;\n");
    assert_eq!(session.state("test"), RequirementState::Stale);
    assert!(continuation_text(&session.settle()).contains("`npm test`"));
}

#[test]
fn an_out_of_band_edit_after_the_run_still_stales_it() {
    let mut session = armed();
    run_writing(
        &mut session,
        success(),
        "src/generated.ts",
        "export const g = 1;\n",
    );
    session
        .repo
        .write("src/generated.ts", "export const g = 'editor';\n");
    assert!(matches!(session.settle(), SettleDecision::Continue(_)));
    assert_eq!(session.state("test"), RequirementState::Stale);
}

#[test]
fn a_sibling_writing_a_relevant_file_still_stales_it() {
    let mut session = armed();
    let (check, sibling) = (session.id(), session.id());
    let root = session.root();
    session.wave(
        vec![
            bash(&check, "npm test", &root, success()),
            write_call(&sibling, "src/b.ts", &root),
        ],
        |repo| repo.write("src/b.ts", "export const b = 1;\n"),
    );

    let test = session.requirement("test");
    assert_eq!(test.state(), RequirementState::NotRun);
    assert_eq!(
        test.required_revision,
        Some(2),
        "the sibling's write advanced it"
    );
    assert!(matches!(
        test.last_rejection.as_ref().map(|rejection| &rejection.reason),
        Some(RejectionReason::MutatingSibling { tool_call_id, .. }) if *tool_call_id == sibling
    ));
    assert!(continuation_text(&session.settle()).contains("`npm test`"));
}

#[test]
fn a_failing_check_that_writes_a_relevant_file_is_stale() {
    let mut session = armed();
    run_writing(
        &mut session,
        exit(1),
        "src/generated.ts",
        "export const g = 1;\n",
    );
    assert_eq!(session.state("test"), RequirementState::Stale);
    assert!(matches!(session.settle(), SettleDecision::Continue(_)));
}

#[test]
fn what_a_check_writes_arms_the_other_requirements_it_affects() {
    let mut session = armed();
    run_writing(&mut session, success(), "docs/api.md", "# api\n");
    assert_eq!(session.state("test"), RequirementState::Passed);
    assert_eq!(session.state("docs"), RequirementState::NotRun);
    let text = continuation_text(&session.settle()).to_owned();
    assert!(
        text.contains("`npm run docs`") && !text.contains("`npm test`"),
        "{text}"
    );
}

#[test]
fn an_accepted_run_of_an_inactive_check_is_not_armed_by_what_it_writes() {
    let mut session = Session::demo();
    run_writing(
        &mut session,
        success(),
        "src/generated.ts",
        "export const g = 1;\n",
    );
    assert_eq!(session.state("test"), RequirementState::Inactive);
    assert_eq!(session.settle(), SettleDecision::Settle);

    run_writing(
        &mut session,
        exit(1),
        "src/generated.ts",
        "export const g = 2;\n",
    );
    assert_eq!(
        session.state("test"),
        RequirementState::NotRun,
        "a failing run's writes arm it"
    );
}

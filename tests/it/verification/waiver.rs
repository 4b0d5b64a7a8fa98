//! Waivers: a non-empty reason, only when something is outstanding, scoped to what was
//! outstanding at its revision, never shown as a pass, and expiring at the next relevant change.

use crate::support::gate::{Session, continuation_text, success};
use pi_native_hooks_session::VerificationStatus;
use pi_native_hooks_verification::{RequirementState, SettleDecision, WAIVER_TOOL, WaiverError};

#[test]
fn empty_reason_is_rejected() {
    let mut session = Session::demo();
    session.edit("src/a.ts", "export const a = 2;\n");
    assert_eq!(session.waive("   \n"), Err(WaiverError::EmptyReason));
    assert_eq!(session.waive(""), Err(WaiverError::EmptyReason));
    assert_eq!(session.state("test"), RequirementState::NotRun);
}

#[test]
fn waiver_with_nothing_outstanding_is_rejected() {
    let mut session = Session::demo();
    assert_eq!(
        session.waive("nothing to do"),
        Err(WaiverError::NothingOutstanding)
    );
    session.edit("src/a.ts", "export const a = 2;\n");
    session.run("npm test", success());
    assert_eq!(
        session.waive("already passed"),
        Err(WaiverError::NothingOutstanding)
    );
    assert!(session.gate.waivers().is_empty());
}

#[test]
fn waiver_is_recorded_and_never_shown_as_a_pass() {
    let mut session = Session::demo();
    session.edit("src/a.ts", "export const a = 2;\n");
    let waiver = session
        .waive("  npm is not installed in this sandbox  ")
        .expect("waiver accepted");

    assert_eq!(waiver.reason, "npm is not installed in this sandbox");
    assert_eq!(waiver.covers.len(), 1);
    let covered = &waiver.covers[0];
    assert_eq!(covered.key.id, "test");
    assert_eq!(covered.project.name, "demo");
    assert_eq!(
        Some(covered.revision),
        session.requirement("test").required_revision
    );
    assert!(waiver.message().contains("waived, not passed"));
    assert!(waiver.message().contains("next relevant change"));

    assert_eq!(session.state("test"), RequirementState::Waived);
    assert_eq!(session.requirement("test").last_success, None);
    let status = VerificationStatus::of(&session.gate);
    let test = status
        .requirements
        .iter()
        .find(|requirement| requirement.key.id == "test")
        .expect("test requirement");
    assert_eq!(test.state, RequirementState::Waived);
    assert_eq!(
        test.waiver.as_ref().map(|w| w.reason.as_str()),
        Some("npm is not installed in this sandbox")
    );
    assert_eq!(
        test.waiver.as_ref().map(|w| w.tool_call_id.as_str()),
        Some(waiver.tool_call_id.as_str())
    );
    assert_eq!(test.last_success, None);
    assert_eq!(session.settle(), SettleDecision::Settle);
}

#[test]
fn waiver_covers_only_what_is_outstanding() {
    let mut session = Session::demo();
    session.edit("src/a.ts", "export const a = 2;\n");
    session.edit("docs/guide.md", "# guide, edited\n");
    session.run("npm test", success());
    let waiver = session.waive("docs build needs network").expect("waiver");

    let covered: Vec<&str> = waiver.covers.iter().map(|c| c.key.id.as_str()).collect();
    assert_eq!(covered, ["docs"]);
    assert_eq!(session.state("test"), RequirementState::Passed);
    assert_eq!(session.state("docs"), RequirementState::Waived);

    session.edit("src/a.ts", "export const a = 3;\n");
    assert_eq!(session.state("test"), RequirementState::Stale);
    assert_eq!(
        session.state("docs"),
        RequirementState::Waived,
        "an unrelated change leaves the docs waiver in place"
    );
    let text = continuation_text(&session.settle()).to_owned();
    assert!(
        text.contains("`npm test`") && !text.contains("`npm run docs`"),
        "{text}"
    );
}

#[test]
fn waiver_expires_at_the_next_relevant_change() {
    let mut session = Session::demo();
    session.edit("src/a.ts", "export const a = 2;\n");
    session.waive("flaky network").expect("waiver");
    assert_eq!(session.settle(), SettleDecision::Settle);

    session.edit("src/a.ts", "export const a = 3;\n");
    assert_eq!(session.state("test"), RequirementState::Stale);
    assert!(
        session.gate.waivers().is_empty(),
        "the expired waiver is dropped"
    );
    let text = continuation_text(&session.settle()).to_owned();
    assert!(text.contains(WAIVER_TOOL), "{text}");
}

#[test]
fn waiver_survives_an_irrelevant_change() {
    let mut session = Session::demo();
    session.edit("src/a.ts", "export const a = 2;\n");
    session.waive("flaky network").expect("waiver");
    session.edit("README.md", "# readme\n");
    assert_eq!(session.state("test"), RequirementState::Waived);
    assert_eq!(session.gate.waivers().len(), 1);
}

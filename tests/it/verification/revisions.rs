//! Revisions and drift: relevant changes arm and stale requirements, irrelevant ones do not, a
//! fresh session's dirty files arm nothing, out-of-band edits are caught at the next wave's
//! baseline or at settle — never absorbed — and changes that cannot be proven make armed
//! requirements `unknown`, never `passed`.

use crate::support::gate::{Session, bash, continuation_text, read_call, success, write_call};
use crate::support::{ConfigRoot, TestRepo};
use pi_native_hooks_verification::{
    GateConfig, ObservedChanges, RequirementState, SettleDecision, VerificationGate,
    WaveObservation, WorkspaceObservation,
};
use pi_native_hooks_workspace::capture;
use std::collections::BTreeSet;

/// A session where `npm test` was armed by a relevant write and then passed.
fn passed() -> Session {
    let mut session = Session::demo();
    session.edit("src/a.ts", "export const a = 2;\n");
    session.run("npm test", success());
    assert_eq!(session.state("test"), RequirementState::Passed);
    session
}

#[test]
fn relevant_change_makes_a_pass_stale() {
    let mut session = passed();
    let before = session.requirement("test").required_revision;
    session.edit("src/a.ts", "export const a = 3;\n");

    assert_eq!(session.state("test"), RequirementState::Stale);
    assert!(session.requirement("test").required_revision > before);
    let decision = session.settle();
    assert!(continuation_text(&decision).contains("stale"));
    session.run("npm test", success());
    assert_eq!(session.settle(), SettleDecision::Settle);
}

#[test]
fn irrelevant_change_leaves_a_pass_untouched() {
    let mut session = passed();
    let required = session.requirement("test").required_revision;
    session.edit("README.md", "# demo, edited\n");

    assert_eq!(session.state("test"), RequirementState::Passed);
    assert_eq!(session.requirement("test").required_revision, required);
    assert_eq!(session.state("docs"), RequirementState::Inactive);
    assert_eq!(session.settle(), SettleDecision::Settle);
}

#[test]
fn fresh_session_treats_dirty_files_as_an_unarmed_baseline() {
    let repo = TestRepo::demo();
    repo.write("src/a.ts", "export const a = 'dirty before the session';\n");
    repo.write("docs/new.md", "untracked before the session\n");
    let mut session = Session::start(repo, ConfigRoot::demo(), Vec::new());

    let (reader, checker) = (session.id(), session.id());
    let root = session.root();
    session.wave(vec![read_call(&reader, "src/a.ts", &root)], |_| {});
    session.wave(vec![bash(&checker, "git status", &root, success())], |_| {});

    assert_eq!(session.state("test"), RequirementState::Inactive);
    assert_eq!(session.state("docs"), RequirementState::Inactive);
    assert_eq!(session.settle(), SettleDecision::Settle);
    assert!(
        session.branch.is_empty(),
        "question-only work records no state"
    );
}

#[test]
fn out_of_band_edit_is_detected_at_settle() {
    let mut session = passed();
    session
        .repo
        .write("src/a.ts", "export const a = 'edited in an editor';\n");

    let decision = session.settle();
    assert!(continuation_text(&decision).contains("`npm test`"));
    assert_eq!(session.state("test"), RequirementState::Stale);
    assert_eq!(session.state("docs"), RequirementState::Inactive);
}

#[test]
fn out_of_band_edit_of_an_already_dirty_file_is_detected_at_settle() {
    let mut session = passed();
    session.repo.write("README.md", "# dirty\n");
    assert_eq!(session.settle(), SettleDecision::Settle);
    session.repo.write(
        "src/a.ts",
        "export const a = 'second edit of a dirty file';\n",
    );
    assert!(matches!(session.settle(), SettleDecision::Continue(_)));
}

#[test]
fn out_of_band_irrelevant_edit_does_not_reopen_the_gate() {
    let mut session = passed();
    session.repo.write("README.md", "# edited in an editor\n");
    assert_eq!(session.settle(), SettleDecision::Settle);
    assert_eq!(session.state("test"), RequirementState::Passed);
}

#[test]
fn out_of_band_commit_makes_armed_requirements_unknown() {
    let mut session = passed();
    session.repo.git(&["commit", "-q", "-am", "by the user"]);

    let decision = session.settle();
    assert!(continuation_text(&decision).contains("HEAD moved"));
    assert_eq!(session.state("test"), RequirementState::Unknown);
    assert_eq!(session.state("docs"), RequirementState::Inactive);
}

#[test]
fn bash_outside_git_makes_armed_requirements_unknown() {
    let mut session = passed();
    std::fs::remove_dir_all(session.root().join(".git")).expect("remove .git");
    let id = session.id();
    let root = session.root();
    session.wave_outside_git(vec![bash(&id, "npm test", &root, success())]);

    assert_eq!(session.state("test"), RequirementState::Unknown);
    assert_eq!(session.state("docs"), RequirementState::Inactive);
    let reason = session
        .requirement("test")
        .unknown_reason()
        .expect("reason")
        .to_owned();
    assert!(reason.contains("not a git repository"), "{reason}");
    let decision = session.settle();
    assert!(continuation_text(&decision).contains("unproven"));
    assert_eq!(session.state("test"), RequirementState::Unknown);
}

#[test]
fn coordinator_timeout_makes_armed_requirements_unknown() {
    let mut session = passed();
    let id = session.id();
    let root = session.root();
    session.observe(&WaveObservation {
        changes: ObservedChanges::Unknown {
            reason: "the wave timed out waiting for tool events".to_owned(),
        },
        workspace_before: None,
        workspace_after: None,
        calls: vec![bash(&id, "npm test", &root, success())],
    });
    assert_eq!(session.state("test"), RequirementState::Unknown);
    session.run("npm test", success());
    assert_eq!(session.state("test"), RequirementState::Passed);
    assert_eq!(session.settle(), SettleDecision::Settle);
}

#[test]
fn revision_advances_once_per_changing_wave() {
    let mut session = Session::demo();
    assert_eq!(session.gate.revision(), 0);
    session.edit("README.md", "# one\n");
    session.edit("README.md", "# two\n");
    session.run("true", success());
    assert_eq!(session.gate.revision(), 2);
}

#[test]
fn session_outside_git_tracks_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("package.json"), r#"{"name": "demo"}"#).expect("manifest");
    let registry = ConfigRoot::demo().registry();
    let gate = VerificationGate::new(GateConfig::new(dir.path()), &registry);
    assert!(gate.requirements().is_empty());
    assert_eq!(gate.projects().root, None);
}

// Out-of-band changes between waves: compared at the next wave's baseline snapshot (or, outside a
// path-limited baseline's paths, at the next full snapshot), never absorbed into the record.

#[test]
fn out_of_band_edit_before_a_bash_wave_makes_the_pass_stale_at_that_wave() {
    let mut session = passed();
    session
        .repo
        .write("src/a.ts", "export const a = 'edited in an editor';\n");
    session.run("git status", success());

    assert_eq!(session.state("test"), RequirementState::Stale);
    assert_eq!(session.state("docs"), RequirementState::Inactive);
    assert!(continuation_text(&session.settle()).contains("stale"));
}

#[test]
fn out_of_band_edit_before_a_path_limited_write_wave_is_caught_at_settle() {
    let mut session = passed();
    session
        .repo
        .write("src/a.ts", "export const a = 'edited in an editor';\n");
    session.edit_limited("README.md", "# written by the agent\n");

    let decision = session.settle();
    assert!(continuation_text(&decision).contains("`npm test`"));
    assert_eq!(session.state("test"), RequirementState::Stale);
}

#[test]
fn out_of_band_edit_of_a_write_target_is_not_absorbed_by_the_write() {
    let mut session = passed();
    let content = "export const a = 'same text, first by the user, then by the agent';\n";
    session.repo.write("src/a.ts", content);
    // The write leaves the file as it found it: the wave itself changed nothing.
    session.edit_limited("src/a.ts", content);

    assert_eq!(session.state("test"), RequirementState::Stale);
    assert!(matches!(session.settle(), SettleDecision::Continue(_)));
}

#[test]
fn out_of_band_edit_then_the_exact_command_is_a_pass() {
    let mut session = passed();
    let revision = session.gate.revision();
    session
        .repo
        .write("src/a.ts", "export const a = 'edited in an editor';\n");
    session.run("npm test", success());

    assert_eq!(session.state("test"), RequirementState::Passed);
    let evidence = session
        .requirement("test")
        .last_success
        .clone()
        .expect("evidence");
    assert_eq!(
        evidence.required_revision,
        revision + 1,
        "the edit was applied before the run"
    );
    assert_eq!(evidence.started_at_revision, revision + 1);
    assert_eq!(session.settle(), SettleDecision::Settle);
}

#[test]
fn out_of_band_edit_after_a_write_wave_then_the_exact_command_is_a_pass() {
    let mut session = passed();
    session.edit_limited("README.md", "# written by the agent\n");
    session
        .repo
        .write("src/a.ts", "export const a = 'edited in an editor';\n");
    session.run("npm test", success());

    assert_eq!(session.state("test"), RequirementState::Passed);
    assert_eq!(session.settle(), SettleDecision::Settle);
}

#[test]
fn out_of_band_relevant_edit_arms_nothing_at_a_wave() {
    let mut session = Session::demo();
    session
        .repo
        .write("src/a.ts", "export const a = 'the user\'s own edit';\n");
    session.run("git status", success());
    session.edit_limited("README.md", "# written by the agent\n");

    assert_eq!(session.state("test"), RequirementState::Inactive);
    assert_eq!(session.settle(), SettleDecision::Settle);
}

#[test]
fn wave_without_a_baseline_snapshot_compares_its_post_wave_snapshot_after_the_evidence() {
    let mut session = passed();
    session
        .repo
        .write("src/a.ts", "export const a = 'edited in an editor';\n");
    let id = session.id();
    let root = session.root();
    let after = capture(session.repo.path()).expect("post-wave snapshot");
    session.observe(&WaveObservation {
        changes: ObservedChanges::Paths {
            paths: BTreeSet::new(),
        },
        workspace_before: None,
        workspace_after: Some(WorkspaceObservation::of_snapshot(&after)),
        calls: vec![bash(&id, "npm test", &root, success())],
    });

    assert_eq!(
        session.state("test"),
        RequirementState::Stale,
        "without a baseline the edit may have come during the run"
    );
}

#[test]
fn failed_post_wave_snapshot_is_unknown_until_a_full_baseline_and_a_rerun() {
    let mut session = passed();
    let (writer, root) = (session.id(), session.root());
    session.observe(&WaveObservation {
        changes: ObservedChanges::Paths {
            paths: BTreeSet::new(),
        },
        workspace_before: Some(session.repo.live()),
        workspace_after: Some(WorkspaceObservation::Unavailable {
            reason: "the disk went away".to_owned(),
        }),
        calls: vec![write_call(&writer, "src/a.ts", &root)],
    });
    assert_eq!(session.state("test"), RequirementState::Unknown);
    assert!(
        session
            .requirement("test")
            .unknown_reason()
            .is_some_and(|reason| reason.contains("the disk went away"))
    );

    session
        .repo
        .write("src/a.ts", "export const a = 'unseen';\n");
    session.edit_limited("README.md", "# written by the agent\n");
    assert_eq!(session.state("test"), RequirementState::Unknown);
    session.run("npm test", success());
    assert_eq!(session.state("test"), RequirementState::Passed);
    assert_eq!(session.settle(), SettleDecision::Settle);
}

#[test]
fn out_of_band_commit_before_a_wave_makes_armed_requirements_unknown() {
    let mut session = passed();
    session.repo.git(&["commit", "-q", "-am", "by the user"]);
    session.edit_limited("README.md", "# written by the agent\n");

    assert_eq!(session.state("test"), RequirementState::Unknown);
    let reason = session
        .requirement("test")
        .unknown_reason()
        .expect("reason")
        .to_owned();
    assert!(reason.contains("HEAD moved"), "{reason}");
}

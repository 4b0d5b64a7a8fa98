//! Durable, branch-aware state: entries appended on meaningful transitions only, restore from the
//! latest valid entry of the current branch (skipping malformed and newer ones, failing closed
//! when none can be read), branch switches and forks, the live workspace compared before restored
//! state is trusted, and entries that stay small however dirty the worktree is.

use crate::support::gate::{Session, continuation_text, exit, success};
use crate::support::{ConfigRoot, TestRepo};
use pi_native_hooks_verification::state::{
    self, BranchEntry, STATE_ENTRY_TYPE, STATE_VERSION, StateProblem, StateWarning,
};
use pi_native_hooks_verification::{
    Baseline, CallOutcome, MAX_RECORDED_PATHS, PERSISTED_PATHS_BYTES, RequirementState,
    SettleDecision,
};

/// A session where `npm test` was armed (entry 1) and then passed (entry 2).
fn passed() -> Session {
    let mut session = Session::demo();
    session.edit("src/a.ts", "export const a = 2;\n");
    session.run("npm test", success());
    assert_eq!(session.branch.len(), 2);
    session
}

/// The entry id and problem of a [`StateWarning::Skipped`].
fn skipped(warning: &StateWarning) -> (&str, &StateProblem) {
    match warning {
        StateWarning::Skipped { entry_id, problem } => (entry_id, problem),
        other => panic!("expected a skipped entry, got {other:?}"),
    }
}

fn entry(id: &str, data: serde_json::Value) -> BranchEntry {
    BranchEntry {
        id: id.to_owned(),
        custom_type: STATE_ENTRY_TYPE.to_owned(),
        data,
    }
}

#[test]
fn entries_are_versioned_json_of_the_state_type() {
    let session = passed();
    let last = session.branch.last().expect("an entry");
    assert_eq!(last.custom_type, "pi-native-hooks-state");
    assert_eq!(last.data["version"], STATE_VERSION);
    assert_eq!(STATE_VERSION, "pi-native-hooks-state-v1");
    assert!(last.data["gate"]["requirements"].is_array());
}

#[test]
fn entries_are_appended_only_on_meaningful_transitions() {
    let mut session = Session::demo();
    session.edit("README.md", "# irrelevant\n");
    assert_eq!(session.branch.len(), 0, "irrelevant change");
    session.edit("src/a.ts", "export const a = 2;\n");
    assert_eq!(session.branch.len(), 1, "arming");
    continuation_text(&session.settle());
    continuation_text(&session.settle());
    assert_eq!(session.branch.len(), 1, "reminders are not transitions");
    session.run("npm test -- --watch", success());
    session.run("npm test", CallOutcome::NoResult);
    assert_eq!(session.branch.len(), 1, "runs that do not count");
    session.run("npm test", exit(1));
    assert_eq!(session.branch.len(), 2, "failure");
    session.run("npm test", success());
    assert_eq!(session.branch.len(), 3, "evidence");
    session.edit("src/a.ts", "export const a = 3;\n");
    session.waive("offline").expect("waiver");
    assert_eq!(session.branch.len(), 5, "stale + waiver");
    assert_eq!(session.settle(), SettleDecision::Settle);
    assert_eq!(session.branch.len(), 5);
}

#[test]
fn restores_from_the_latest_valid_entry() {
    let session = passed();
    let revision = session.gate.revision();
    let session = session.resume();

    assert_eq!(session.restored.entry_id.as_deref(), Some("entry-2"));
    assert!(session.restored.warnings.is_empty());
    assert_eq!(session.state("test"), RequirementState::Passed);
    assert_eq!(session.gate.revision(), revision);
    assert_eq!(
        session.branch.len(),
        2,
        "an unchanged restore appends nothing"
    );
}

#[test]
fn an_entry_without_requirement_digests_restores_with_its_armed_checks_unknown() {
    let mut session = Session::demo();
    session.edit("src/a.ts", "export const a = 2;\n");
    session.run("npm test", success());
    assert_eq!(session.state("docs"), RequirementState::Inactive);
    // As an older engine wrote it: the same version, no `digest` on any requirement.
    for entry in &mut session.branch {
        for requirement in entry.data["gate"]["requirements"]
            .as_array_mut()
            .expect("requirements")
        {
            let digest = requirement
                .as_object_mut()
                .expect("requirement")
                .remove("digest");
            assert!(digest.is_some_and(|digest| digest.is_string()));
        }
    }
    let mut session = session.resume();

    assert_eq!(session.restored.entry_id.as_deref(), Some("entry-2"));
    assert_eq!(
        session.restored.warnings,
        [StateWarning::Undigested {
            entry_id: "entry-2".to_owned(),
            unknown: 1
        }]
    );
    let warning = session.restored.warnings[0].to_string();
    assert!(
        warning.contains("1 armed check(s) are now `unknown`"),
        "{warning}"
    );
    assert_eq!(session.state("test"), RequirementState::Unknown);
    assert_eq!(session.state("docs"), RequirementState::Inactive);
    let reason = session
        .requirement("test")
        .unknown_reason()
        .expect("reason");
    assert!(reason.contains("predates per-check digests"), "{reason}");

    session.run("npm test", success());
    assert_eq!(session.state("test"), RequirementState::Passed);
    let session = session.resume();
    assert!(
        session.restored.warnings.is_empty(),
        "the new entry has digests"
    );
    assert_eq!(session.state("test"), RequirementState::Passed);
}

#[test]
fn malformed_entry_is_skipped_with_a_warning() {
    let mut session = passed();
    session.branch.push(entry(
        "broken",
        serde_json::json!({ "version": STATE_VERSION, "gate": { "revision": "many" } }),
    ));
    session
        .branch
        .push(entry("garbage", serde_json::json!("not an object")));
    let session = session.resume();

    assert_eq!(session.restored.entry_id.as_deref(), Some("entry-2"));
    let skipped_ids: Vec<&str> = session
        .restored
        .warnings
        .iter()
        .map(|warning| skipped(warning).0)
        .collect();
    assert_eq!(skipped_ids, ["garbage", "broken"]);
    assert!(matches!(
        skipped(&session.restored.warnings[0]).1,
        StateProblem::Malformed(_)
    ));
    assert_eq!(session.state("test"), RequirementState::Passed);
}

#[test]
fn newer_version_entry_is_skipped_with_a_warning() {
    let mut session = passed();
    session.branch.push(entry(
        "future",
        serde_json::json!({ "version": "pi-native-hooks-state-v2", "anything": true }),
    ));
    let session = session.resume();

    assert_eq!(session.restored.entry_id.as_deref(), Some("entry-2"));
    assert_eq!(
        skipped(&session.restored.warnings[0]).1,
        &StateProblem::Newer {
            version: "pi-native-hooks-state-v2".to_owned()
        }
    );
    assert!(
        session.restored.warnings[0]
            .to_string()
            .contains("newer version")
    );
    assert_eq!(session.state("test"), RequirementState::Passed);
}

#[test]
fn entries_of_other_types_are_ignored() {
    let mut session = passed();
    session.branch.push(BranchEntry {
        id: "other".to_owned(),
        custom_type: "some-other-extension".to_owned(),
        data: serde_json::json!({ "version": 7 }),
    });
    let session = session.resume();
    assert!(session.restored.warnings.is_empty());
    assert_eq!(session.restored.entry_id.as_deref(), Some("entry-2"));
}

#[test]
fn branch_switch_restores_each_branch_s_own_state() {
    let mut session = passed();
    let passed_branch = session.branch.clone();
    let armed_branch = session.branch[..1].to_vec();
    let live = session.repo.live();

    let report = state::restore(&mut session.gate, &armed_branch, &live);
    assert_eq!(report.entry_id.as_deref(), Some("entry-1"));
    assert_eq!(session.state("test"), RequirementState::NotRun);
    assert_eq!(session.requirement("test").last_success, None);

    state::restore(&mut session.gate, &[], &live);
    assert_eq!(session.state("test"), RequirementState::Inactive);
    assert_eq!(session.settle(), SettleDecision::Settle);

    state::restore(&mut session.gate, &passed_branch, &live);
    assert_eq!(session.state("test"), RequirementState::Passed);
}

#[test]
fn fork_starts_from_its_own_branch() {
    let mut session = passed();
    session.edit("src/a.ts", "export const a = 3;\n");
    session.run("npm test", success());
    let fork_point = session.branch[..2].to_vec();
    let Session { repo, config, .. } = session;

    let mut fork = Session::start(repo, config, fork_point);
    assert_eq!(fork.restored.entry_id.as_deref(), Some("entry-2"));
    let evidence = fork
        .requirement("test")
        .last_success
        .clone()
        .expect("evidence");
    assert_eq!(
        evidence.tool_call_id, "call-2",
        "the abandoned branch's run does not leak"
    );
    assert_eq!(
        fork.state("test"),
        RequirementState::Stale,
        "the files still hold the abandoned branch's edit, which the fork's run never saw"
    );
    assert!(matches!(fork.settle(), SettleDecision::Continue(_)));
}

#[test]
fn out_of_band_edit_between_sessions_rearms_at_session_start() {
    let session = passed();
    session.repo.write(
        "src/a.ts",
        "export const a = 'edited while Pi was closed';\n",
    );
    let mut session = session.resume();

    assert_eq!(session.state("test"), RequirementState::Stale);
    assert_eq!(session.branch.len(), 3, "the re-arming is recorded");
    assert!(continuation_text(&session.settle()).contains("`npm test`"));
}

#[test]
fn irrelevant_edit_between_sessions_keeps_the_pass() {
    let session = passed();
    session
        .repo
        .write("README.md", "# edited while Pi was closed\n");
    let mut session = session.resume();
    assert_eq!(session.state("test"), RequirementState::Passed);
    assert_eq!(session.settle(), SettleDecision::Settle);
}

#[test]
fn restore_in_a_fresh_session_with_dirty_files_arms_nothing() {
    let repo = TestRepo::demo();
    repo.write("src/a.ts", "export const a = 'dirty';\n");
    let mut session = Session::start(repo, ConfigRoot::demo(), Vec::new());
    assert_eq!(session.restored.entry_id, None);
    assert_eq!(session.state("test"), RequirementState::Inactive);
    assert_eq!(session.settle(), SettleDecision::Settle);
}

/// Every integer of `value` as a float, the way a JavaScript host hands JSON numbers back.
fn as_javascript_numbers(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Number(number) => {
            let float = number.as_f64().expect("a finite number");
            *number = serde_json::Number::from_f64(float).expect("a finite number");
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(as_javascript_numbers),
        serde_json::Value::Object(map) => map.values_mut().for_each(as_javascript_numbers),
        _ => {}
    }
}

#[test]
fn entries_whose_integers_came_back_as_floats_restore() {
    let mut session = passed();
    session.edit("src/a.ts", "export const a = 3;\n");
    session.waive("offline").expect("waiver");
    let entries = session.branch.len();
    for entry in &mut session.branch {
        as_javascript_numbers(&mut entry.data);
    }
    assert!(
        session
            .branch
            .iter()
            .any(|e| e.data.to_string().contains(".0")),
        "the fixture holds floats"
    );
    let revision = session.gate.revision();
    let session = session.resume();

    assert!(
        session.restored.warnings.is_empty(),
        "{:?}",
        session.restored.warnings
    );
    assert_eq!(session.restored.entry_id.as_deref(), Some("entry-4"));
    assert_eq!(session.state("test"), RequirementState::Waived);
    assert_eq!(session.gate.revision(), revision);
    assert_eq!(session.gate.waivers().len(), 1);
    assert_eq!(
        session.branch.len(),
        entries,
        "an unchanged restore appends nothing"
    );
}

#[test]
fn a_fractional_number_in_an_integer_field_is_still_malformed() {
    let mut session = passed();
    let mut data = session.branch.last().expect("an entry").data.clone();
    data["gate"]["revision"] = serde_json::json!(1.5);
    session.branch.push(entry("fractional", data));
    let session = session.resume();

    assert_eq!(session.restored.entry_id.as_deref(), Some("entry-2"));
    assert_eq!(skipped(&session.restored.warnings[0]).0, "fractional");
    assert!(matches!(
        skipped(&session.restored.warnings[0]).1,
        StateProblem::Malformed(_)
    ));
}

// Unreadable state: fail closed.

#[test]
fn branch_whose_state_entries_are_all_unreadable_restores_every_check_as_unknown() {
    let branch = vec![
        entry(
            "future",
            serde_json::json!({ "version": "pi-native-hooks-state-v9", "gate": {} }),
        ),
        entry(
            "broken",
            serde_json::json!({ "version": STATE_VERSION, "gate": { "revision": "many" } }),
        ),
    ];
    let mut session = Session::start(TestRepo::demo(), ConfigRoot::demo(), branch);

    assert_eq!(session.restored.entry_id, None);
    let warnings = &session.restored.warnings;
    assert_eq!(warnings.len(), 3, "{warnings:?}");
    assert_eq!(skipped(&warnings[0]).0, "broken");
    assert_eq!(skipped(&warnings[1]).0, "future");
    assert_eq!(
        warnings[2],
        StateWarning::NoneReadable {
            skipped: 2,
            unknown: 2
        }
    );
    assert!(
        warnings[2].to_string().contains("could be read")
            && warnings[2].to_string().contains("`unknown`"),
        "{}",
        warnings[2]
    );
    for id in ["test", "docs"] {
        assert_eq!(session.state(id), RequirementState::Unknown, "{id}");
        let reason = session.requirement(id).unknown_reason().expect("reason");
        assert!(reason.contains("could not be read"), "{reason}");
    }
    assert_eq!(session.branch.len(), 3, "the fail-closed state is recorded");
    let decision = session.settle();
    let text = continuation_text(&decision);
    assert!(
        text.contains("`npm test`") && text.contains("`npm run docs`"),
        "{text}"
    );

    session.run("npm test", success());
    session.run("npm run docs", success());
    assert_eq!(session.settle(), SettleDecision::Settle);
    let session = session.resume();
    assert!(
        session.restored.warnings.is_empty(),
        "{:?}",
        session.restored.warnings
    );
    assert_eq!(session.state("test"), RequirementState::Passed);
    assert_eq!(session.state("docs"), RequirementState::Passed);
}

#[test]
fn one_unreadable_entry_alone_fails_closed_too() {
    let repo = TestRepo::demo();
    let branch = vec![entry("garbage", serde_json::json!("not an object"))];
    let mut session = Session::start(repo, ConfigRoot::demo(), branch);
    assert_eq!(session.state("test"), RequirementState::Unknown);
    assert!(matches!(
        session.restored.warnings.last(),
        Some(StateWarning::NoneReadable { skipped: 1, .. })
    ));
    assert!(matches!(session.settle(), SettleDecision::Continue(_)));
}

// Small entries: the dirty paths are persisted by digest once they stop being few.

/// Writes `count` untracked notes, which no demo requirement cares about.
fn untracked_notes(repo: &TestRepo, count: usize) {
    for index in 0..count {
        repo.write(&format!("notes/n{index:04}.txt"), format!("note {index}\n"));
    }
}

/// A session in a worktree with `notes` untracked files where `npm test` was armed and passed.
fn passed_among(notes: usize) -> Session {
    let repo = TestRepo::demo();
    untracked_notes(&repo, notes);
    let mut session = Session::start(repo, ConfigRoot::demo(), Vec::new());
    session.edit("src/a.ts", "export const a = 2;\n");
    session.run("npm test", success());
    assert_eq!(session.state("test"), RequirementState::Passed);
    session
}

fn persisted_workspace(session: &Session) -> &serde_json::Value {
    &session.branch.last().expect("an entry").data["gate"]["workspace"]
}

#[test]
fn entries_of_a_clean_enough_worktree_keep_the_named_paths() {
    let session = passed();
    let workspace = persisted_workspace(&session);
    assert_eq!(workspace["dirty_count"], 1);
    assert!(workspace["dirty"]["src/a.ts"].is_string(), "{workspace}");
    assert_eq!(
        workspace["dirty_digest"].as_str().map(str::len),
        Some(32),
        "{workspace}"
    );
}

#[test]
fn entries_of_a_dirty_worktree_keep_a_digest_of_the_paths_not_the_paths() {
    let session = passed_among(200);
    let workspace = persisted_workspace(&session);
    assert!(workspace["dirty"].is_null(), "{workspace}");
    assert_eq!(workspace["dirty_count"], 201);
    assert_eq!(workspace["dirty_digest"].as_str().map(str::len), Some(32));
    let Baseline::Known(record) = session.gate.baseline() else {
        panic!("a known workspace")
    };
    assert_eq!(
        record.dirty.as_ref().map(std::collections::BTreeMap::len),
        Some(201),
        "the running session keeps the paths"
    );

    let mut session = session.resume();
    assert!(session.restored.warnings.is_empty());
    assert_eq!(
        session.state("test"),
        RequirementState::Passed,
        "nothing changed"
    );
    assert_eq!(session.settle(), SettleDecision::Settle);
}

#[test]
fn drift_from_a_digest_only_entry_cannot_be_named_and_makes_armed_checks_unknown() {
    let session = passed_among(200);
    session
        .repo
        .write("README.md", "# edited while Pi was closed\n");
    let mut session = session.resume();

    assert_eq!(session.state("test"), RequirementState::Unknown);
    let reason = session
        .requirement("test")
        .unknown_reason()
        .expect("reason")
        .to_owned();
    assert!(
        reason.contains("only a digest of its 201 dirty paths"),
        "{reason}"
    );
    assert_eq!(
        session.state("docs"),
        RequirementState::Inactive,
        "nothing was armed"
    );
    assert!(matches!(session.settle(), SettleDecision::Continue(_)));
    session.run("npm test", success());
    assert_eq!(session.settle(), SettleDecision::Settle);
}

/// Rewrites every entry of the branch as an engine without dirty digests wrote it.
fn as_written_before_the_digest(session: &mut Session) {
    for entry in &mut session.branch {
        let workspace = entry.data["gate"]["workspace"]
            .as_object_mut()
            .expect("a workspace record");
        workspace.remove("dirty_digest");
        workspace.remove("dirty_count");
    }
}

#[test]
fn entries_written_with_the_full_dirty_map_still_restore_and_name_drift() {
    let mut session = passed();
    as_written_before_the_digest(&mut session);
    let session = session.resume();
    assert!(session.restored.warnings.is_empty());
    assert_eq!(session.state("test"), RequirementState::Passed);

    session
        .repo
        .write("README.md", "# edited while Pi was closed\n");
    let session = session.resume();
    assert_eq!(
        session.state("test"),
        RequirementState::Passed,
        "named and irrelevant"
    );

    let mut session = passed();
    as_written_before_the_digest(&mut session);
    session.repo.write(
        "src/a.ts",
        "export const a = 'edited while Pi was closed';\n",
    );
    let session = session.resume();
    assert_eq!(
        session.state("test"),
        RequirementState::Stale,
        "named and relevant"
    );
}

#[test]
fn entries_written_past_the_path_cap_without_a_digest_fail_closed() {
    let mut session = passed();
    as_written_before_the_digest(&mut session);
    for entry in &mut session.branch {
        entry.data["gate"]["workspace"]["dirty"] = serde_json::Value::Null;
    }
    session
        .repo
        .write("README.md", "# edited while Pi was closed\n");
    let session = session.resume();
    assert_eq!(session.state("test"), RequirementState::Unknown);
    let reason = session
        .requirement("test")
        .unknown_reason()
        .expect("reason");
    assert!(reason.contains("more than 5000 dirty paths"), "{reason}");
}

/// Measures the bytes of each state entry in a worktree with 5,000 dirty paths, against the same
/// entry carrying the named paths as entries did before they were persisted by digest. Run with
/// `--nocapture` to see the figures.
#[test]
fn a_state_entry_stays_small_with_5000_dirty_paths() {
    let session = passed_among(MAX_RECORDED_PATHS - 1);
    let Baseline::Known(record) = session.gate.baseline() else {
        panic!("a known workspace")
    };
    assert_eq!(
        record.dirty.as_ref().map(std::collections::BTreeMap::len),
        Some(MAX_RECORDED_PATHS)
    );
    let with_paths = serde_json::to_value(session.gate.baseline()).expect("encodes");
    assert_eq!(session.branch.len(), 2);
    for entry in &session.branch {
        let bytes = entry.data.to_string().len();
        let mut named = entry.data.clone();
        named["gate"]["workspace"] = with_paths.clone();
        let named_bytes = named.to_string().len();
        eprintln!(
            "state entry {} with {MAX_RECORDED_PATHS} dirty paths: {bytes} bytes (with the named paths: {named_bytes} bytes)",
            entry.id
        );
        assert!(bytes < PERSISTED_PATHS_BYTES, "{bytes} bytes");
        assert!(named_bytes > 50 * bytes, "{named_bytes} vs {bytes} bytes");
    }
}

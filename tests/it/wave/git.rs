//! The wave runtime end to end on real git repositories with real TypeScript files: `gix`
//! snapshots (path-limited for `write`/`edit`, full for `bash`), the built-in ast-grep rules and
//! Rhai policies, delivery across waves, a `HEAD` move, and the non-git fallback.

use crate::support::wave::{Fate, Run, Step, appended, decision, real, run_batch, write_step};
use crate::support::{TestRepo, git, write};
use pi_native_hooks_wave::{CallResult, FinishedCall, ResultDecision, SnapshotScope};
use pi_native_hooks_workspace::ChangeSet;
use serde_json::json;
use std::collections::BTreeSet;

const NON_NULL: &str = "typescript-no-non-null-assertion-ts";
const DYNAMIC: &str = "typescript-no-dynamic-import-ts";

fn paths(list: &[&str]) -> Option<ChangeSet> {
    Some(ChangeSet::Paths(
        list.iter()
            .map(|p| (*p).to_owned())
            .collect::<BTreeSet<_>>(),
    ))
}

#[tokio::test]
async fn write_and_edit_waves_snapshot_only_their_targets_and_deliver_each_finding_once() {
    let repo = TestRepo::with_commit(&[
        ("src/app.ts", "export const app = 1;\n"),
        ("README.md", "# r\n"),
    ]);
    let root = repo.path();
    let (coordinator, scans) = real(root);

    let first = run_batch(
        &coordinator,
        vec![write_step(
            "A",
            root,
            "src/a.ts",
            "export const x = maybe()!.y;\n",
        )],
        Run::Parallel,
    )
    .await;
    let block = appended(&first, "A").expect("a block");
    assert!(block.contains("The `write` call succeeded"), "{block}");
    assert!(
        block.contains(&format!("{NON_NULL} (warning): Non-null assertion"))
            && crate::support::wave::listed_locations(block, NON_NULL) == ["src/a.ts:1:18"],
        "{block}"
    );
    assert!(
        block.contains(&format!("// ast-grep-ignore: {NON_NULL} -- <reason>")),
        "{block}"
    );

    let second = run_batch(
        &coordinator,
        vec![
            Step::new("B", "edit", json!({ "path": "src/app.ts" })).effect({
                let root = root.to_path_buf();
                move || {
                    write(
                        &root,
                        "src/app.ts",
                        "export const app = 1;\nconst m = import(\"./m\");\n",
                    );
                }
            }),
            write_step("C", root, "README.md", "# readme\n"),
        ],
        Run::Parallel,
    )
    .await;
    let block = appended(&second, "C").expect("C is the last mutating call");
    assert!(
        crate::support::wave::listed_locations(block, DYNAMIC) == ["src/app.ts:2:11"],
        "{block}"
    );
    assert!(!block.contains("src/a.ts"), "not repeated: {block}");
    assert_eq!(decision(&second, "B"), &ResultDecision::Unchanged);

    let third = run_batch(
        &coordinator,
        vec![write_step(
            "D",
            root,
            "src/a.ts",
            "export const x = maybe()?.y;\n",
        )],
        Run::Parallel,
    )
    .await;
    assert_eq!(decision(&third, "D"), &ResultDecision::Unchanged);

    coordinator
        .idle()
        .await
        .expect("every background task ends within the timeout");
    let status = coordinator.status();
    let reports: Vec<_> = status.recent.iter().collect();
    assert_eq!(reports.len(), 3);
    assert_eq!(
        reports[0].scope,
        Some(SnapshotScope::Paths(vec![root.join("src/a.ts")]))
    );
    assert_eq!(reports[0].changes, paths(&["src/a.ts"]));
    assert_eq!(
        reports[1].scope,
        Some(SnapshotScope::Paths(vec![
            root.join("src/app.ts"),
            root.join("README.md")
        ]))
    );
    assert_eq!(reports[1].changes, paths(&["README.md", "src/app.ts"]));
    assert_eq!((reports[2].resolved, reports[2].delivered), (1, 0));
    assert_eq!(status.revision, 3);
    assert_eq!(scans.lock().unwrap().len(), 3, "one scan per wave");
    assert_eq!(
        status.totals.coordinator_failures, 0,
        "{:?}",
        status.failures
    );
    assert!(
        git(root, &["status", "--porcelain"]).contains("?? src/a.ts"),
        "the index was not touched"
    );
}

#[tokio::test]
async fn a_failed_bash_wave_is_compared_with_a_full_snapshot_and_keeps_its_error() {
    let repo = TestRepo::with_commit(&[
        ("src/app.ts", "export const app = 1;\n"),
        (".gitignore", "node_modules/\n"),
    ]);
    let root = repo.path();
    let (coordinator, _) = real(root);
    let dir = root.to_path_buf();
    let outcomes = run_batch(
        &coordinator,
        vec![
            Step::new("S", "bash", json!({ "command": "codegen && exit 3" }))
                .fate(Fate::Error)
                .effect(move || {
                    write(
                        &dir,
                        "src/gen/b.ts",
                        "export const b = () => import(\"./c\");\n",
                    );
                    write(&dir, "src/app.ts", "export const app = env.X!;\n");
                    write(&dir, "node_modules/x/i.ts", "const y = z!;\n");
                }),
        ],
        Run::Parallel,
    )
    .await;
    let outcome = &outcomes[0];
    let block = appended(&outcomes, "S").expect("a block on the failed call");
    assert!(
        block.contains("The `bash` call's result above is unchanged"),
        "{block}"
    );
    assert!(
        block.contains("src/gen/b.ts:1:24") && block.contains("src/app.ts:1:20"),
        "{block}"
    );
    assert!(
        !block.contains("node_modules"),
        "ignored files are not analyzed: {block}"
    );
    // The block is appended to the failed command's result, whose error flag and exit code
    // stand (the front end passes them through).
    assert!(outcome.decision.appended().is_some());
    assert!(outcome.result.is_error);
    assert_eq!(outcome.result.exit_code, Some(1));

    coordinator
        .idle()
        .await
        .expect("every background task ends within the timeout");
    let report = &coordinator.status().recent[0];
    assert_eq!(report.scope, Some(SnapshotScope::Full));
    assert_eq!(report.changes, paths(&["src/app.ts", "src/gen/b.ts"]));

    // The finished wave hands its calls and post-wave snapshot to the layers above.
    let finished = coordinator.take_finished();
    assert_eq!(finished.len(), 1);
    let wave = &finished[0];
    assert_eq!(wave.report.changes, report.changes);
    assert_eq!(
        wave.calls,
        [FinishedCall {
            id: "S".into(),
            tool: "bash".into(),
            input: json!({ "command": "codegen && exit 3" }),
            potentially_mutating: true,
            result: Some(CallResult {
                is_error: true,
                exit_code: Some(1)
            }),
        }]
    );
    let after = wave.after.as_ref().expect("a post-wave snapshot");
    assert!(after.dirty_paths().contains("src/gen/b.ts"));
    assert!(coordinator.take_finished().is_empty(), "taken once");
}

#[tokio::test]
async fn a_commit_moves_head_without_repeating_what_was_delivered() {
    let repo = TestRepo::with_commit(&[("README.md", "# r\n")]);
    let root = repo.path();
    let (coordinator, _) = real(root);
    let first = run_batch(
        &coordinator,
        vec![write_step("A", root, "a.ts", "const v = w!;\n")],
        Run::Parallel,
    )
    .await;
    assert!(appended(&first, "A").is_some());

    let dir = root.to_path_buf();
    let commit = run_batch(
        &coordinator,
        vec![
            Step::new("G", "bash", json!({ "command": "git commit" })).effect(move || {
                git(&dir, &["add", "-A"]);
                git(&dir, &["commit", "-q", "-m", "add a"]);
            }),
        ],
        Run::Parallel,
    )
    .await;
    assert_eq!(decision(&commit, "G"), &ResultDecision::Unchanged);
    coordinator
        .idle()
        .await
        .expect("every background task ends within the timeout");
    let report = coordinator.status().recent[1].clone();
    assert_eq!(
        report.changes,
        paths(&["a.ts"]),
        "the commit made a.ts clean"
    );
    assert_eq!(
        (report.scans.len(), report.known, report.delivered),
        (1, 1, 0)
    );
}

#[tokio::test]
async fn outside_git_only_explicit_targets_are_known() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (coordinator, scans) = real(root);
    let bash_dir = root.to_path_buf();
    let outcomes = run_batch(
        &coordinator,
        vec![
            write_step("W", root, "a.ts", "const v = w!;\n"),
            Step::new("B", "bash", json!({ "command": "gen" }))
                .effect(move || write(&bash_dir, "gen.ts", "const q = r!;\n")),
        ],
        Run::Parallel,
    )
    .await;
    let block = appended(&outcomes, "B").expect("a block");
    assert!(
        block.contains("a.ts:1:11") && !block.contains("gen.ts"),
        "{block}"
    );
    coordinator
        .idle()
        .await
        .expect("every background task ends within the timeout");
    let report = &coordinator.status().recent[0];
    assert!(
        matches!(&report.changes, Some(ChangeSet::Unknown { reason }) if reason.contains("not a git repository")),
        "{:?}",
        report.changes
    );
    assert_eq!((report.snapshots, report.scope.clone()), (0, None));
    assert_eq!(
        *scans.lock().unwrap(),
        [("ast-grep:builtin".to_owned(), vec!["a.ts".to_owned()])]
    );
    let finished = coordinator.take_finished();
    assert!(finished[0].after.is_none(), "no snapshot outside git");
}

//! `/reload` through the session (`Session::reload`): a verification policy that loaded before and
//! fails after the reload is degraded in the status, the footer and the doctor, its armed check
//! stays `unknown` and outstanding, and fixing it and reloading again brings it back. Also the
//! status text that says why a check is in its state (last success, last rejected run, waiver,
//! per-policy digest and load state).

use super::end_to_end::{bash, call, open, shell, state_of, wave};
use super::{NODE_VERIFICATION, node_config, node_project};
use crate::support::snapshot::assert_snapshot;
use crate::support::{ConfigRoot, TestRepo, write};
use pi_native_hooks_session::{Session, footer, render_status};
use pi_native_hooks_verification::RequirementState;
use serde_json::json;
use std::path::Path;

const POLICY: &str = "policies/node-project-verification.rhai";

/// A session opened on `repo` with the config `root` and restored from an empty branch; the repo
/// and the root come back with it, so they live as long as the test.
async fn opened(repo: TestRepo, root: ConfigRoot) -> (TestRepo, ConfigRoot, Session) {
    let session = open(repo.path(), root.path());
    session.restore(&[]).await;
    (repo, root, session)
}

/// A wave of one `write` call `id` of `src/a.ts` in `repo`, which leaves `content` in the file.
async fn write_a(session: &Session, repo: &Path, id: &'static str, content: &str) {
    wave(
        session,
        &[call(
            id,
            "write",
            json!({ "path": "src/a.ts", "content": "x" }),
        )],
        || write(repo, "src/a.ts", content),
    )
    .await;
}

/// The node project and config with an opened session after a first wave (call `W`) that
/// changes `src/a.ts`: `npm test` is armed and not run.
async fn armed() -> (TestRepo, ConfigRoot, Session) {
    let (repo, root, session) = opened(node_project(), node_config()).await;
    write_a(&session, repo.path(), "W", "export const a = 2;\n").await;
    (repo, root, session)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reloading_a_broken_armed_policy_degrades_it_keeps_its_check_unknown_and_a_fix_restores_it()
{
    let (_repo, root, session) = armed().await;
    wave(&session, &[bash("P", "npm test", 0)], || {}).await;
    assert_eq!(state_of(&session), [RequirementState::Passed]);
    let _ = session.take_state_entries();

    std::fs::write(root.path().join(POLICY), "const ID = ;\n").expect("break the policy");
    let broken = session.reload().await.expect("the reload runs");
    let status = broken.status();
    let errors = &status.hooks.config.load_errors;
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(
        errors[0].degraded_from.as_deref(),
        Some("node-project-verification")
    );
    assert_eq!(state_of(&broken), [RequirementState::Unknown]);
    let requirement = &status.hooks.verification.requirements[0];
    assert!(
        requirement
            .detached
            .as_deref()
            .is_some_and(|d| d.contains("failed to load")),
        "{requirement:?}"
    );
    assert!(
        !broken.take_state_entries().is_empty(),
        "the check made unknown is persisted"
    );
    let line = footer(&broken.footer_summary());
    assert!(
        line.ends_with("checks: 0 passed, 1 pending · degraded (/hooks-doctor)"),
        "{line}"
    );
    let text = render_status(&status);
    assert!(
        text.contains("  degraded: policy \"node-project-verification\" degraded: "),
        "{text}"
    );
    assert!(
        text.contains("    detached: policy `node-project-verification` failed to load"),
        "{text}"
    );
    let doctor = broken.doctor_text().await;
    assert!(
        doctor.contains("degraded since the last /reload (its checks stay unknown until it loads): policy \"node-project-verification\" degraded: "),
        "{doctor}"
    );
    let settle = broken.before_settle().await;
    assert!(
        settle.message.is_some_and(|m| m.contains("`npm test`")),
        "a degraded policy's check stays outstanding"
    );

    std::fs::write(root.path().join(POLICY), NODE_VERIFICATION).expect("fix the policy");
    let fixed = broken.reload().await.expect("the reload runs");
    let status = fixed.status();
    assert!(status.hooks.config.load_errors.is_empty());
    assert!(!footer(&fixed.footer_summary()).contains("degraded"));
    let requirement = &status.hooks.verification.requirements[0];
    assert_eq!(requirement.detached, None, "the policy backs it again");
    assert_eq!(
        requirement.state,
        RequirementState::Unknown,
        "still unproven until rerun"
    );
    assert_eq!(
        requirement.unknown_reason.as_deref(),
        Some(
            "policy `node-project-verification` loads again; changes made while it was not \
             loaded were not judged, so rerun the check to confirm"
        ),
        "the reason says why now, not the load error that is over"
    );
    wave(&fixed, &[bash("Q", "npm test", 0)], || {}).await;
    assert_eq!(state_of(&fixed), [RequirementState::Passed]);
    assert_eq!(fixed.before_settle().await.message, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_status_names_the_last_rejected_run_the_last_success_and_each_policy_digest() {
    let (repo, root, session) = armed().await;
    wave(
        &session,
        &[
            bash("V", "npm test", 0),
            call(
                "S",
                "write",
                json!({ "path": "docs/notes.md", "content": "y" }),
            ),
        ],
        || write(repo.path(), "docs/notes.md", "more notes\n"),
    )
    .await;
    let text = render_status(&session.status());
    let root_dir = repo.path().display();
    for expected in [
        "  node-project-verification/test `npm test`: not-run (required revision 1)\n".to_owned(),
        format!("    project `my-node-project` (package.json at {root_dir}), run in {root_dir}\n"),
        "    last success: none\n".to_owned(),
        "    last rejected run: call V at revision 1, 2023-11-14 22:13:20 UTC: `write` call S ran in the same batch and may have changed files while it ran\n".to_owned(),
    ] {
        assert!(text.contains(&expected), "{expected}\nnot in\n{text}");
    }
    let policy = root.path().join(POLICY);
    let line = text
        .lines()
        .find(|l| l.starts_with("  node-project-verification (verification) "))
        .expect("the policy is listed");
    let digest = line
        .strip_prefix(&format!(
            "  node-project-verification (verification) {}: loaded, digest ",
            policy.display()
        ))
        .expect("file, load state and digest");
    assert_eq!(digest.len(), 64, "{line}");
    assert!(digest.bytes().all(|b| b.is_ascii_hexdigit()), "{line}");

    wave(&session, &[bash("E", "npm test", 0)], || {}).await;
    let text = render_status(&session.status());
    assert!(
        text.contains(
            "    last success: call E at revision 2 (required 1), 2023-11-14 22:13:20 UTC\n"
        ),
        "{text}"
    );
}

/// Settings a reload turns on: a cap of one continuation and a declared shell tool.
const RELOADED_SETTINGS: &str = r#"[verification]
continuation_cap = 1

[[tools.shell]]
name = "run_shell"
exit_code_field = "details.exit_code"
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reloading_applies_a_changed_continuation_cap_and_shell_tool_and_a_broken_file_keeps_them()
{
    let (repo, root, session) = armed().await;
    // Before the reload `run_shell` is no shell tool: its run does not count.
    wave(&session, &[shell("R0", "run_shell", "npm test", 0)], || {}).await;
    assert_eq!(state_of(&session), [RequirementState::NotRun]);
    assert_eq!(session.status().hooks.verification.gate.continuation_cap, 8);

    std::fs::write(root.path().join("settings.toml"), RELOADED_SETTINGS).expect("settings");
    let reloaded = session.reload().await.expect("the reload runs");
    let status = reloaded.status();
    assert_eq!(status.hooks.settings.continuation_cap, 1);
    assert_eq!(status.hooks.verification.gate.continuation_cap, 1);
    assert_eq!(status.hooks.settings.problems, Vec::<String>::new());
    // The reloaded cap: one continuation, then the gate stops forcing.
    let first = reloaded.before_settle().await;
    assert!(
        first
            .message
            .is_some_and(|m| m.contains("`bash` or `run_shell` tool")),
        "the continuation names the reloaded shell tool"
    );
    let second = reloaded.before_settle().await;
    assert_eq!(second.message, None, "the cap of 1 is reached");
    assert!(
        second
            .notification
            .is_some_and(|n| n.contains("after 1 continuations")),
        "the exhaustion notice names the reloaded cap"
    );
    // The reloaded shell tool: its run of the exact command now counts.
    wave(&reloaded, &[shell("R1", "run_shell", "npm test", 0)], || {}).await;
    assert_eq!(state_of(&reloaded), [RequirementState::Passed]);

    // A settings file that no longer parses keeps the settings in force, and says so.
    std::fs::write(root.path().join("settings.toml"), "[verification\n").expect("break it");
    let broken = reloaded.reload().await.expect("the reload runs");
    let status = broken.status();
    assert_eq!(status.hooks.settings.continuation_cap, 1);
    assert_eq!(status.hooks.verification.gate.continuation_cap, 1);
    assert_eq!(
        status
            .hooks
            .settings
            .shell_tools
            .iter()
            .map(|tool| tool.name.as_str())
            .collect::<Vec<_>>(),
        ["run_shell"]
    );
    let problems = &status.hooks.settings.problems;
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].contains("settings.toml:1: not valid TOML: ")
            && problems[0].ends_with("(the settings in force before /reload are kept)"),
        "{problems:?}"
    );
    let text = render_status(&status);
    assert!(
        text.contains("settings.toml (failed to load at /reload; the settings in force before /reload are kept)"),
        "{text}"
    );
    assert!(
        text.contains("  verification.continuation_cap = 1, "),
        "{text}"
    );
    assert!(footer(&broken.footer_summary()).ends_with("degraded (/hooks-doctor)"));
    write_a(&broken, repo.path(), "W2", "export const a = 3;\n").await;
    wave(&broken, &[shell("R2", "run_shell", "npm test", 0)], || {}).await;
    assert_eq!(
        state_of(&broken),
        [RequirementState::Passed],
        "the kept shell tool still counts"
    );

    // Fixed, the file's values apply again; removed, the defaults do.
    std::fs::remove_file(root.path().join("settings.toml")).expect("remove");
    let defaults = broken.reload().await.expect("the reload runs");
    let status = defaults.status();
    assert_eq!(status.hooks.verification.gate.continuation_cap, 8);
    assert!(status.hooks.settings.problems.is_empty());
    assert!(status.hooks.settings.shell_tools.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_near_miss_of_the_command_is_a_rejected_run_in_the_status_and_the_continuation() {
    let (repo, root, session) = armed().await;
    wave(&session, &[bash("N", "npm test -- --watch", 0)], || {}).await;
    assert_eq!(state_of(&session), [RequirementState::NotRun]);
    let root_dir = repo.path().display();
    let message = session
        .before_settle()
        .await
        .message
        .expect("the check is outstanding");
    assert!(
        message.contains(&format!(
            "the run in call N did not count: not the exact command: expected `npm test` in {root_dir}"
        )),
        "{message}"
    );
    let text = render_status(&session.status());
    assert!(
        text.contains(&format!(
            "    last rejected run: call N at revision 1, 2023-11-14 22:13:20 UTC: not the exact command: expected `npm test` in {root_dir}\n"
        )),
        "{text}"
    );
    let paths = [(repo.path(), "[repo]"), (root.path(), "[root]")];
    assert_snapshot!("near_miss_status", text, redact = &paths);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_glob_that_matches_nothing_is_named_in_status_and_doctor_and_a_reload_matches_again() {
    let glob_policy = |glob: &str| {
        format!(
            "const ID = \"pkg-tests\";\nconst KIND = \"verification\";\nconst PROJECT = #{{ manifests: \"{glob}\" }};\nconst REQUIREMENTS = [ #{{ id: \"test\", command: \"npm test\", affects: \"code\" }} ];\nfn code(path) {{ path.ends_with(\".ts\") }}\n"
        )
    };
    let root = ConfigRoot::builder()
        .policy("pkg.rhai", &glob_policy("packages/*/package.json"))
        .build();
    let (repo, root, session) = opened(node_project(), root).await;
    let status = session.status();
    assert!(
        status.hooks.config.load_errors.is_empty(),
        "the policy loads"
    );
    assert!(status.hooks.verification.requirements.is_empty());
    let expected = "project problem: policy `pkg-tests`: `PROJECT.manifests` \"packages/*/package.json\" matched no manifest, so it requires nothing";
    let text = render_status(&status);
    assert!(text.contains(&format!("  {expected}\n")), "{text}");
    let doctor = session.doctor_text().await;
    assert!(doctor.contains(&format!("{expected}\n")), "{doctor}");

    // `**/package.json` matches the root's manifest: a project at the root, keyed as one.
    std::fs::write(
        root.path().join("policies/pkg.rhai"),
        glob_policy("**/package.json"),
    )
    .expect("edit the policy");
    let reloaded = session.reload().await.expect("the reload runs");
    let status = reloaded.status();
    assert!(status.hooks.verification.project_problems.is_empty());
    let requirement = &status.hooks.verification.requirements[0];
    assert_eq!(requirement.key.to_string(), "pkg-tests/test");
    assert_eq!(requirement.project.name, "my-node-project");
    write_a(&reloaded, repo.path(), "W", "export const a = 2;\n").await;
    assert_eq!(state_of(&reloaded), [RequirementState::NotRun]);
    wave(&reloaded, &[bash("P", "npm test", 0)], || {}).await;
    assert_eq!(state_of(&reloaded), [RequirementState::Passed]);
}

//! The session façade end to end on real git repositories and a real config root (created by
//! `init` in a temp dir): Pi's events in the order Pi 1.6 sends them, diagnostics appended to
//! one carrier, the verification gate fed by finished waves, waivers, persisted state and its
//! restore, and an inactive session without a config root.

use super::{node_config, node_project};
use crate::support::snapshot::assert_snapshot;
use crate::support::{ConfigRoot, write};
use pi_native_hooks_session::{Session, SessionOptions, footer, render_status};
use pi_native_hooks_verification::state::{BranchEntry, StateEntry};
use pi_native_hooks_verification::{RequirementState, Timestamp};
use pi_native_hooks_wave::{AssistantMessage, ExecutionMode, ToolCallInfo, ToolResult};
use serde_json::{Value, json};
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

pub(super) fn open(repo: &Path, root: &Path) -> Session {
    open_with_timeout(repo, root, 10_000)
}

/// A session whose waits all end after `millis`.
fn open_with_timeout(repo: &Path, root: &Path, millis: u64) -> Session {
    let mut options = SessionOptions::new(repo, root);
    options.clock = Arc::new(|| Timestamp(1_700_000_000_000));
    options.overrides.wave_timeout = Some(Duration::from_millis(millis));
    Session::open(options)
}

/// Replaces `.git/info/exclude` with a FIFO nobody writes to, so every full git status blocks
/// opening it (gix opens it itself: a read the engine cannot make non-blocking). Returns it.
fn block_git_status(repo: &Path) -> PathBuf {
    let fifo = repo.join(".git/info/exclude");
    let _ = std::fs::remove_file(&fifo);
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    fifo
}

/// Calls [`unblock`] on its FIFO when dropped, so a failing assertion releases the blocked
/// threads too (the test's runtime waits for them before the failure is reported).
struct UnblockOnDrop(PathBuf);

impl Drop for UnblockOnDrop {
    fn drop(&mut self) {
        unblock(&self.0);
    }
}

/// Releases every reader blocked opening `fifo` (they read an empty file) and puts a regular file
/// in its place, so no blocked thread outlives the test.
fn unblock(fifo: &Path) {
    // Opening a FIFO for reading and writing never blocks; a writer releases the blocked readers.
    let writer = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(fifo)
        .expect("open the FIFO");
    let regular = fifo.with_extension("regular");
    std::fs::write(&regular, "").expect("write");
    std::fs::rename(&regular, fifo).expect("replace the FIFO");
    drop(writer);
}

pub(super) struct Call {
    id: &'static str,
    tool: &'static str,
    input: Value,
    is_error: bool,
    exit_code: Option<i64>,
}

pub(super) fn call(id: &'static str, tool: &'static str, input: Value) -> Call {
    Call {
        id,
        tool,
        input,
        is_error: false,
        exit_code: None,
    }
}

pub(super) fn bash(id: &'static str, command: &str, exit_code: i64) -> Call {
    Call {
        id,
        tool: "bash",
        input: json!({ "command": command }),
        is_error: exit_code != 0,
        exit_code: Some(exit_code),
    }
}

/// A call of `tool`, a shell tool declared in the settings (or not), whose exit code the binding
/// read as `exit_code`.
pub(super) fn shell(id: &'static str, tool: &'static str, command: &str, exit_code: i64) -> Call {
    Call {
        tool,
        ..bash(id, command, exit_code)
    }
}

/// Plays one parallel wave as Pi 1.6 does: every start and preflight in source order, then the
/// effects, then each result (in reverse order) and its end. Returns the block appended to each
/// call's result, if any.
pub(super) async fn wave(
    session: &Session,
    calls: &[Call],
    effect: impl FnOnce(),
) -> Vec<Option<String>> {
    let infos: Vec<ToolCallInfo> = calls
        .iter()
        .map(|c| ToolCallInfo::new(c.id, c.tool, c.input.clone()))
        .collect();
    session.assistant_message(AssistantMessage {
        calls: infos.clone(),
        mode: ExecutionMode::Parallel,
    });
    for info in &infos {
        session.tool_execution_start(info.clone());
        session.tool_call(info.clone()).await;
    }
    effect();
    let mut patches = vec![None; calls.len()];
    let results = calls.iter().enumerate().rev().map(|(index, c)| {
        let result = ToolResult {
            call: ToolCallInfo::new(c.id, c.tool, c.input.clone()),
            is_error: c.is_error,
            exit_code: c.exit_code,
        };
        async move {
            let decision = session.tool_result(&result).await;
            (index, decision.appended().map(str::to_owned))
        }
    });
    for (index, patch) in join_all(results.collect()).await {
        patches[index] = patch;
        session.tool_execution_end(calls[index].id);
    }
    patches
}

/// Polls every future together, as Pi runs sibling `tool_result` handlers concurrently (the
/// carrier's handler waits until every sibling is terminal).
async fn join_all<F: Future>(futures: Vec<F>) -> Vec<F::Output> {
    let mut pinned: Vec<_> = futures.into_iter().map(Box::pin).collect();
    let mut outputs: Vec<Option<F::Output>> = pinned.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (slot, future) in outputs.iter_mut().zip(pinned.iter_mut()) {
            if slot.is_none() {
                match future.as_mut().poll(cx) {
                    std::task::Poll::Ready(value) => *slot = Some(value),
                    std::task::Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            std::task::Poll::Pending
        } else {
            std::task::Poll::Ready(())
        }
    })
    .await;
    outputs.into_iter().flatten().collect()
}

fn block(appended: &str) -> &str {
    appended
}

fn branch(entries: &[StateEntry]) -> Vec<BranchEntry> {
    entries
        .iter()
        .enumerate()
        .map(|(i, e)| BranchEntry {
            id: format!("e{i}"),
            custom_type: e.custom_type.to_owned(),
            data: e.data.clone(),
        })
        .collect()
}

pub(super) fn state_of(session: &Session) -> Vec<RequirementState> {
    session
        .status()
        .hooks
        .verification
        .requirements
        .iter()
        .map(|r| r.state)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_wave_gets_one_block_and_arms_the_gate_until_the_exact_command_passes() {
    let (repo, root) = (node_project(), node_config());
    let session = open(repo.path(), root.path());
    assert!(session.restore(&[]).await.restored_from.is_none());
    assert_eq!(state_of(&session), [RequirementState::Inactive]);

    let dir = repo.path().to_path_buf();
    let patches = wave(
        &session,
        &[
            call("A", "write", json!({ "path": "src/a.ts", "content": "x" })),
            call("B", "write", json!({ "path": "src/b.tsx", "content": "y" })),
        ],
        || {
            write(
                &dir,
                "src/a.ts",
                "declare const u: { n?: string };\nexport const a = u!.n;\n",
            );
            write(
                &dir,
                "src/b.tsx",
                "export const B = () => <div>{String(import(\"./c\"))}</div>;\n",
            );
        },
    )
    .await;
    let carrier = patches[1]
        .as_ref()
        .expect("the last mutating call carries the block");
    assert!(patches[0].is_none(), "exactly one carrier");
    let text = block(carrier);
    assert!(
        text.contains("src/a.ts:2:18") && text.contains("typescript-no-non-null-assertion-ts"),
        "{text}"
    );
    assert!(
        text.contains("src/b.tsx:1:37") && text.contains("typescript-no-dynamic-import-tsx"),
        "{text}"
    );
    assert!(
        text.contains("// ast-grep-ignore: typescript-no-dynamic-import-tsx -- <reason>"),
        "{text}"
    );

    let status = session.status();
    assert_eq!(status.totals.scans, 1, "one scan for the wave");
    assert_eq!(state_of(&session), [RequirementState::NotRun]);
    assert!(
        !session.take_state_entries().is_empty(),
        "arming is persisted"
    );

    let settle = session.before_settle().await;
    let message = settle.message.expect("the gate sends the agent back");
    assert!(
        message.contains("`npm test`") && message.contains(&repo.path().display().to_string()),
        "{message}"
    );
    assert!(message.contains("pi_hooks_waive_verification"), "{message}");

    // A different command, then a failing run, do not count.
    wave(&session, &[bash("C", "npm test -- --watch", 0)], || {}).await;
    wave(&session, &[bash("D", "npm test", 1)], || {}).await;
    assert_eq!(state_of(&session), [RequirementState::Failed]);
    assert!(session.before_settle().await.message.is_some());

    wave(&session, &[bash("E", "npm test", 0)], || {}).await;
    assert_eq!(state_of(&session), [RequirementState::Passed]);
    let settle = session.before_settle().await;
    assert_eq!(settle.message, None);
    assert!(
        footer(&session.footer_summary()).contains("checks: 1 passed, 0 pending"),
        "{}",
        footer(&session.footer_summary())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiver_needs_a_reason_clears_the_gate_and_expires_at_the_next_relevant_change() {
    let (repo, root) = (node_project(), node_config());
    let session = open(repo.path(), root.path());
    session.restore(&[]).await;
    let refused = session.waive("W0", "nothing to skip").await;
    assert!(
        refused.waiver.is_none() && refused.message.contains("nothing to waive"),
        "{}",
        refused.message
    );

    let dir = repo.path().to_path_buf();
    wave(
        &session,
        &[call("A", "write", json!({ "path": "src/app.ts" }))],
        || write(&dir, "src/app.ts", "export const app = 2;\n"),
    )
    .await;
    let empty = session.waive("W1", "   ").await;
    assert!(
        empty.waiver.is_none() && empty.message.contains("needs a reason"),
        "{}",
        empty.message
    );

    let waived = session.waive("W2", "the registry is offline").await;
    assert!(waived.waiver.is_some());
    assert!(
        waived
            .message
            .contains("Verification skipped (waived, not passed)")
            && waived.message.contains("`npm test`"),
        "{}",
        waived.message
    );
    assert!(!waived.entries.is_empty(), "the waiver is persisted");
    assert_eq!(state_of(&session), [RequirementState::Waived]);
    assert_eq!(session.before_settle().await.message, None);

    // Documentation is irrelevant to `npm test`: the waiver holds.
    wave(
        &session,
        &[call("B", "edit", json!({ "path": "docs/notes.md" }))],
        || write(&dir, "docs/notes.md", "more\n"),
    )
    .await;
    assert_eq!(state_of(&session), [RequirementState::Waived]);
    // Code is relevant: the waiver expires.
    wave(
        &session,
        &[call("C", "edit", json!({ "path": "src/app.ts" }))],
        || write(&dir, "src/app.ts", "export const app = 3;\n"),
    )
    .await;
    assert_eq!(state_of(&session), [RequirementState::Stale]);
    assert!(session.before_settle().await.message.is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn state_entries_restore_an_armed_gate_in_a_new_session() {
    let (repo, root) = (node_project(), node_config());
    let first = open(repo.path(), root.path());
    let mut entries = first.restore(&[]).await.entries;
    let dir = repo.path().to_path_buf();
    wave(
        &first,
        &[call("A", "write", json!({ "path": "src/app.ts" }))],
        || write(&dir, "src/app.ts", "export const app = 2;\n"),
    )
    .await;
    entries.extend(first.take_state_entries());
    first.shutdown();

    let second = open(repo.path(), root.path());
    let restored = second.restore(&branch(&entries)).await;
    assert!(restored.restored_from.is_some());
    assert_eq!(state_of(&second), [RequirementState::NotRun]);
    assert!(second.before_settle().await.message.is_some());

    // A fresh branch (no entries) treats the dirty file as an unarmed baseline.
    let third = open(repo.path(), root.path());
    third.restore(&[]).await;
    assert_eq!(state_of(&third), [RequirementState::Inactive]);
    assert_eq!(third.before_settle().await.message, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_config_root_the_session_runs_the_built_in_pack_without_verification() {
    let repo = node_project();
    let home = tempfile::tempdir().expect("temp dir");
    let absent = home.path().join("absent");
    let session = Session::open(SessionOptions::new(repo.path(), &absent));
    session.restore(&[]).await;
    let dir = repo.path().to_path_buf();
    let patches = wave(
        &session,
        &[call("A", "write", json!({ "path": "src/a.ts" }))],
        || write(&dir, "src/a.ts", "export const a = b!;\n"),
    )
    .await;
    let block = patches[0]
        .as_deref()
        .expect("the built-in pack's diagnostic");
    assert!(
        block.contains("typescript-no-non-null-assertion-ts (warning):")
            && block.contains("\n  src/a.ts:1:18\n"),
        "{block}"
    );
    // The pack holds no verification policy: nothing is armed, the agent may settle.
    assert_eq!(session.before_settle().await.message, None);
    let status = session.status();
    assert!(status.active);
    assert!(status.hooks.verification.requirements.is_empty());
    assert_eq!(
        footer(&session.footer_summary()),
        "hooks: built-in pack · 1 diagnostics"
    );
    let text = render_status(&status);
    let paths = [(repo.path(), "[repo]"), (home.path(), "[home]")];
    assert_snapshot!("builtin_status", text, redact = &paths);
    let doctor = session.doctor_text().await;
    assert!(
        doctor.starts_with(
            "in use: the built-in pack (no config root exists; verification is off)\n"
        ),
        "{doctor}"
    );
    assert!(
        doctor.contains("/hooks-init in Pi or `pi-native-hooks init` in a terminal"),
        "{doctor}"
    );
    // Nothing was created where the root would be.
    assert!(std::fs::symlink_metadata(&absent).is_err());
    assert_eq!(std::fs::read_dir(home.path()).expect("home").count(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_untrusted_config_root_is_not_replaced_by_the_built_in_pack() {
    use std::os::unix::fs::PermissionsExt;
    let repo = node_project();
    let root = ConfigRoot::builtin();
    std::fs::set_permissions(root.path(), std::fs::Permissions::from_mode(0o777))
        .expect("chmod the root");
    let session = open(repo.path(), root.path());
    session.restore(&[]).await;
    let status = session.status();
    assert!(!status.active);
    assert_eq!(
        footer(&session.footer_summary()),
        "hooks: inactive, config root not trusted (/hooks-doctor)"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_policy_failing_at_run_time_is_named_in_the_status_the_doctor_and_the_footer() {
    let (repo, root) = (node_project(), node_config());
    root.write_policy(
        "throws.rhai",
        "const ID = \"throws\";\nconst KIND = \"diagnostic\";\nconst ANALYZER = \"ast-grep\";\n\
         const RULES = [\"typescript-no-non-null-assertion-ts\"];\n\n\
         fn evaluate(snapshot) {\n    throw \"no luck\";\n}\n",
    );
    let policy = root.path().join("policies/throws.rhai");
    let session = open(repo.path(), root.path());
    session.restore(&[]).await;
    assert_eq!(
        footer(&session.footer_summary()),
        format!("hooks: {} · 0 diagnostics", root.path().display())
    );

    let dir = repo.path().to_path_buf();
    let patches = wave(
        &session,
        &[call("A", "write", json!({ "path": "src/a.ts" }))],
        || {
            write(
                &dir,
                "src/a.ts",
                "declare const u: { n?: string };\nexport const a = u!.n;\n",
            );
        },
    )
    .await;
    let text = block(
        patches[0]
            .as_ref()
            .expect("the sibling policy still reports"),
    );
    assert!(
        text.contains("typescript-no-non-null-assertion-ts"),
        "{text}"
    );
    assert!(text.contains("incomplete (1 policy failed)"), "{text}");

    let expected = format!(
        "{}:7:5: `evaluate` failed: Runtime error: no luck",
        policy.display()
    );
    let status = session.status();
    assert_eq!(
        status.policy_failures.len(),
        1,
        "{:?}",
        status.policy_failures
    );
    assert!(
        status.policy_failures[0].starts_with(&expected),
        "{:?}",
        status.policy_failures
    );
    let doctor = session.doctor_text().await;
    let paths = [(repo.path(), "[repo]"), (root.path(), "[config]")];
    assert_snapshot!(
        "failing_policy_status",
        render_status(&status),
        redact = &paths
    );
    assert_snapshot!("failing_policy_doctor", doctor, redact = &paths);
    assert_eq!(
        footer(&session.footer_summary()),
        format!(
            "hooks: {} · 1 diagnostics · checks: 0 passed, 1 pending · degraded (/hooks-doctor)",
            root.path().display()
        )
    );

    // The same failure again is kept once.
    wave(
        &session,
        &[call("B", "write", json!({ "path": "src/a.ts" }))],
        || {
            write(
                &dir,
                "src/a.ts",
                "declare const u: { n?: string };\nexport const b = u!.n;\n",
            );
        },
    )
    .await;
    assert_eq!(session.status().policy_failures.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settling_a_project_no_verification_policy_matches_leaves_the_workspace_record_alone() {
    let (repo, root) = (node_project(), node_config());
    write(
        repo.path(),
        "package.json",
        "{ \"name\": \"another-project\" }\n",
    );
    let session = open(repo.path(), root.path());
    session.restore(&[]).await;
    let before = session.status().hooks.verification.workspace;
    for _ in 0..3 {
        assert_eq!(session.before_settle().await.message, None);
    }
    let after = session.status().hooks.verification.workspace;
    assert_eq!(after, before);
    assert_eq!(after.unknown, None, "{after:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_settle_or_restore_whose_snapshot_blocks_returns_at_the_deadline_with_the_check_unknown()
{
    let (repo, root) = (node_project(), node_config());
    let session = open_with_timeout(repo.path(), root.path(), 300);
    let mut entries = session.restore(&[]).await.entries;
    let dir = repo.path().to_path_buf();
    wave(
        &session,
        &[call("A", "write", json!({ "path": "src/app.ts" }))],
        || write(&dir, "src/app.ts", "export const app = 2;\n"),
    )
    .await;
    assert_eq!(state_of(&session), [RequirementState::NotRun]);
    entries.extend(session.take_state_entries());

    let blocked = UnblockOnDrop(block_git_status(repo.path()));
    let settle = session.before_settle().await;
    let timed_out = "the workspace snapshot for the settle check did not finish within 300 ms";
    let message = settle
        .message
        .expect("the check cannot be proven: the agent goes on");
    assert!(
        message.contains(&format!(
            "- `npm test` — unproven: the workspace snapshot failed: {timed_out}"
        )),
        "{message}"
    );
    assert_eq!(state_of(&session), [RequirementState::Unknown]);
    let failures = session.status().hooks.coordinator_failures;
    assert!(failures.contains(&timed_out.to_owned()), "{failures:?}");

    // A restore on the same workspace: the recorded state cannot be compared, so the armed check
    // is unknown, never passed.
    let second = open_with_timeout(repo.path(), root.path(), 300);
    let restored = second.restore(&branch(&entries)).await;
    drop(blocked);
    assert!(restored.restored_from.is_some());
    assert_eq!(state_of(&second), [RequirementState::Unknown]);
    let failures = second.status().hooks.coordinator_failures;
    assert_eq!(
        failures,
        ["the workspace snapshot for the restore did not finish within 300 ms"]
    );
}

/// Why the armed check is unknown after [`arm_then_block_git_status`] (with a 300 ms wave timeout).
const STILL_PROCESSING: &str =
    "tool calls were still being processed after 300 ms, so what they changed cannot be proven";

/// Arms the check with a write wave, then runs a wave whose call makes every git status block,
/// so that wave's post-wave snapshot never finishes: its handler is released at the timeout.
/// Dropping the returned guard releases the blocked status.
async fn arm_then_block_git_status(session: &Session, repo: &Path) -> UnblockOnDrop {
    session.restore(&[]).await;
    let dir = repo.to_path_buf();
    wave(
        session,
        &[call("A", "write", json!({ "path": "src/app.ts" }))],
        || write(&dir, "src/app.ts", "export const app = 2;\n"),
    )
    .await;
    assert_eq!(state_of(session), [RequirementState::NotRun]);
    let unblock = UnblockOnDrop(repo.join(".git/info/exclude"));
    let patches = wave(session, &[bash("B", "mkfifo .git/info/exclude", 0)], || {
        block_git_status(&dir);
    })
    .await;
    assert_eq!(patches, [None], "the handler was released at the timeout");
    unblock
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wave_still_processing_makes_the_armed_check_unknown_and_settle_and_waiver_return() {
    let (repo, root) = (node_project(), node_config());
    let session = open_with_timeout(repo.path(), root.path(), 300);
    let _unblock = arm_then_block_git_status(&session, repo.path()).await;

    let settle = session.before_settle().await;
    let message = settle
        .message
        .expect("the check cannot be proven: the agent goes on");
    assert!(message.contains(STILL_PROCESSING), "{message}");
    assert_eq!(state_of(&session), [RequirementState::Unknown]);
    let failures = session.status().hooks.coordinator_failures;
    assert!(
        failures.iter().any(|f| f.ends_with(
            "wave tasks were still running after 300 ms; what they change cannot be proven"
        )),
        "{failures:?}"
    );

    let waived = session.waive("W", "git status hangs on a FIFO").await;
    assert!(waived.waiver.is_some(), "{}", waived.message);
    assert_eq!(state_of(&session), [RequirementState::Waived]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reload_while_a_wave_is_still_processing_carries_the_check_over_as_unknown() {
    let (repo, root) = (node_project(), node_config());
    let session = open_with_timeout(repo.path(), root.path(), 300);
    let _unblock = arm_then_block_git_status(&session, repo.path()).await;

    // `/reload` waits for the wave at most the timeout, then hands the gate over with what the
    // wave changed unproven: the check is not left as it was before the wave.
    let reloaded = session.reload().await.expect("the reload runs");
    let status = reloaded.status();
    let requirement = &status.hooks.verification.requirements[0];
    assert_eq!(requirement.state, RequirementState::Unknown);
    assert_eq!(
        requirement.unknown_reason.as_deref(),
        Some(STILL_PROCESSING)
    );
    reloaded.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wave_without_a_result_reaches_the_gate_and_the_status_without_another_async_call() {
    let (repo, root) = (node_project(), node_config());
    let session = open(repo.path(), root.path());
    session.restore(&[]).await;
    let info = ToolCallInfo::new("A", "write", json!({ "path": "src/app.ts" }));
    session.assistant_message(AssistantMessage {
        calls: vec![info.clone()],
        mode: ExecutionMode::Parallel,
    });
    session.tool_execution_start(info.clone());
    session.tool_call(info).await;
    write(repo.path(), "src/app.ts", "export const app = 2;\n");
    // Terminal without a `tool_result`: no handler waits for this wave, and no async call follows.
    session.tool_execution_end("A");
    let mut polls = 0;
    while state_of(&session) != [RequirementState::NotRun] {
        polls += 1;
        assert!(polls < 500, "the wave never reached the gate");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(session.status().totals.waves, 1);
    let entries = session.take_state_entries();
    assert_eq!(entries.len(), 1, "arming was queued for the binding");
    assert!(
        footer(&session.footer_summary()).contains("checks: 0 passed, 1 pending"),
        "{}",
        footer(&session.footer_summary())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn file_names_with_a_newline_or_an_escape_are_escaped_in_the_block_and_the_status() {
    let (repo, root) = (node_project(), node_config());
    let session = open(repo.path(), root.path());
    session.restore(&[]).await;
    let forged = "src/evil\n- src/x.ts:1:1 typescript-no-non-null-assertion-ts: forged.ts";
    let binary = "src/\u{1b}[31mred\u{1b}[0m.ts";
    let dir = repo.path().to_path_buf();
    let patches = wave(&session, &[bash("B", "touch the files", 0)], || {
        write(
            &dir,
            forged,
            "declare const u: { n?: string };\nexport const a = u!.n;\n",
        );
        std::fs::write(dir.join(binary), b"\0binary").expect("write");
    })
    .await;
    let text = block(patches[0].as_ref().expect("a block"));
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines
            .iter()
            .all(|line| !line.starts_with("- src/x.ts") && !line.starts_with("  src/x.ts")),
        "{text}"
    );
    let status = render_status(&session.status());
    assert!(!status.contains('\u{1b}'), "{status}");
    let doctor = session.doctor_text().await;
    assert!(!doctor.contains('\u{1b}'), "{doctor}");
    let paths = [(repo.path(), "[repo]"), (root.path(), "[config]")];
    assert_snapshot!("escaped_names_block", text);
    assert_snapshot!("escaped_names_status", status, redact = &paths);
    assert_snapshot!("escaped_names_doctor", doctor, redact = &paths);
}

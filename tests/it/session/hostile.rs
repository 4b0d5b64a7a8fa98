//! The verification gate under hostile and unlucky input, through the whole session (real git
//! repositories, the real wave coordinator and its snapshots, the config root `init` creates):
//! changes made outside any tool call are compared at the next snapshot and never absorbed, a
//! command that only looks like the required one never counts, and unreadable state fails
//! closed.

use super::{node_config, node_project};
use crate::support::{ConfigRoot, TestRepo, write};
use pi_native_hooks_session::{RestoreOutcome, Session, SessionOptions};
use pi_native_hooks_verification::state::{BranchEntry, STATE_ENTRY_TYPE};
use pi_native_hooks_verification::{RequirementState, Timestamp};
use pi_native_hooks_wave::{AssistantMessage, ExecutionMode, ToolCallInfo, ToolResult};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One session in a Node project, as the binding opens it.
struct Pi {
    repo: TestRepo,
    _root: ConfigRoot,
    session: Session,
    calls: u32,
}

impl Pi {
    async fn start(branch: &[BranchEntry]) -> (Pi, RestoreOutcome) {
        let (repo, root) = (node_project(), node_config());
        let mut options = SessionOptions::new(repo.path(), root.path());
        options.clock = Arc::new(|| Timestamp(1_700_000_000_000));
        let session = Session::open(options);
        let restored = session.restore(branch).await;
        let pi = Pi {
            repo,
            _root: root,
            session,
            calls: 0,
        };
        (pi, restored)
    }

    fn dir(&self) -> PathBuf {
        self.repo.path().to_path_buf()
    }

    /// Plays one tool call as its own wave, in the order Pi 1.6 sends the events: `effect` runs
    /// while the tool runs (after the baseline snapshot).
    async fn call(
        &mut self,
        tool: &str,
        input: Value,
        exit_code: Option<i64>,
        effect: impl FnOnce(),
    ) {
        self.calls += 1;
        let id = format!("call-{}", self.calls);
        let info = ToolCallInfo::new(&id, tool, input.clone());
        self.session.assistant_message(AssistantMessage {
            calls: vec![info.clone()],
            mode: ExecutionMode::Parallel,
        });
        self.session.tool_execution_start(info.clone());
        self.session.tool_call(info).await;
        effect();
        let result = ToolResult {
            call: ToolCallInfo::new(&id, tool, input),
            is_error: exit_code.is_some_and(|code| code != 0),
            exit_code,
        };
        self.session.tool_result(&result).await;
        self.session.tool_execution_end(&id);
    }

    async fn bash(&mut self, command: &str, exit_code: i64) {
        self.call(
            "bash",
            json!({ "command": command }),
            Some(exit_code),
            || {},
        )
        .await;
    }

    async fn write(&mut self, path: &str, content: &str) {
        let dir = self.dir();
        self.call(
            "write",
            json!({ "path": path, "content": content }),
            None,
            || write(&dir, path, content),
        )
        .await;
    }

    /// The session's requirement states (the example policy has one: `npm test`).
    fn states(&self) -> Vec<RequirementState> {
        self.session
            .status()
            .hooks
            .verification
            .requirements
            .iter()
            .map(|requirement| requirement.state)
            .collect()
    }

    /// `npm test` armed by a write and then passed, and the gate letting the agent settle.
    async fn passed() -> Pi {
        let (mut pi, _) = Pi::start(&[]).await;
        pi.write("src/app.ts", "export const app = 2;\n").await;
        pi.bash("npm test", 0).await;
        assert_eq!(pi.states(), [RequirementState::Passed]);
        assert_eq!(pi.session.before_settle().await.message, None);
        pi
    }
}

/// An edit by something other than a tool call: the user's editor, a background job.
fn out_of_band(dir: &Path) {
    write(
        dir,
        "src/app.ts",
        "export const app = 'edited in an editor';\n",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_out_of_band_edit_followed_by_a_bash_wave_leaves_the_pass_stale() {
    let mut pi = Pi::passed().await;
    out_of_band(&pi.dir());
    pi.bash("git status", 0).await;

    assert_eq!(pi.states(), [RequirementState::Stale]);
    let message = pi.session.before_settle().await.message;
    assert!(
        message.as_deref().is_some_and(|m| m.contains("`npm test`")),
        "{message:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_out_of_band_edit_followed_by_a_path_limited_write_wave_leaves_the_pass_stale() {
    let mut pi = Pi::passed().await;
    out_of_band(&pi.dir());
    pi.write("docs/notes.md", "written by the agent\n").await;

    let message = pi.session.before_settle().await.message;
    assert!(
        message.as_deref().is_some_and(|m| m.contains("`npm test`")),
        "{message:?}"
    );
    assert_eq!(pi.states(), [RequirementState::Stale]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_out_of_band_edit_of_the_written_file_is_not_absorbed_by_the_write() {
    let mut pi = Pi::passed().await;
    let content = "export const app = 'the same text, first by the user';\n";
    write(&pi.dir(), "src/app.ts", content);
    pi.write("src/app.ts", content).await;

    assert_eq!(pi.states(), [RequirementState::Stale]);
    assert!(pi.session.before_settle().await.message.is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_out_of_band_edit_followed_by_the_exact_command_passes() {
    let mut pi = Pi::passed().await;
    out_of_band(&pi.dir());
    pi.bash("npm test", 0).await;

    assert_eq!(pi.states(), [RequirementState::Passed]);
    assert_eq!(pi.session.before_settle().await.message, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_that_only_looks_like_the_required_one_never_passes() {
    let (mut pi, _) = Pi::start(&[]).await;
    pi.write("src/app.ts", "export const app = 2;\n").await;
    for command in [
        "npm test\u{a0}",
        "npm test\r",
        "npm test\u{b}",
        "\u{3000}npm test",
    ] {
        pi.bash(command, 0).await;
        assert_eq!(pi.states(), [RequirementState::NotRun], "{command:?}");
    }
    assert!(pi.session.before_settle().await.message.is_some());
    pi.bash("\tnpm test \n", 0).await;
    assert_eq!(pi.states(), [RequirementState::Passed]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unreadable_state_restores_the_checks_as_unknown_with_a_warning() {
    let branch = [BranchEntry {
        id: "future".to_owned(),
        custom_type: STATE_ENTRY_TYPE.to_owned(),
        data: json!({ "version": "pi-native-hooks-state-v9", "gate": {} }),
    }];
    let (pi, restored) = Pi::start(&branch).await;

    let warnings = &restored.warnings;
    assert_eq!(restored.restored_from, None);
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings[0].contains("newer version"), "{warnings:?}");
    assert!(warnings[1].contains("could be read"), "{warnings:?}");
    assert_eq!(pi.states(), [RequirementState::Unknown]);
    assert_eq!(
        restored.entries.len(),
        1,
        "the fail-closed state is persisted"
    );
    let message = pi.session.before_settle().await.message;
    assert!(
        message
            .as_deref()
            .is_some_and(|m| m.contains("`npm test`") && m.contains("could not be read")),
        "{message:?}"
    );
}

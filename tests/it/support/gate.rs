//! The gate's driver for the verification, state and status tests: the demo project and its
//! verification policy, and a [`Session`] that plays the wave coordinator (real snapshots before
//! and after each wave) and the binding (state entries appended to a branch, injected time) around
//! the real gate.

use super::{ConfigRoot, TestRepo};
use pi_native_hooks_verification::state::{self, BranchEntry, RestoreReport};
use pi_native_hooks_verification::{
    CallOutcome, DEFAULT_CONTINUATION_CAP, GateConfig, ObservedCall, RequirementState,
    SettleDecision, Timestamp, TrackedRequirement, VerificationGate, Waiver, WaiverError,
    WaiverRequest, WaveObservation, WorkspaceObservation,
};
use pi_native_hooks_workspace::{
    ChangeSet, MutatingCall, capture, capture_paths, changeset_without_git,
};
use std::path::{Path, PathBuf};

/// The verification policy most tests use: `npm test` for TypeScript and the manifest,
/// `npm run docs` for `docs/`. `README.md` matters to neither.
pub const DEMO_POLICY: &str = r#"
const ID = "demo-verification";
const KIND = "verification";
const PROJECT = #{ manifest: "package.json", name: "demo" };
const REQUIREMENTS = [
    #{ id: "test", command: "npm test", affects: "affects_code" },
    #{ id: "docs", command: "npm run docs", affects: "affects_docs" },
];

fn affects_code(path) {
    path.ends_with(".ts") || path == "package.json"
}

fn affects_docs(path) {
    path.starts_with("docs/")
}
"#;

impl TestRepo {
    /// The demo project: `package.json` named `demo`, a TypeScript file, a README and docs.
    pub fn demo() -> TestRepo {
        TestRepo::with_commit(&[
            (
                "package.json",
                r#"{"name": "demo", "scripts": {"test": "true"}}"#,
            ),
            ("src/a.ts", "export const a = 1;\n"),
            ("README.md", "# demo\n"),
            ("docs/guide.md", "# guide\n"),
        ])
    }

    /// The live workspace, as the binding passes it at settle and session start.
    pub fn live(&self) -> WorkspaceObservation {
        WorkspaceObservation::of_capture(capture(self.path()))
    }
}

impl ConfigRoot {
    /// A root holding [`DEMO_POLICY`].
    pub fn demo() -> ConfigRoot {
        ConfigRoot::with_policies(&[("demo.rhai", DEMO_POLICY)])
    }
}

/// A `bash` call.
pub fn bash(id: &str, command: &str, cwd: &Path, outcome: CallOutcome) -> ObservedCall {
    ObservedCall {
        id: id.into(),
        tool: "bash".to_owned(),
        input: serde_json::json!({ "command": command }),
        cwd: cwd.to_path_buf(),
        potentially_mutating: true,
        outcome,
    }
}

/// A `write` call of `path`.
pub fn write_call(id: &str, path: &str, cwd: &Path) -> ObservedCall {
    ObservedCall {
        id: id.into(),
        tool: "write".to_owned(),
        input: serde_json::json!({ "path": path, "content": "" }),
        cwd: cwd.to_path_buf(),
        potentially_mutating: true,
        outcome: CallOutcome::Finished {
            is_error: false,
            exit_code: None,
        },
    }
}

/// A `read` call (read-only).
pub fn read_call(id: &str, path: &str, cwd: &Path) -> ObservedCall {
    ObservedCall {
        id: id.into(),
        tool: "read".to_owned(),
        input: serde_json::json!({ "path": path }),
        cwd: cwd.to_path_buf(),
        potentially_mutating: false,
        outcome: CallOutcome::Finished {
            is_error: false,
            exit_code: None,
        },
    }
}

/// Exit code 0, no error.
pub fn success() -> CallOutcome {
    CallOutcome::Finished {
        is_error: false,
        exit_code: Some(0),
    }
}

/// A nonzero exit, which Pi reports as an error.
pub fn exit(code: i64) -> CallOutcome {
    CallOutcome::Finished {
        is_error: true,
        exit_code: Some(code),
    }
}

/// One Pi session on a branch: the gate, the branch's appended entries and an injected clock.
pub struct Session {
    /// The project.
    pub repo: TestRepo,
    /// The policies.
    pub config: ConfigRoot,
    /// The gate under test.
    pub gate: VerificationGate,
    /// The state entries appended on this branch, oldest first.
    pub branch: Vec<BranchEntry>,
    /// What the last restore used.
    pub restored: RestoreReport,
    clock: u64,
    ids: u64,
}

impl Session {
    /// A new session in the demo project with the demo policy.
    pub fn demo() -> Session {
        Session::start(TestRepo::demo(), ConfigRoot::demo(), Vec::new())
    }

    /// Starts a session in `repo` whose branch already holds `branch`.
    pub fn start(repo: TestRepo, config: ConfigRoot, branch: Vec<BranchEntry>) -> Session {
        Session::start_with(repo, config, branch, DEFAULT_CONTINUATION_CAP)
    }

    /// [`Session::start`] with a continuation cap.
    pub fn start_with(
        repo: TestRepo,
        config: ConfigRoot,
        branch: Vec<BranchEntry>,
        continuation_cap: u32,
    ) -> Session {
        let registry = config.registry();
        let gate_config = GateConfig {
            continuation_cap,
            ..GateConfig::new(repo.path())
        };
        let mut gate = VerificationGate::new(gate_config, &registry);
        let restored = state::restore(&mut gate, &branch, &repo.live());
        let mut session = Session {
            repo,
            config,
            gate,
            branch,
            restored,
            clock: 1_000,
            ids: 0,
        };
        session.persist();
        session
    }

    /// Ends the session and starts another on the same branch (a resume).
    pub fn resume(self) -> Session {
        let Session {
            repo,
            config,
            branch,
            ..
        } = self;
        Session::start(repo, config, branch)
    }

    /// The project root.
    pub fn root(&self) -> PathBuf {
        self.repo.path().to_path_buf()
    }

    /// A fresh tool call id.
    pub fn id(&mut self) -> String {
        self.ids += 1;
        format!("call-{}", self.ids)
    }

    /// The next instant.
    pub fn now(&mut self) -> Timestamp {
        self.clock += 1_000;
        Timestamp(self.clock)
    }

    /// Plays one wave: snapshot, `mutate` the files, snapshot, and report `calls` with the
    /// changed paths and the post-wave snapshot, as the wave coordinator does.
    pub fn wave(&mut self, calls: Vec<ObservedCall>, mutate: impl FnOnce(&TestRepo)) {
        let before = capture(self.repo.path()).expect("baseline snapshot");
        mutate(&self.repo);
        let after = capture(self.repo.path()).expect("post-wave snapshot");
        let changes = ChangeSet::between(&before, &after).expect("changed paths");
        let wave = WaveObservation {
            changes: changes.into(),
            workspace_before: Some(WorkspaceObservation::of_snapshot(&before)),
            workspace_after: Some(WorkspaceObservation::of_snapshot(&after)),
            calls,
        };
        self.observe(&wave);
    }

    /// Plays one wave whose only mutating calls are `write`/`edit` of `targets`, as the wave
    /// coordinator does: path-limited baseline and post-wave snapshots of the targets only.
    pub fn wave_limited(
        &mut self,
        calls: Vec<ObservedCall>,
        targets: &[&str],
        mutate: impl FnOnce(&TestRepo),
    ) {
        let before = capture_paths(self.repo.path(), targets).expect("baseline snapshot");
        mutate(&self.repo);
        let after = capture_paths(self.repo.path(), targets).expect("post-wave snapshot");
        let changes = ChangeSet::between(&before, &after).expect("changed paths");
        let wave = WaveObservation {
            changes: changes.into(),
            workspace_before: Some(WorkspaceObservation::of_snapshot(&before)),
            workspace_after: Some(WorkspaceObservation::of_snapshot(&after)),
            calls,
        };
        self.observe(&wave);
    }

    /// The agent writes `content` to `rela` with the `write` tool, snapshotted path-limited as
    /// the wave coordinator does for a `write`.
    pub fn edit_limited(&mut self, rela: &str, content: &str) {
        let id = self.id();
        let call = write_call(&id, rela, &self.root());
        self.wave_limited(vec![call], &[rela], |repo| repo.write(rela, content));
    }

    /// Plays one wave in a directory that is no longer a git worktree, as the wave coordinator
    /// reports it there: no safe path set for `bash`, no post-wave snapshot.
    pub fn wave_outside_git(&mut self, calls: Vec<ObservedCall>) {
        let untargeted: Vec<MutatingCall> = calls
            .iter()
            .filter(|call| call.potentially_mutating)
            .map(|call| MutatingCall::Untargeted {
                tool: call.tool.clone(),
            })
            .collect();
        let wave = WaveObservation {
            changes: changeset_without_git(self.repo.path(), &untargeted).into(),
            workspace_before: None,
            workspace_after: Some(self.repo.live()),
            calls,
        };
        self.observe(&wave);
    }

    /// Hands a prepared wave to the gate and appends the resulting state entry, if any.
    pub fn observe(&mut self, wave: &WaveObservation) {
        let now = self.now();
        self.gate.observe_wave(wave, now);
        self.persist();
    }

    /// The agent writes `content` to `rela` with the `write` tool.
    pub fn edit(&mut self, rela: &str, content: &str) {
        let id = self.id();
        let call = write_call(&id, rela, &self.root());
        self.wave(vec![call], |repo| repo.write(rela, content));
    }

    /// The agent runs `command` alone with `bash` in the project root, with `outcome`.
    pub fn run(&mut self, command: &str, outcome: CallOutcome) -> String {
        let id = self.id();
        let call = bash(&id, command, &self.root(), outcome);
        self.wave(vec![call], |_| {});
        id
    }

    /// The agent calls the waiver tool.
    pub fn waive(&mut self, reason: &str) -> Result<Waiver, WaiverError> {
        let request = WaiverRequest {
            tool_call_id: self.id().into(),
            reason: reason.to_owned(),
        };
        let now = self.now();
        let result = self.gate.waive(&request, now);
        self.persist();
        result
    }

    /// A settle candidate.
    pub fn settle(&mut self) -> SettleDecision {
        let live = self.repo.live();
        let decision = self.gate.settle(&live);
        self.persist();
        decision
    }

    /// Appends the gate's pending state entry to the branch, as the binding does.
    pub fn persist(&mut self) {
        if let Some(entry) = state::take_entry(&mut self.gate).expect("state encodes") {
            let id = format!("entry-{}", self.branch.len() + 1);
            self.branch.push(BranchEntry {
                id,
                custom_type: entry.custom_type.to_owned(),
                data: entry.data,
            });
        }
    }

    /// The tracked requirement `id` of the demo policy.
    pub fn requirement(&self, id: &str) -> &TrackedRequirement {
        self.gate
            .requirements()
            .iter()
            .find(|requirement| requirement.key.id == id)
            .expect("tracked requirement")
    }

    /// The state of requirement `id`.
    pub fn state(&self, id: &str) -> RequirementState {
        self.requirement(id).state()
    }
}

/// The continuation's message, or a panic naming the decision.
pub fn continuation_text(decision: &SettleDecision) -> &str {
    match decision {
        SettleDecision::Continue(continuation) => &continuation.content,
        other => panic!("expected a continuation, got {other:?}"),
    }
}

//! Shared fixtures for the `verification_*` and `state_*` integration tests: throwaway git
//! repositories built with the real `git` CLI (isolated from the machine's git configuration),
//! temporary config roots holding real verification policies, and a session driver that plays
//! the wave coordinator (real snapshots before and after each wave) and the binding (state
//! entries appended to a branch, injected time).
#![allow(dead_code)]

use pi_native_hooks::policy::PolicyRegistry;
use pi_native_hooks::state::{self, BranchEntry, RestoreReport};
use pi_native_hooks::verification::{
    CallOutcome, DEFAULT_CONTINUATION_CAP, GateConfig, ObservedCall, RequirementState,
    SettleDecision, Timestamp, TrackedRequirement, VerificationGate, Waiver, WaiverError,
    WaiverRequest, WaveObservation, WorkspaceObservation,
};
use pi_native_hooks::workspace::{
    ChangeSet, MutatingCall, capture, capture_paths, changeset_without_git,
};
use std::fs;
use std::os::unix::fs::PermissionsExt;
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

pub use super::repo::git;

/// A temporary git repository.
pub struct Repo {
    dir: tempfile::TempDir,
}

impl Repo {
    /// A repository with `files` committed.
    pub fn with_commit(files: &[(&str, &str)]) -> Repo {
        let dir = tempfile::tempdir().expect("tempdir");
        git(dir.path(), &["init", "-q"]);
        let repo = Repo { dir };
        for (path, content) in files {
            repo.write(path, content);
        }
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "-m", "init"]);
        repo
    }

    /// The demo project: `package.json` named `demo`, a TypeScript file, a README and docs.
    pub fn demo() -> Repo {
        Repo::with_commit(&[
            (
                "package.json",
                r#"{"name": "demo", "scripts": {"test": "true"}}"#,
            ),
            ("src/a.ts", "export const a = 1;\n"),
            ("README.md", "# demo\n"),
            ("docs/guide.md", "# guide\n"),
        ])
    }

    /// The worktree root.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Run git here.
    pub fn git(&self, args: &[&str]) -> String {
        git(self.path(), args)
    }

    /// Write `content` to `rela`, creating parent directories.
    pub fn write(&self, rela: &str, content: &str) {
        let path = self.path().join(rela);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).expect("mkdir");
        }
        fs::write(path, content).expect("write");
    }

    /// Read `rela`.
    pub fn read(&self, rela: &str) -> String {
        fs::read_to_string(self.path().join(rela)).expect("read")
    }

    /// The live workspace, as the binding passes it at settle and session start.
    pub fn live(&self) -> WorkspaceObservation {
        WorkspaceObservation::of_capture(capture(self.path()))
    }
}

/// A temporary config root with a `policies/` directory.
pub struct ConfigRoot {
    dir: tempfile::TempDir,
}

impl ConfigRoot {
    /// A root holding `policies` (file name, text).
    pub fn with(policies: &[(&str, &str)]) -> ConfigRoot {
        let dir = tempfile::tempdir().expect("tempdir");
        fs::create_dir(dir.path().join("policies")).expect("mkdir policies");
        let root = ConfigRoot { dir };
        for (name, text) in policies {
            root.write(name, text);
        }
        root
    }

    /// A root holding [`DEMO_POLICY`].
    pub fn demo() -> ConfigRoot {
        ConfigRoot::with(&[("demo.rhai", DEMO_POLICY)])
    }

    /// Write a policy file with owner-only permissions.
    pub fn write(&self, name: &str, text: &str) {
        let path = self.dir.path().join("policies").join(name);
        fs::write(&path, text).expect("write policy");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).expect("chmod policy");
    }

    /// Remove a policy file.
    pub fn remove(&self, name: &str) {
        fs::remove_file(self.dir.path().join("policies").join(name)).expect("remove policy");
    }

    /// Load the registry, as the binding does at session start.
    pub fn registry(&self) -> PolicyRegistry {
        PolicyRegistry::load(self.dir.path())
    }
}

/// A `bash` call.
pub fn bash(id: &str, command: &str, cwd: &Path, outcome: CallOutcome) -> ObservedCall {
    ObservedCall {
        id: id.to_owned(),
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
        id: id.to_owned(),
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
        id: id.to_owned(),
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
    pub repo: Repo,
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
        Session::start(Repo::demo(), ConfigRoot::demo(), Vec::new())
    }

    /// Starts a session in `repo` whose branch already holds `branch`.
    pub fn start(repo: Repo, config: ConfigRoot, branch: Vec<BranchEntry>) -> Session {
        Session::start_with(repo, config, branch, DEFAULT_CONTINUATION_CAP)
    }

    /// [`Session::start`] with a continuation cap.
    pub fn start_with(
        repo: Repo,
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
    pub fn wave(&mut self, calls: Vec<ObservedCall>, mutate: impl FnOnce(&Repo)) {
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
        mutate: impl FnOnce(&Repo),
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
            tool_call_id: self.id(),
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

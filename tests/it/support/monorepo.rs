//! The monorepo the package-project tests share ([`workspace`]) and [`Mono`], the real gate over
//! it for a session started in a directory below the root, played wave by wave with real
//! snapshots. Unlike [`super::gate::Session`] it persists nothing: these tests are about which
//! project a change and a run belong to.

use super::gate::{bash, write_call};
use super::{ConfigRoot, TestRepo};
use pi_native_hooks_verification::{
    CallOutcome, GateConfig, ObservedCall, SettleDecision, Timestamp, VerificationGate,
    WaveObservation, WorkspaceObservation,
};
use pi_native_hooks_workspace::{ChangeSet, capture};
use std::path::PathBuf;

/// A monorepo: a private root `package.json` named `root`, packages `packages/a` and
/// `packages/b` (manifests named `a` and `b`, one source file each under `src/`) and a root
/// source file `src/root.ts`, all committed.
pub fn workspace() -> TestRepo {
    TestRepo::with_commit(&[
        ("package.json", r#"{"name": "root", "private": true}"#),
        ("packages/a/package.json", r#"{"name": "a"}"#),
        ("packages/a/src/a.ts", "export const a = 1;\n"),
        ("packages/b/package.json", r#"{"name": "b"}"#),
        ("packages/b/src/b.ts", "export const b = 1;\n"),
        ("src/root.ts", "export const r = 1;\n"),
    ])
}

/// A gate over `repo` for a session started in `cwd`, restored from an empty branch; each wave
/// gets fresh call ids (`call-1`, …) and a later instant.
pub struct Mono {
    /// The repository.
    pub repo: TestRepo,
    /// The gate under test.
    pub gate: VerificationGate,
    /// The session's directory, where its calls run.
    pub cwd: PathBuf,
    ids: u64,
    clock: u64,
}

impl Mono {
    /// Starts the gate with `config`'s policies in `cwd` (relative to the repository root).
    pub fn start(repo: TestRepo, config: &ConfigRoot, cwd: &str) -> Mono {
        let cwd = repo.path().join(cwd);
        let mut gate = VerificationGate::new(GateConfig::new(&cwd), &config.registry());
        gate.restore(None, &repo.live());
        Mono {
            repo,
            gate,
            cwd,
            ids: 0,
            clock: 0,
        }
    }

    fn id(&mut self) -> String {
        self.ids += 1;
        format!("call-{}", self.ids)
    }

    /// Plays one wave: snapshot, `mutate` the files, snapshot, and report `calls` with the
    /// changed paths, as the wave coordinator does.
    pub fn wave(&mut self, calls: Vec<ObservedCall>, mutate: impl FnOnce(&TestRepo)) {
        let before = capture(self.repo.path()).expect("baseline snapshot");
        mutate(&self.repo);
        let after = capture(self.repo.path()).expect("post-wave snapshot");
        let changes = ChangeSet::between(&before, &after).expect("changed paths");
        self.clock += 1_000;
        self.gate.observe_wave(
            &WaveObservation {
                changes: changes.into(),
                workspace_before: Some(WorkspaceObservation::of_snapshot(&before)),
                workspace_after: Some(WorkspaceObservation::of_snapshot(&after)),
                calls,
            },
            Timestamp(self.clock),
        );
    }

    /// One `write` call of `rela` that leaves `content` in it.
    pub fn edit(&mut self, rela: &str, content: &str) {
        self.edit_files(&[(rela, content)]);
    }

    /// One `write` call (naming the first file) in a wave that writes every `(path, content)`.
    pub fn edit_files(&mut self, files: &[(&str, &str)]) {
        let id = self.id();
        let call = write_call(&id, files[0].0, &self.cwd.clone());
        self.wave(vec![call], |repo| {
            for (rela, content) in files {
                repo.write(rela, content);
            }
        });
    }

    /// Runs `command` alone with `bash` in the session's directory; returns the call id.
    pub fn run(&mut self, command: &str, outcome: CallOutcome) -> String {
        let id = self.id();
        let call = bash(&id, command, &self.cwd.clone(), outcome);
        self.wave(vec![call], |_| {});
        id
    }

    /// A settle candidate on the live workspace.
    pub fn settle(&mut self) -> SettleDecision {
        let live = self.repo.live();
        self.gate.settle(&live)
    }

    /// The absolute path of `rela` in the repository.
    pub fn dir(&self, rela: &str) -> PathBuf {
        self.repo.path().join(rela)
    }
}

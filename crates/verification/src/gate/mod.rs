//! Owns [`VerificationGate`], the tracker for one session branch: the workspace revision, the
//! tracked requirements, the active waivers and the continuation cap, and the operations the
//! binding calls — restore, reload, observe a wave, waive, settle — each applying the rules of the
//! sibling modules in order.

pub(crate) mod observation;
pub(crate) mod reconcile;
pub(crate) mod record;
pub(crate) mod relevance;
pub(crate) mod requirement;
pub(crate) mod time;

use crate::evidence::{
    Evidence, FailedRun, Rejection, RejectionReason, Verdict, invocation, judge, may_be_a_run,
    near_miss, shell_command,
};
use crate::project::{ProjectMatch, match_projects};
use crate::settle::{
    CapState, DEFAULT_CONTINUATION_CAP, MessageContext, OutstandingCheck, SettleDecision,
};
use crate::waiver::{WaivedRequirement, Waiver, WaiverError, WaiverRequest};
use observation::{ObservedCall, ObservedChanges, WaveObservation};
use pi_native_hooks_policy::PolicyRegistry;
use reconcile::reconcile;
use record::{Baseline, Drift, WorkspaceObservation};
use relevance::{Relevance, relevance};
use requirement::{RequirementKey, Standing, TrackedRequirement};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::path::PathBuf;
use time::Timestamp;

/// How a gate is set up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GateConfig {
    /// The session's working directory; its git root is the project root.
    pub cwd: PathBuf,
    /// Consecutive continuations without progress before the gate stops forcing.
    pub continuation_cap: u32,
    /// The tools whose calls can be runs of a required command: `bash` and the shell tools the
    /// settings file declares.
    pub shell_tools: BTreeSet<String>,
}

impl GateConfig {
    /// A gate for `cwd` with the default cap ([`DEFAULT_CONTINUATION_CAP`]) and `bash` as the only
    /// shell tool.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        GateConfig {
            cwd: cwd.into(),
            continuation_cap: DEFAULT_CONTINUATION_CAP,
            shell_tools: BTreeSet::from(["bash".to_owned()]),
        }
    }
}

/// Everything the gate persists for a session branch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GateSnapshot {
    /// The digest of the policy files the requirements were tracked under.
    pub registry_digest: String,
    /// The branch's workspace revision.
    pub revision: u64,
    /// The workspace state accounted for; persisted with a digest of the dirty paths, and the
    /// paths themselves only while they are few ([`super::PERSISTED_PATHS_BYTES`]).
    pub workspace: Baseline,
    /// As [`VerificationGate::requirements`] held them.
    pub requirements: Vec<TrackedRequirement>,
    /// The waivers still covering a requirement.
    pub waivers: Vec<Waiver>,
}

/// The verification tracker of one Pi session.
#[derive(Clone, Debug)]
pub struct VerificationGate {
    config: GateConfig,
    registry: PolicyRegistry,
    registry_digest: String,
    projects: ProjectMatch,
    revision: u64,
    baseline: Baseline,
    requirements: Vec<TrackedRequirement>,
    waivers: Vec<Waiver>,
    cap: CapState,
    transition: bool,
}

/// The digest the gate tracks policies by: the policy files of the registry.
fn digest_of(registry: &PolicyRegistry) -> String {
    registry.digest_with([])
}

impl VerificationGate {
    /// A gate for the project containing `config.cwd`, with every requirement of the matching
    /// verification policies inactive. Call [`crate::state::restore`] next: it restores the
    /// branch's state and takes the first workspace baseline.
    pub fn new(config: GateConfig, registry: &PolicyRegistry) -> Self {
        let projects = match_projects(&config.cwd, registry);
        let registry_digest = digest_of(registry);
        let requirements = reconcile(Vec::new(), registry, &projects).requirements;
        VerificationGate {
            config,
            registry: registry.clone(),
            registry_digest,
            projects,
            revision: 0,
            baseline: Baseline::Unknown {
                reason: "no workspace snapshot was taken yet".to_owned(),
            },
            requirements,
            waivers: Vec::new(),
            cap: CapState::default(),
            transition: false,
        }
    }

    /// Replaces the branch state with `saved` (or a fresh state when `None`).
    ///
    /// Fresh: the live workspace becomes an unarmed baseline — already-dirty files arm nothing.
    /// Saved: the requirements are reconciled with the loaded policies (digest, project identity,
    /// missing policies) and the live workspace is compared with the recorded one; drift advances
    /// the armed requirements it affects, unprovable drift makes them `unknown`.
    pub fn restore(&mut self, saved: Option<GateSnapshot>, live: &WorkspaceObservation) {
        self.cap = CapState::default();
        self.transition = false;
        let Some(saved) = saved else {
            self.revision = 0;
            self.waivers.clear();
            self.requirements = reconcile(Vec::new(), &self.registry, &self.projects).requirements;
            self.baseline = Baseline::of(live);
            return;
        };
        self.revision = saved.revision;
        self.waivers = saved.waivers;
        self.baseline = saved.workspace;
        let reconciled = reconcile(saved.requirements, &self.registry, &self.projects);
        self.requirements = reconciled.requirements;
        self.transition = reconciled.changed || saved.registry_digest != self.registry_digest;
        self.refresh(live);
        self.prune_waivers();
    }

    /// Starts the branch fail-closed because its saved state exists but cannot be read (written
    /// by a newer version, or corrupt): nothing says which requirements were armed, so every
    /// requirement of the matching policies is armed and `unknown` for `reason` until it is
    /// rerun or waived. The live workspace becomes the record.
    pub fn restore_unreadable(&mut self, reason: &str, live: &WorkspaceObservation) {
        self.restore(None, live);
        self.revision = 1;
        for requirement in &mut self.requirements {
            self.transition |= requirement.make_unknown(self.revision, reason);
        }
    }

    /// Switches to a reloaded registry: re-matches the project and reconciles the requirements.
    pub fn reload(&mut self, registry: &PolicyRegistry) {
        let projects = match_projects(&self.config.cwd, registry);
        let digest = digest_of(registry);
        let reconciled = reconcile(std::mem::take(&mut self.requirements), registry, &projects);
        self.transition |= reconciled.changed || digest != self.registry_digest;
        self.requirements = reconciled.requirements;
        self.registry = registry.clone();
        self.registry_digest = digest;
        self.projects = projects;
        self.prune_waivers();
    }

    /// Applies settings read again by `/reload`: the continuation cap and the shell tools. The
    /// count of continuations without progress is kept, so a raised cap resumes forcing and a
    /// lowered one stops it at the next settle; the working directory never changes.
    pub fn reconfigure(&mut self, continuation_cap: u32, shell_tools: BTreeSet<String>) {
        self.config.continuation_cap = continuation_cap;
        self.config.shell_tools = shell_tools;
    }

    /// Applies one finished wave, in the order its calls saw the workspace:
    ///
    /// 1. what changed between the recorded workspace and the wave's baseline snapshot — out of
    ///    band (an editor, a background job), and visible to the wave's calls — advances the armed
    ///    requirements it affects;
    /// 2. the evidence of its calls, at the revision the wave started at;
    /// 3. the wave's own changes, which may arm requirements; and whatever differs between the
    ///    record and the post-wave snapshot that no baseline snapshot accounted for, which may
    ///    not.
    ///
    /// So an out-of-band edit followed by a run of the exact command is a pass, and an edit
    /// after the run leaves it stale. Nothing is absorbed into the record without being
    /// compared: a path-limited snapshot patches only its own paths, so changes elsewhere are
    /// found by the next full snapshot (a `bash` wave or the settle).
    ///
    /// Checks that write: a wave whose run of a requirement's exact command was accepted (it ran
    /// alone and succeeded) changed the workspace through that run only, so its named changes
    /// are the state the command verified: they neither make that requirement stale nor arm it.
    /// They still arm or advance every other requirement they affect, and an unknown change
    /// still makes it `unknown`.
    pub fn observe_wave(&mut self, wave: &WaveObservation, now: Timestamp) {
        if let Some(before) = &wave.workspace_before {
            let drift = self.baseline.catch_up(before);
            self.apply_drift(drift);
        }
        let mut verified_writes = BTreeSet::new();
        for call in &wave.calls {
            self.judge_call(call, &wave.calls, now, &mut verified_writes);
        }
        self.requirements
            .retain(|requirement| requirement.detached.is_none() || requirement.is_outstanding());
        let (paths, unknown) = match &wave.changes {
            ObservedChanges::Paths { paths } => (paths.clone(), None),
            ObservedChanges::Unknown { reason } => (BTreeSet::new(), Some(reason.clone())),
        };
        if self.changes_glob_projects(&paths, unknown.is_some()) {
            self.rematch();
        }
        let (unseen, lost) = match self.baseline.after_wave(
            wave.workspace_before.as_ref(),
            wave.workspace_after.as_ref(),
        ) {
            Drift::None => (BTreeSet::new(), None),
            Drift::Paths(unseen) => (unseen.difference(&paths).cloned().collect(), None),
            Drift::Unknown(reason) => (BTreeSet::new(), Some(reason)),
        };
        self.apply(
            &paths,
            &unseen,
            unknown.or(lost).as_deref(),
            &verified_writes,
        );
    }

    /// Records a waiver of every outstanding requirement.
    pub fn waive(
        &mut self,
        request: &WaiverRequest,
        now: Timestamp,
    ) -> Result<Waiver, WaiverError> {
        let reason = request.reason.trim();
        if reason.is_empty() {
            return Err(WaiverError::EmptyReason);
        }
        let mut covers = Vec::new();
        for requirement in &mut self.requirements {
            let Some(revision) = requirement.required_revision else {
                continue;
            };
            if !requirement.is_outstanding() {
                continue;
            }
            requirement.standing = Standing::Waived {
                tool_call_id: request.tool_call_id.clone(),
            };
            covers.push(WaivedRequirement {
                key: requirement.key.clone(),
                project: requirement.project.clone(),
                command: requirement.command.clone(),
                revision,
            });
        }
        if covers.is_empty() {
            return Err(WaiverError::NothingOutstanding);
        }
        self.requirements
            .retain(|requirement| requirement.detached.is_none() || requirement.is_outstanding());
        let waiver = Waiver {
            tool_call_id: request.tool_call_id.clone(),
            reason: reason.to_owned(),
            at: now,
            covers,
        };
        self.waivers.push(waiver.clone());
        self.transition = true;
        Ok(waiver)
    }

    /// At a settle candidate: compares the live workspace with the recorded one (drift advances
    /// armed requirements, unprovable drift makes them `unknown`), then decides.
    pub fn settle(&mut self, live: &WorkspaceObservation) -> SettleDecision {
        self.refresh(live);
        let context = MessageContext {
            repo_root: self.projects.root.as_deref(),
            shell_tools: &self.config.shell_tools,
        };
        self.cap
            .decide(self.outstanding(), self.config.continuation_cap, &context)
    }

    /// The armed requirements that are neither passed nor waived, by project and key.
    pub fn outstanding(&self) -> Vec<OutstandingCheck> {
        let mut checks: Vec<OutstandingCheck> = self
            .requirements
            .iter()
            .filter_map(|requirement| OutstandingCheck::of(requirement, &self.config.cwd))
            .collect();
        checks.sort_by(|a, b| (&a.project, &a.key).cmp(&(&b.project, &b.key)));
        checks
    }

    /// The state to persist: the workspace record without its named paths once they outgrow
    /// [`super::PERSISTED_PATHS_BYTES`] (see [`super::WorkspaceRecord::persisted`]).
    pub fn snapshot(&self) -> GateSnapshot {
        GateSnapshot {
            registry_digest: self.registry_digest.clone(),
            revision: self.revision,
            workspace: self.baseline.persisted(),
            requirements: self.requirements.clone(),
            waivers: self.waivers.clone(),
        }
    }

    /// The state to persist, once per batch of meaningful transitions (arming, evidence,
    /// failure, waiver, unknown, policy change) since the last call.
    pub(crate) fn take_transition(&mut self) -> Option<GateSnapshot> {
        std::mem::take(&mut self.transition).then(|| self.snapshot())
    }

    /// As given to [`Self::new`], with [`Self::reconfigure`]'s cap and shell tools.
    pub fn config(&self) -> &GateConfig {
        &self.config
    }

    /// Matched against [`GateConfig::cwd`] again at each reload and when a wave adds or
    /// removes a manifest a glob may match.
    pub fn projects(&self) -> &ProjectMatch {
        &self.projects
    }

    /// The digest of the loaded policy files.
    pub fn registry_digest(&self) -> &str {
        &self.registry_digest
    }

    /// The branch's workspace revision.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// The workspace state accounted for.
    pub fn baseline(&self) -> &Baseline {
        &self.baseline
    }

    /// Reconciled with the policies at each reload.
    pub fn requirements(&self) -> &[TrackedRequirement] {
        &self.requirements
    }

    /// The waivers still covering a requirement.
    pub fn waivers(&self) -> &[Waiver] {
        &self.waivers
    }

    /// The continuation cap's state.
    pub fn cap(&self) -> &CapState {
        &self.cap
    }

    /// Judges `call` for every requirement whose exact command it ran, and records a near miss
    /// of the others ([`crate::evidence::near_miss`]) as their last rejected run. Adds to `verified_writes`
    /// each requirement the call was an accepted run of, armed or not: the wave's own changes
    /// are its verified state.
    fn judge_call(
        &mut self,
        call: &ObservedCall,
        wave: &[ObservedCall],
        now: Timestamp,
        verified_writes: &mut BTreeSet<RequirementKey>,
    ) {
        let Some(command) = shell_command(call, &self.config.shell_tools) else {
            return;
        };
        let runnable = may_be_a_run(command);
        let started_at = self.revision;
        for requirement in &mut self.requirements {
            let how = runnable
                .then(|| {
                    invocation(
                        command,
                        &requirement.command,
                        requirement.run_dir(),
                        &call.cwd,
                    )
                })
                .flatten();
            let verdict = match how {
                Some(how) => judge(call, wave, requirement.run_dir(), how),
                None if near_miss(command, &requirement.command) => {
                    Verdict::Rejected(RejectionReason::NotExactCommand {
                        expected: requirement.command.clone(),
                        dir: requirement.run_dir().to_owned(),
                    })
                }
                None => continue,
            };
            if verdict == Verdict::Pass {
                verified_writes.insert(requirement.key.clone());
            }
            let Some(required_revision) = requirement.required_revision else {
                continue;
            };
            match verdict {
                Verdict::Pass => {
                    requirement.last_success = Some(Evidence {
                        tool_call_id: call.id.clone(),
                        command: requirement.command.clone(),
                        project: requirement.project.clone(),
                        registry_digest: self.registry_digest.clone(),
                        required_revision,
                        started_at_revision: started_at,
                        at: now,
                    });
                    requirement.standing = Standing::Passed;
                    self.transition = true;
                }
                Verdict::Fail {
                    exit_code,
                    is_error,
                } => {
                    requirement.last_failure = Some(FailedRun {
                        tool_call_id: call.id.clone(),
                        required_revision,
                        exit_code,
                        is_error,
                        at: now,
                    });
                    requirement.standing = Standing::Failed;
                    self.transition = true;
                }
                Verdict::Rejected(reason) => {
                    requirement.last_rejection = Some(Rejection {
                        tool_call_id: call.id.clone(),
                        revision: started_at,
                        reason,
                        at: now,
                    });
                }
            }
        }
    }

    /// Whether a wave's changes may add or remove a project of a `PROJECT.manifests` glob: one
    /// of `paths` is named like a glob's manifest (`package.json` for
    /// `packages/*/package.json`), or the changes are `unknown`. Never without a glob policy.
    fn changes_glob_projects(&self, paths: &BTreeSet<String>, unknown: bool) -> bool {
        let manifests: BTreeSet<&str> = self
            .registry
            .verification_policies()
            .filter(|(_, spec)| spec.project.manifests.is_some())
            .map(|(_, spec)| spec.project.manifest.as_str())
            .collect();
        !manifests.is_empty()
            && (unknown
                || paths.iter().any(|path| {
                    manifests.contains(path.rsplit('/').next().unwrap_or(path.as_str()))
                }))
    }

    /// Matches the projects again (a wave added or removed a manifest a glob may match) and
    /// reconciles the requirements: a new project's requirements start inactive, so the same
    /// wave's changes can arm them; an armed one whose project is gone is kept, detached and
    /// `unknown`, until it is rerun or waived. When the repository cannot be found again (the
    /// probe fails, or finds another root), the match is kept: the change is then judged by the
    /// projects known so far, and an unknown change still makes their armed checks `unknown`.
    fn rematch(&mut self) {
        let projects = match_projects(&self.config.cwd, &self.registry);
        if projects == self.projects
            || projects.root.is_none()
            || projects.root != self.projects.root
        {
            return;
        }
        let reconciled = reconcile(
            std::mem::take(&mut self.requirements),
            &self.registry,
            &projects,
        );
        self.transition |= reconciled.changed;
        self.requirements = reconciled.requirements;
        self.projects = projects;
    }

    /// Compares the live workspace with the baseline and applies the drift to armed
    /// requirements only: changes nobody observed never arm a requirement.
    fn refresh(&mut self, live: &WorkspaceObservation) {
        let drift = self.baseline.drift_to(live);
        self.apply_drift(drift);
        self.baseline = Baseline::of(live);
    }

    /// Applies changes nobody observed: they advance armed requirements only.
    fn apply_drift(&mut self, drift: Drift) {
        match drift {
            Drift::None => {}
            Drift::Paths(paths) => self.apply(&BTreeSet::new(), &paths, None, &BTreeSet::new()),
            Drift::Unknown(reason) => self.apply(
                &BTreeSet::new(),
                &BTreeSet::new(),
                Some(&reason),
                &BTreeSet::new(),
            ),
        }
    }

    /// One change of the workspace: `observed` paths changed in an observed wave (they may arm
    /// inactive requirements), `drift` paths changed unobserved (they only advance armed ones),
    /// and (`unknown`) maybe more that cannot be named. The `observed` paths are the verified
    /// state of the requirements in `verified_writes` (their accepted run made them), so they
    /// leave those alone. Advances the revision once.
    fn apply(
        &mut self,
        observed: &BTreeSet<String>,
        drift: &BTreeSet<String>,
        unknown: Option<&str>,
        verified_writes: &BTreeSet<RequirementKey>,
    ) {
        if observed.is_empty() && drift.is_empty() && unknown.is_none() {
            return;
        }
        self.revision += 1;
        let revision = self.revision;
        let relevance_of = |paths: &BTreeSet<String>| {
            if paths.is_empty() {
                Relevance::default()
            } else {
                relevance(&self.registry, &self.projects, paths)
            }
        };
        let (observed, drift) = (relevance_of(observed), relevance_of(drift));
        for requirement in &mut self.requirements {
            let mut changed = false;
            if let Some(detached) = &requirement.detached {
                let reason = format!("{detached}; a change cannot be checked against it");
                changed |= requirement.make_unknown(revision, &reason);
            } else {
                let key = &requirement.key;
                let armed = requirement.is_armed();
                let own = verified_writes.contains(key);
                let affected = (!own && observed.affected.contains(key))
                    || (armed && drift.affected.contains(key));
                let unprovable = observed
                    .unprovable
                    .get(key)
                    .filter(|_| !own)
                    .or(drift.unprovable.get(key).filter(|_| armed))
                    .cloned();
                if affected {
                    changed |= requirement.advance(revision);
                } else if let Some(reason) = unprovable {
                    changed |= requirement.make_unknown(revision, &reason);
                }
            }
            if let (Some(reason), true) = (unknown, requirement.is_armed()) {
                changed |= requirement.make_unknown(revision, reason);
            }
            self.transition |= changed;
        }
        self.prune_waivers();
    }

    /// Drops waivers that no longer cover any requirement.
    fn prune_waivers(&mut self) {
        let requirements = &self.requirements;
        self.waivers.retain(|waiver| {
            requirements.iter().any(|requirement| {
                matches!(&requirement.standing, Standing::Waived { tool_call_id }
                    if *tool_call_id == waiver.tool_call_id)
            })
        });
    }
}

//! Owns the TypeScript analyzer a wave runs: for each project the changed files belong to, its
//! language server (started lazily, restarted once after a crash, then degraded with the reason),
//! the files to check (the changed ones and, through the reverse import index, the unchanged
//! ones that import them, at most `max_dependents`), and for each of them the findings before
//! and after the wave.
//!
//! "Before" is what the server says when it is given, for every changed file, the text it held
//! before the wave — the text the server already has open (its previous version), else the
//! file's text at `HEAD` ([`PriorTexts`]), else nothing (a new file) — and the unchanged files
//! as they are on disk; an answer pulled while nothing changed since is reused, so a session that
//! keeps editing the same files pays one check per file per wave. "After" is the same question
//! once the changed files hold exactly the bytes the wave's snapshot analyzed. The wave compares
//! the two through the delivery layer's introduced-findings matching ([`findings_in`] serves the
//! "before" of files the wave has no history for).
//!
//! Everything is bounded: the wave waits at most `wait` for the answers (what is not answered is
//! named in the snapshot as pending and asked again with the next wave that reaches the type
//! checker); servers start within a deadline, run at most `max_servers` at once (least recently
//! used stops first), each within a memory budget and an output budget per wave. A server that
//! cannot answer never yields "no type errors": its files are named as not type-checked.
//!
//! [`findings_in`]: TypeScriptAnalyzer::findings_in

use crate::ANALYZER_KEY;
use crate::convert;
use crate::imports::{ImportIndex, is_source};
use crate::install::{Project, ProjectLookup, TsserverBridge};
use crate::server::{LanguageServer, ServerError};
use crate::status::{ProjectState, ProjectStatus, StatusHandle, TypeScriptStatus};
use crate::surface::Surfaces;
use pi_native_hooks_analysis::{
    AnalysisSnapshot, AnalyzerKey, Finding, ScanLimits, SkipReason, SkippedFile, read_repo_file,
};
use pi_native_hooks_base::safe_open::Beneath;
use pi_native_hooks_base::{BoundedMap, ContentHash};
use pi_native_hooks_config::settings::TypeScriptSettings;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};
use tokio::runtime::Handle;
use tokio::task::JoinHandle;

/// What each changed file held before the wave, read from a revision (`HEAD` in a session): one
/// entry per path, `None` when the revision has no such file or it cannot be read.
pub type PriorTexts = Box<dyn Fn(&[String]) -> Vec<Option<Vec<u8>>> + Send + Sync>;

/// Every bound of the analyzer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TypeScriptLimits {
    /// How long a wave waits for the type check.
    pub wait: Duration,
    /// Servers running at once.
    pub max_servers: usize,
    /// Dependents re-checked per project per wave.
    pub max_dependents: usize,
    /// A server's resident memory budget, in bytes.
    pub max_server_memory: u64,
    /// How long a server may take to start and answer `initialize`.
    pub start_timeout: Duration,
    /// Bytes a server may send per wave.
    pub max_output_bytes: u64,
    /// The largest file checked, in bytes.
    pub max_file_bytes: u64,
    /// Files read to build one project's import index.
    pub max_index_files: usize,
    /// Findings kept per wave.
    pub max_findings: usize,
    /// Files whose last answer and disk content are remembered; past it the analyzer starts
    /// over, asking and telling again.
    pub max_remembered_files: usize,
}

impl TypeScriptLimits {
    /// The limits the settings choose, with the fixed ones at their defaults.
    pub fn from_settings(settings: &TypeScriptSettings) -> Self {
        Self {
            wait: settings.wait,
            max_servers: settings.max_servers,
            max_dependents: settings.max_dependents,
            max_server_memory: settings.max_server_memory_mib * 1024 * 1024,
            ..Self::default()
        }
    }
}

impl Default for TypeScriptLimits {
    fn default() -> Self {
        let settings = TypeScriptSettings::default();
        Self {
            wait: settings.wait,
            max_servers: settings.max_servers,
            max_dependents: settings.max_dependents,
            max_server_memory: settings.max_server_memory_mib * 1024 * 1024,
            start_timeout: Duration::from_secs(60),
            max_output_bytes: 64 * 1024 * 1024,
            max_file_bytes: ScanLimits::default().max_file_bytes,
            max_index_files: 20_000,
            max_findings: ScanLimits::default().max_findings,
            max_remembered_files: 16_384,
        }
    }
}

/// The files of one project a wave checks: the project, its changed files (with those carried
/// from an earlier wave) and its carried dependents.
type ProjectFiles = (Arc<Project>, Vec<String>, Vec<String>);

/// One project's server, in whatever state it is.
enum Slot {
    Starting {
        task: JoinHandle<Result<LanguageServer, ServerError>>,
        restarts: u32,
    },
    Ready {
        server: Box<LanguageServer>,
        restarts: u32,
        last_used: u64,
    },
    /// Stopped to make room; starts again when needed.
    Stopped {
        restarts: u32,
    },
    Degraded {
        reason: String,
    },
}

/// Why a project's files get no answer this wave.
enum NoServer {
    /// Still starting when the wave's wait ended.
    Pending,
    /// Failed for good.
    Unavailable(String),
}

/// A file's last answer, valid while its server's generation is unchanged.
struct Answer {
    config: PathBuf,
    generation: u64,
    findings: Vec<Finding>,
}

/// The outcome of one wave's type check, gathered across projects.
#[derive(Default)]
struct WaveOutcome {
    paths: BTreeSet<String>,
    findings: Vec<Finding>,
    skipped: Vec<SkippedFile>,
    pulled: usize,
    reused: usize,
}

impl WaveOutcome {
    fn skip(&mut self, path: &str, reason: SkipReason) {
        self.paths.insert(path.to_owned());
        self.skipped.push(SkippedFile {
            path: path.to_owned(),
            reason,
        });
    }
}

/// The project's own TypeScript, asked for the type errors of a wave's files.
pub struct TypeScriptAnalyzer {
    key: AnalyzerKey,
    runtime: Handle,
    limits: TypeScriptLimits,
    lookup: Mutex<ProjectLookup>,
    slots: BTreeMap<PathBuf, Slot>,
    projects: BTreeMap<PathBuf, Arc<Project>>,
    indexes: HashMap<PathBuf, ImportIndex>,
    /// Bounded: a file whose answer was forgotten is asked again.
    answers: BoundedMap<String, Answer>,
    /// The hash of each unopened file as last read from disk (what the server was last told).
    /// Bounded: a file forgotten here is told to the server as changed again.
    disk_seen: BoundedMap<String, ContentHash>,
    prior_texts: PriorTexts,
    /// The "before" of every file of the last wave.
    before: HashMap<String, Option<Vec<Finding>>>,
    /// Changed files whose check is pending, with the text they held before their wave.
    carried_changed: BTreeMap<String, Option<Arc<str>>>,
    /// Dependents whose check is pending, with their "before".
    carried_dependents: BTreeMap<String, Option<Vec<Finding>>>,
    /// The export surface of each changed file's last text.
    surfaces: Surfaces,
    uses: u64,
    status: StatusHandle,
}

impl TypeScriptAnalyzer {
    /// An analyzer for the repository at `root`, starting servers on `runtime`, reading the
    /// "before" of changed files it has never seen from `prior_texts`.
    pub fn new(
        root: &Path,
        runtime: Handle,
        limits: TypeScriptLimits,
        prior_texts: PriorTexts,
    ) -> Self {
        let remembered = limits.max_remembered_files;
        let analyzer = Self {
            key: AnalyzerKey::from(ANALYZER_KEY),
            runtime,
            limits,
            lookup: Mutex::new(ProjectLookup::new(root)),
            slots: BTreeMap::new(),
            projects: BTreeMap::new(),
            indexes: HashMap::new(),
            answers: BoundedMap::new(remembered),
            disk_seen: BoundedMap::new(remembered),
            prior_texts,
            before: HashMap::new(),
            carried_changed: BTreeMap::new(),
            carried_dependents: BTreeMap::new(),
            surfaces: Surfaces::default(),
            uses: 0,
            status: StatusHandle::default(),
        };
        analyzer.publish();
        analyzer
    }

    /// Serves projects with a TypeScript before 7 with `bridge` (the host's
    /// typescript-language-server) rather than with one installed beside them.
    #[must_use]
    pub fn with_tsserver_bridge(self, bridge: Option<TsserverBridge>) -> Self {
        let root = self.lookup().root().to_path_buf();
        *self.lookup() = ProjectLookup::new(&root).with_bridge(bridge);
        self
    }

    /// The analyzer key, `typescript:project`.
    pub fn key(&self) -> &AnalyzerKey {
        &self.key
    }

    /// The handle the status is read from.
    pub fn status(&self) -> StatusHandle {
        self.status.clone()
    }

    /// Whether `path` (repository-relative) is a file this analyzer checks: a source file in a
    /// project with a TypeScript it can run (JavaScript only where the project checks it).
    pub fn handles(&self, path: &str) -> bool {
        // A project's configuration matters once a project is known: the first check looks
        // its configuration up afresh anyway.
        if is_project_config(path) {
            return !self.projects.is_empty();
        }
        if !is_source(Path::new(path)) {
            return false;
        }
        let Some(project) = self.lookup().project_of(path) else {
            return false;
        };
        let is_js = Path::new(path)
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| matches!(e, "js" | "jsx" | "mjs" | "cjs"));
        project.typescript.is_ok() && (!is_js || project.checks_js)
    }

    fn lookup(&self) -> std::sync::MutexGuard<'_, ProjectLookup> {
        self.lookup.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The findings the last wave's check found in `path` before the wave, when it judged them.
    pub fn findings_in(&self, path: &str) -> Option<Vec<Finding>> {
        self.before.get(path).cloned().flatten()
    }

    /// Checks `paths` (repository-relative, under `root`) and the files that import them, and
    /// returns the snapshot of the wave's type findings. Blocks the calling thread (never a
    /// runtime thread) for at most the wait, plus reading the files.
    pub fn scan(&mut self, root: &Path, paths: &[String]) -> Arc<AnalysisSnapshot> {
        self.scan_within(root, paths, self.limits.wait)
    }

    /// Whether files of an earlier wave are still waiting for their type check.
    pub fn has_pending(&self) -> bool {
        !self.carried_changed.is_empty() || !self.carried_dependents.is_empty()
    }

    /// [`scan`](Self::scan), waiting at most `wait` instead of the configured wait: the settle
    /// asks once more for what is pending, with a deadline of its own.
    pub fn scan_within(
        &mut self,
        root: &Path,
        paths: &[String],
        wait: Duration,
    ) -> Arc<AnalysisSnapshot> {
        let started = Instant::now();
        let deadline = tokio::time::Instant::now() + wait;
        let waited_ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX);
        self.before.clear();
        let mut outcome = WaveOutcome::default();
        let beneath = match Beneath::new(root) {
            Ok(beneath) => beneath,
            Err(error) => {
                for path in paths {
                    outcome.skip(
                        path,
                        SkipReason::Unreadable {
                            error: error.to_string(),
                        },
                    );
                }
                return self.snapshot(outcome, started);
            }
        };
        let (configs, paths): (Vec<String>, Vec<String>) =
            paths.iter().cloned().partition(|p| is_project_config(p));
        if !configs.is_empty() {
            let runtime = self.runtime.clone();
            runtime.block_on(self.configs_changed(&configs, deadline));
            outcome.paths.extend(configs);
        }
        let mut groups: BTreeMap<PathBuf, ProjectFiles> = BTreeMap::new();
        let carried: Vec<String> = self.carried_changed.keys().cloned().collect();
        let mut changed: BTreeSet<String> = paths.iter().cloned().collect();
        changed.extend(carried);
        for path in &changed {
            if let Some(project) = self.project_for(path) {
                groups
                    .entry(project.config.clone())
                    .or_insert_with(|| (project, Vec::new(), Vec::new()))
                    .1
                    .push(path.clone());
            }
        }
        let dependents: Vec<String> = self.carried_dependents.keys().cloned().collect();
        for path in dependents {
            if let Some(project) = self.project_for(&path) {
                groups
                    .entry(project.config.clone())
                    .or_insert_with(|| (project, Vec::new(), Vec::new()))
                    .2
                    .push(path);
            }
        }
        let runtime = self.runtime.clone();
        for (_, (project, changed, dependents)) in groups {
            runtime.block_on(self.check_project(
                root,
                &beneath,
                &project,
                &changed,
                dependents,
                (deadline, waited_ms),
                &mut outcome,
            ));
        }
        self.enforce_memory();
        self.publish();
        self.snapshot(outcome, started)
    }

    /// After a wave changed project configuration (`configs`: a `tsconfig.json`, a
    /// `package.json` …): looks for projects and installs again, makes every running server read
    /// its configuration again (one that cannot is stopped, to start again with it), and
    /// re-checks every file a server answered for against that answer, as the wave's dependents
    /// (a `strict` turned on introduces errors in files the wave did not touch).
    async fn configs_changed(&mut self, configs: &[String], deadline: tokio::time::Instant) {
        self.lookup().forget();
        let paths: Vec<&str> = configs.iter().map(String::as_str).collect();
        let mut failed = Vec::new();
        for (config, slot) in &mut self.slots {
            if let Slot::Ready { server, .. } = slot {
                let reloaded =
                    tokio::time::timeout_at(deadline, server.reload_config(&paths)).await;
                if !matches!(reloaded, Ok(Ok(()))) {
                    failed.push(config.clone());
                }
            }
        }
        for config in failed {
            if let Some(Slot::Ready {
                server, restarts, ..
            }) = self.slots.remove(&config)
            {
                self.runtime.spawn(server.stop());
                self.slots
                    .insert(config.clone(), Slot::Stopped { restarts });
            }
            self.answers.retain(|_, a| a.config != config);
        }
        for (path, answer) in self.answers.iter() {
            self.carried_dependents
                .entry(path.clone())
                .or_insert_with(|| Some(answer.findings.clone()));
        }
    }

    fn project_for(&mut self, path: &str) -> Option<Arc<Project>> {
        let project = self.lookup().project_of(path)?;
        self.projects
            .entry(project.config.clone())
            .or_insert_with(|| Arc::clone(&project));
        Some(project)
    }

    fn snapshot(&self, outcome: WaveOutcome, started: Instant) -> Arc<AnalysisSnapshot> {
        let mut findings = outcome.findings;
        findings.sort();
        let omitted = findings.len().saturating_sub(self.limits.max_findings);
        findings.truncate(self.limits.max_findings);
        let mut skipped = outcome.skipped;
        skipped.sort_by(|a, b| a.path.cmp(&b.path));
        Arc::new(AnalysisSnapshot {
            analyzer: self.key.clone(),
            paths: outcome.paths.into_iter().collect(),
            findings,
            omitted_findings: omitted,
            skipped,
            parsed_files: outcome.pulled,
            cached_files: outcome.reused,
            duration: started.elapsed(),
            failure: None,
        })
    }

    #[expect(
        clippy::too_many_arguments,
        clippy::too_many_lines,
        reason = "one project's check, read top to bottom: each argument is a different part of the wave"
    )]
    async fn check_project(
        &mut self,
        root: &Path,
        beneath: &Beneath,
        project: &Arc<Project>,
        changed: &[String],
        carried_dependents: Vec<String>,
        (deadline, waited_ms): (tokio::time::Instant, u64),
        outcome: &mut WaveOutcome,
    ) {
        let config = project.config.clone();
        // What each changed file holds now: exactly the bytes on disk the wave's snapshot saw.
        let mut after: BTreeMap<String, Option<Arc<str>>> = BTreeMap::new();
        for path in changed {
            match read_text(beneath, path, self.limits.max_file_bytes) {
                Ok(text) => {
                    after.insert(path.clone(), Some(text));
                }
                Err(SkipReason::Vanished) => {
                    after.insert(path.clone(), None);
                }
                Err(reason) => outcome.skip(path, reason),
            }
        }
        let index = self
            .indexes
            .entry(config.clone())
            .or_insert_with(|| ImportIndex::build(root, &project.dir, self.limits.max_index_files));
        for (path, text) in &after {
            index.update(root, path, text.as_deref());
        }
        // The text each changed file held before the wave.
        let mut before_text: BTreeMap<String, Option<Arc<str>>> = BTreeMap::new();
        let mut from_revision = Vec::new();
        for path in after.keys() {
            if let Some(text) = self.carried_changed.remove(path) {
                before_text.insert(path.clone(), text);
            } else if let Some(text) = self.open_text(&config, path) {
                before_text.insert(path.clone(), Some(text));
            } else {
                from_revision.push(path.clone());
            }
        }
        if !from_revision.is_empty() {
            let texts = (self.prior_texts)(&from_revision);
            for (path, bytes) in from_revision.into_iter().zip(texts) {
                let text = bytes.and_then(|b| String::from_utf8(b).ok()).map(Arc::from);
                before_text.insert(path, text);
            }
        }

        // Only a change an importer can see makes its importers dependents of the wave. A file
        // nothing imports has none to spare, so its surface is not parsed.
        let index = self.indexes.get(&config);
        let mut visible = Vec::new();
        for (path, text) in &after {
            let imported =
                index.is_some_and(|index| !index.importers_of(std::iter::once(path)).is_empty());
            if !imported {
                continue;
            }
            let before = before_text.get(path).and_then(Option::as_deref);
            let hidden = if let (Some(before), Some(after)) = (before, text.as_deref()) {
                self.surfaces.same(path, before, after)
            } else {
                self.surfaces.forget(path);
                false
            };
            if !hidden {
                visible.push(path.clone());
            }
        }
        let mut dependents: Vec<String> = index
            .map(|index| index.importers_of(&visible))
            .unwrap_or_default()
            .into_iter()
            .filter(|d| !after.contains_key(d))
            .collect();
        for carried in carried_dependents {
            if !dependents.contains(&carried) && !after.contains_key(&carried) {
                dependents.push(carried);
            }
        }
        let lookup_config = |path: &str, this: &Self| {
            this.lookup()
                .project_of(path)
                .is_some_and(|p| p.config == config)
        };
        dependents.retain(|d| lookup_config(d, self) && self.handles(d));
        if dependents.len() > self.limits.max_dependents {
            for cut in dependents.split_off(self.limits.max_dependents) {
                self.carried_dependents.remove(&cut);
                outcome.skip(
                    &cut,
                    SkipReason::DependentNotChecked {
                        limit: self.limits.max_dependents,
                    },
                );
            }
        }

        match self.server(project, deadline).await {
            Ok(()) => {}
            Err(NoServer::Pending) => {
                for (path, text) in before_text {
                    outcome.skip(&path, SkipReason::TypeCheckPending { waited_ms });
                    self.carried_changed.insert(path, text);
                }
                for path in dependents {
                    outcome.skip(&path, SkipReason::TypeCheckPending { waited_ms });
                    self.carried_dependents.entry(path).or_insert(None);
                }
                return;
            }
            Err(NoServer::Unavailable(reason)) => {
                for path in after.keys().chain(&dependents) {
                    self.carried_dependents.remove(path);
                    outcome.skip(
                        path,
                        SkipReason::TypeCheckUnavailable {
                            why: format!("{}: {reason}", config.display()),
                        },
                    );
                }
                return;
            }
        }
        let Some(Slot::Ready {
            mut server,
            restarts,
            last_used,
        }) = self.slots.remove(&config)
        else {
            return;
        };
        self.check_with_server(
            &mut server,
            beneath,
            &config,
            &before_text,
            &after,
            &dependents,
            (deadline, waited_ms),
            outcome,
        )
        .await;
        self.slots.insert(
            config,
            Slot::Ready {
                server,
                restarts,
                last_used,
            },
        );
    }

    /// The before and after of one project's files on its running `server`.
    #[expect(
        clippy::too_many_arguments,
        clippy::too_many_lines,
        reason = "before, then after, read top to bottom: each argument is a different part of the wave"
    )]
    async fn check_with_server(
        &mut self,
        server: &mut LanguageServer,
        beneath: &Beneath,
        config: &Path,
        before_text: &BTreeMap<String, Option<Arc<str>>>,
        after: &BTreeMap<String, Option<Arc<str>>>,
        dependents: &[String],
        (deadline, waited_ms): (tokio::time::Instant, u64),
        outcome: &mut WaveOutcome,
    ) {
        server.renew_budget();
        // The dependents as they are on disk; the server is told of those that changed since it
        // was last told (it never looks at the disk by itself).
        let mut disk: HashMap<String, Arc<str>> = HashMap::new();
        let mut dependents: Vec<String> = dependents.to_vec();
        let mut touched: Vec<String> = Vec::new();
        dependents.retain(
            |path| match read_text(beneath, path, self.limits.max_file_bytes) {
                Ok(text) => {
                    let hash = ContentHash::of(text.as_bytes());
                    if self.disk_seen.insert(path.clone(), hash) != Some(hash) {
                        touched.push(path.clone());
                    }
                    disk.insert(path.clone(), text);
                    true
                }
                Err(reason) => {
                    self.carried_dependents.remove(path);
                    outcome.skip(path, reason);
                    false
                }
            },
        );
        let touched: Vec<&str> = touched.iter().map(String::as_str).collect();
        let mut failure: Option<ServerError> = server.changed_on_disk(&touched).err();
        let dependents = dependents.as_slice();

        // Before: the changed files as they were, the dependents as they are.
        for (path, text) in before_text {
            if let Err(error) = server.sync(path, text.as_ref()) {
                failure.get_or_insert(error);
            }
        }
        let before_targets: Vec<String> = before_text
            .iter()
            .filter(|(_, text)| text.is_some())
            .map(|(path, _)| path.clone())
            .chain(dependents.iter().cloned())
            .collect();
        let mut before: HashMap<String, Option<Vec<Finding>>> = HashMap::new();
        for (path, text) in before_text {
            if text.is_none() {
                before.insert(path.clone(), Some(Vec::new()));
            }
        }
        if failure.is_none() {
            let pulled = pull(
                server,
                &self.answers,
                config,
                &disk,
                &before_targets,
                deadline,
            )
            .await;
            outcome.pulled += pulled.asked;
            outcome.reused += pulled.reused;
            for (path, result) in pulled.results {
                before.insert(path, result.ok());
            }
        }
        // A carried dependent's "before" is the one its own wave kept (this project's only:
        // another project's are taken when its turn comes).
        for path in dependents {
            if let Some(old) = self.carried_dependents.get_mut(path).and_then(Option::take) {
                before.insert(path.clone(), Some(old));
            }
        }

        // After: the changed files hold exactly what the wave left.
        for (path, text) in after {
            if let Err(error) = server.sync(path, text.as_ref()) {
                failure.get_or_insert(error);
            }
        }
        let after_targets: Vec<String> = after
            .iter()
            .filter(|(_, text)| text.is_some())
            .map(|(path, _)| path.clone())
            .chain(dependents.iter().cloned())
            .collect();
        let generation = server.generation();
        let pulled = if failure.is_none() {
            pull(
                server,
                &self.answers,
                config,
                &disk,
                &after_targets,
                deadline,
            )
            .await
        } else {
            Pulled::default()
        };
        outcome.pulled += pulled.asked;
        outcome.reused += pulled.reused;
        let mut results: HashMap<String, Result<Vec<Finding>, PullFailure>> =
            pulled.results.into_iter().collect();
        for path in after.keys() {
            self.carried_dependents.remove(path);
        }
        for path in after_targets {
            let result = results.remove(&path).unwrap_or_else(|| {
                Err(PullFailure::Server(failure.clone().unwrap_or_else(|| {
                    ServerError::Stopped("no answer".to_owned())
                })))
            });
            let is_dependent = !after.contains_key(&path);
            match result {
                Ok(findings) => {
                    self.carried_dependents.remove(&path);
                    self.answers.insert(
                        path.clone(),
                        Answer {
                            config: config.to_path_buf(),
                            generation,
                            findings: findings.clone(),
                        },
                    );
                    outcome.paths.insert(path.clone());
                    outcome.findings.extend(findings);
                    self.before
                        .insert(path.clone(), before.remove(&path).flatten());
                }
                Err(PullFailure::TimedOut) => {
                    outcome.skip(&path, SkipReason::TypeCheckPending { waited_ms });
                    if is_dependent {
                        self.carried_dependents
                            .insert(path.clone(), before.remove(&path).flatten());
                    } else {
                        self.carried_changed
                            .insert(path.clone(), before_text.get(&path).cloned().flatten());
                    }
                }
                Err(PullFailure::Unreadable(reason)) => outcome.skip(&path, reason),
                Err(PullFailure::Server(error)) => {
                    outcome.skip(
                        &path,
                        SkipReason::TypeCheckUnavailable {
                            why: format!("{}: {error}", config.display()),
                        },
                    );
                    if !is_dependent {
                        self.carried_changed
                            .insert(path.clone(), before_text.get(&path).cloned().flatten());
                    }
                }
            }
        }
        for (path, text) in after {
            if text.is_none() {
                self.answers.remove(path);
                outcome.skip(path, SkipReason::Vanished);
            }
        }
    }

    fn open_text(&self, config: &Path, path: &str) -> Option<Arc<str>> {
        match self.slots.get(config) {
            Some(Slot::Ready { server, .. }) => server.open_text(path),
            _ => None,
        }
    }

    /// The running server of `project`, started or restarted as needed and waited for until
    /// `deadline`.
    async fn server(
        &mut self,
        project: &Project,
        deadline: tokio::time::Instant,
    ) -> Result<(), NoServer> {
        let config = project.config.clone();
        let installed = match &project.typescript {
            Ok(installed) => installed.clone(),
            Err(reason) => return Err(NoServer::Unavailable(reason.to_string())),
        };
        self.uses += 1;
        let uses = self.uses;
        // A server that stopped is restarted once; the second time its project is degraded.
        if let Some(Slot::Ready {
            server, restarts, ..
        }) = self.slots.get_mut(&config)
            && let Some(reason) = server.stopped()
        {
            let restarts = *restarts;
            self.answers.retain(|_, a| a.config != config);
            let next = if restarts == 0 {
                Slot::Stopped { restarts: 1 }
            } else {
                Slot::Degraded {
                    reason: format!("its server stopped twice; the last time: {reason}"),
                }
            };
            self.slots.insert(config.clone(), next);
        }
        let restarts = match self.slots.get(&config) {
            None => Some(0),
            Some(Slot::Stopped { restarts }) => Some(*restarts),
            _ => None,
        };
        if let Some(restarts) = restarts {
            self.make_room(&config);
            let root = self.lookup().root().to_path_buf();
            let dir = project.dir.clone();
            let output = self.limits.max_output_bytes;
            let memory = self.limits.max_server_memory;
            let start_timeout = self.limits.start_timeout;
            let task = self.runtime.spawn(async move {
                match tokio::time::timeout(
                    start_timeout,
                    LanguageServer::start(&installed.server, &dir, &root, output, memory),
                )
                .await
                {
                    Ok(started) => started,
                    Err(_) => Err(ServerError::StartTimedOut(start_timeout)),
                }
            });
            self.slots
                .insert(config.clone(), Slot::Starting { task, restarts });
        }
        if let Some(Slot::Starting { task, restarts }) = self.slots.get_mut(&config) {
            let restarts = *restarts;
            match tokio::time::timeout_at(deadline, &mut *task).await {
                Err(_) => return Err(NoServer::Pending),
                Ok(Ok(Ok(server))) => {
                    self.slots.insert(
                        config.clone(),
                        Slot::Ready {
                            server: Box::new(server),
                            restarts,
                            last_used: uses,
                        },
                    );
                }
                Ok(Ok(Err(error))) => {
                    let next = if restarts == 0 {
                        Slot::Stopped { restarts: 1 }
                    } else {
                        Slot::Degraded {
                            reason: format!(
                                "its server failed to start twice; the last time: {error}"
                            ),
                        }
                    };
                    self.slots.insert(config.clone(), next);
                    return Err(NoServer::Unavailable(error.to_string()));
                }
                Ok(Err(join)) => {
                    let reason = format!("starting its server failed: {join}");
                    self.slots.insert(
                        config.clone(),
                        Slot::Degraded {
                            reason: reason.clone(),
                        },
                    );
                    return Err(NoServer::Unavailable(reason));
                }
            }
        }
        match self.slots.get_mut(&config) {
            Some(Slot::Ready { last_used, .. }) => {
                *last_used = uses;
                Ok(())
            }
            Some(Slot::Degraded { reason }) => Err(NoServer::Unavailable(reason.clone())),
            _ => Err(NoServer::Unavailable(
                "its server is not running".to_owned(),
            )),
        }
    }

    /// Stops the least recently used running server while starting another would exceed
    /// `max_servers`.
    fn make_room(&mut self, starting: &Path) {
        loop {
            let running = self
                .slots
                .iter()
                .filter(|(config, slot)| {
                    config.as_path() != starting
                        && matches!(slot, Slot::Ready { .. } | Slot::Starting { .. })
                })
                .count();
            if running < self.limits.max_servers {
                return;
            }
            let oldest = self
                .slots
                .iter()
                .filter_map(|(config, slot)| match slot {
                    Slot::Ready { last_used, .. } if config.as_path() != starting => {
                        Some((*last_used, config.clone()))
                    }
                    _ => None,
                })
                .min();
            let Some((_, config)) = oldest else {
                return;
            };
            if let Some(Slot::Ready {
                server, restarts, ..
            }) = self.slots.remove(&config)
            {
                self.answers.retain(|_, a| a.config != config);
                self.runtime.spawn(server.stop());
                self.slots.insert(config, Slot::Stopped { restarts });
            }
        }
    }

    /// Stops every server over its memory budget; its project is degraded with the figure.
    fn enforce_memory(&mut self) {
        let budget = self.limits.max_server_memory;
        let over: Vec<(PathBuf, u64)> = self
            .slots
            .iter()
            .filter_map(|(config, slot)| match slot {
                Slot::Ready { server, .. } => server
                    .resident_bytes()
                    .filter(|bytes| *bytes > budget)
                    .map(|bytes| (config.clone(), bytes)),
                _ => None,
            })
            .collect();
        for (config, bytes) in over {
            if let Some(Slot::Ready { mut server, .. }) = self.slots.remove(&config) {
                server.kill();
            }
            self.answers.retain(|_, a| a.config != config);
            self.slots.insert(
                config,
                Slot::Degraded {
                    reason: format!(
                        "its server used {} MiB, over the {} MiB budget ([typescript] max_server_memory_mib)",
                        bytes / (1024 * 1024),
                        budget / (1024 * 1024)
                    ),
                },
            );
        }
    }

    /// Publishes the current status to the handle.
    fn publish(&self) {
        let mut status = TypeScriptStatus {
            pending: self.carried_changed.len() + self.carried_dependents.len(),
            answers: self.answers.usage(),
            disk_seen: self.disk_seen.usage(),
            ..TypeScriptStatus::default()
        };
        for (config, project) in &self.projects {
            let version = project.typescript.as_ref().ok().map(|i| i.version.clone());
            let (state, restarts) = match (self.slots.get(config), &project.typescript) {
                (_, Err(reason)) => (
                    ProjectState::Off {
                        reason: reason.to_string(),
                    },
                    0,
                ),
                (None, Ok(_)) => (ProjectState::Stopped, 0),
                (Some(Slot::Starting { restarts, .. }), _) => (ProjectState::Starting, *restarts),
                (Some(Slot::Stopped { restarts }), _) => (ProjectState::Stopped, *restarts),
                (Some(Slot::Degraded { reason }), _) => (
                    ProjectState::Degraded {
                        reason: reason.clone(),
                    },
                    1,
                ),
                (
                    Some(Slot::Ready {
                        server, restarts, ..
                    }),
                    _,
                ) => {
                    let memory = server.resident_bytes();
                    status.memory_bytes += memory.unwrap_or(0);
                    (
                        ProjectState::Running {
                            pid: server.pid(),
                            memory_bytes: memory,
                            open_documents: server.open_count(),
                        },
                        *restarts,
                    )
                }
            };
            status.projects.push(ProjectStatus {
                config: config.clone(),
                version,
                state,
                restarts,
                import_index_cut_at: self.indexes.get(config).and_then(|i| i.truncated_at),
            });
        }
        self.status.set(status);
    }

    /// Kills the server of the project whose config is `config` (a test seam for crashes).
    #[doc(hidden)]
    pub fn kill_server(&mut self, config: &Path) -> bool {
        match self.slots.get_mut(config) {
            Some(Slot::Ready { server, .. }) => {
                server.kill();
                true
            }
            _ => false,
        }
    }

    /// The process ids of the running servers.
    pub fn server_pids(&self) -> Vec<u32> {
        self.slots
            .values()
            .filter_map(|slot| match slot {
                Slot::Ready { server, .. } => server.pid(),
                _ => None,
            })
            .collect()
    }
}

impl Drop for TypeScriptAnalyzer {
    /// Servers stop with the analyzer: a starting one is abandoned (its process is killed when
    /// the start task drops it), a running one is killed.
    fn drop(&mut self) {
        for slot in self.slots.values_mut() {
            match slot {
                Slot::Starting { task, .. } => task.abort(),
                Slot::Ready { server, .. } => server.kill(),
                Slot::Stopped { .. } | Slot::Degraded { .. } => {}
            }
        }
    }
}

/// Whether `path` configures a TypeScript project: a `tsconfig*.json` or `jsconfig.json` (its
/// options, files and references) or a `package.json` (module format, `exports`, `types`), outside
/// `node_modules`.
fn is_project_config(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let config = name == "package.json"
        || name == "jsconfig.json"
        || (name.starts_with("tsconfig")
            && Path::new(name).extension().is_some_and(|e| e == "json"));
    config && !path.split('/').any(|part| part == "node_modules")
}

/// The text of the repository file `path`, read as a wave's files are read.
fn read_text(beneath: &Beneath, path: &str, limit: u64) -> Result<Arc<str>, SkipReason> {
    let bytes = read_repo_file(beneath, path, limit)?;
    String::from_utf8(bytes)
        .map(Arc::from)
        .map_err(|_| SkipReason::NotUtf8)
}

/// Why a file's diagnostics were not pulled.
#[derive(Debug)]
enum PullFailure {
    TimedOut,
    Unreadable(SkipReason),
    Server(ServerError),
}

/// The findings of each target, pulled or reused.
#[derive(Default)]
struct Pulled {
    results: Vec<(String, Result<Vec<Finding>, PullFailure>)>,
    asked: usize,
    reused: usize,
}

/// Asks `server` for the diagnostics of every target at once, each answer bounded by `deadline`;
/// reuses an answer pulled at the server's current generation.
async fn pull(
    server: &LanguageServer,
    answers: &BoundedMap<String, Answer>,
    config: &Path,
    disk: &HashMap<String, Arc<str>>,
    targets: &[String],
    deadline: tokio::time::Instant,
) -> Pulled {
    let generation = server.generation();
    let mut pulled = Pulled::default();
    let mut requests = Vec::new();
    for path in targets {
        if let Some(answer) = answers.get(path)
            && answer.generation == generation
            && answer.config == config
        {
            pulled.reused += 1;
            pulled
                .results
                .push((path.clone(), Ok(answer.findings.clone())));
            continue;
        }
        // Past the deadline nothing is asked: an answer that happened to come first would make a
        // wait of 0 ("never wait") sometimes wait.
        if tokio::time::Instant::now() >= deadline {
            pulled
                .results
                .push((path.clone(), Err(PullFailure::TimedOut)));
            continue;
        }
        // The text the server judges: the open document, else the file on disk.
        let Some(text) = server
            .open_text(path)
            .or_else(|| disk.get(path).map(Arc::clone))
        else {
            pulled.results.push((
                path.clone(),
                Err(PullFailure::Unreadable(SkipReason::Vanished)),
            ));
            continue;
        };
        let request = server.diagnostics(path);
        let path = path.clone();
        requests.push(async move {
            let result = match tokio::time::timeout_at(deadline, request).await {
                Ok(Ok(diagnostics)) => Ok(convert::findings(&path, &text, &diagnostics)),
                Ok(Err(error)) => Err(PullFailure::Server(error)),
                Err(_) => Err(PullFailure::TimedOut),
            };
            (path, result)
        });
    }
    pulled.asked = requests.len();
    pulled
        .results
        .extend(futures::future::join_all(requests).await);
    pulled
}

//! Owns the TypeScript analyzer a wave runs: for each project the changed files belong to, its
//! language server (from a pool: started lazily, restarted once after a crash, then degraded with
//! the reason), the files to check (the changed ones and, through the reverse import index, the
//! unchanged ones that import them, at most `max_dependents`), and for each of them the findings
//! before and after the wave.
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
//! Files: `limits` (every bound), `memory` (what is kept between waves), `project` (one
//! project's part of a wave: texts, dependents, its server), `check` (before and after on the
//! server), `pull` (asking for diagnostics), `configs` (a wave that changed project
//! configuration), `publish` (the status).
//!
//! [`findings_in`]: TypeScriptAnalyzer::findings_in

mod check;
mod configs;
mod limits;
mod memory;
mod project;
mod publish;
mod pull;

pub use limits::TypeScriptLimits;

use crate::ANALYZER_KEY;
use crate::imports::{ImportIndex, is_source};
use crate::install::{Project, ProjectLookup, TsserverBridge};
use crate::server::TypeScriptServer;
use crate::status::StatusHandle;
use crate::surface::Surfaces;
use memory::Memory;
use pi_native_hooks_analysis::{
    AnalysisSnapshot, AnalyzerKey, Finding, SkipReason, SkippedFile, read_repo_file,
};
use pi_native_hooks_base::lock;
use pi_native_hooks_base::safe_open::Beneath;
use pi_native_hooks_lsp::{PoolLimits, ServerPool};
use pull::Pulled;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::runtime::Handle;

/// What each changed file held before the wave, read from a revision (`HEAD` in a session): one
/// entry per path, `None` when the revision has no such file or it cannot be read.
pub type PriorTexts = Box<dyn Fn(&[String]) -> Vec<Option<Vec<u8>>> + Send + Sync>;

/// The setting that bounds a server's memory, named when a server is stopped for it.
const MEMORY_SETTING: &str = "[typescript] max_server_memory_mib";

/// The wave's clock: when its wait ends, and how long the wait was.
#[derive(Clone, Copy, Debug)]
struct Wait {
    deadline: tokio::time::Instant,
    waited_ms: u64,
}

impl Wait {
    /// The reason a file not answered within the wait is named with.
    fn pending(self) -> SkipReason {
        SkipReason::TypeCheckPending {
            waited_ms: self.waited_ms,
        }
    }
}

/// The files of one project a wave checks: its changed files (with those carried from an earlier
/// wave) and its carried dependents.
struct ProjectFiles {
    project: Arc<Project>,
    changed: Vec<String>,
    dependents: Vec<String>,
}

/// One project's part of a wave, ready to check.
struct ProjectWave {
    /// The project's `tsconfig.json` or `jsconfig.json`.
    config: PathBuf,
    /// The text each changed file held before the wave (`None`: it did not exist).
    before: BTreeMap<String, Option<Arc<str>>>,
    /// The text each changed file holds now (`None`: it was deleted).
    after: BTreeMap<String, Option<Arc<str>>>,
    /// The unchanged files re-checked because a change they can see reaches them.
    dependents: Vec<String>,
}

impl ProjectWave {
    /// The reason a file of this project gets no type check, `why`.
    fn unavailable(&self, why: &str) -> SkipReason {
        SkipReason::TypeCheckUnavailable {
            why: format!("{}: {why}", self.config.display()),
        }
    }
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

    /// Counts the requests sent and the answers reused.
    fn count(&mut self, pulled: &Pulled) {
        self.pulled += pulled.asked;
        self.reused += pulled.reused;
    }

    /// The wave's snapshot under `key`, at most `max_findings` findings kept.
    fn into_snapshot(
        self,
        key: &AnalyzerKey,
        max_findings: usize,
        started: Instant,
    ) -> Arc<AnalysisSnapshot> {
        let mut findings = self.findings;
        findings.sort();
        let omitted = findings.len().saturating_sub(max_findings);
        findings.truncate(max_findings);
        let mut skipped = self.skipped;
        skipped.sort_by(|a, b| a.path.cmp(&b.path));
        Arc::new(AnalysisSnapshot {
            analyzer: key.clone(),
            paths: self.paths.into_iter().collect(),
            findings,
            omitted_findings: omitted,
            skipped,
            parsed_files: self.pulled,
            cached_files: self.reused,
            duration: started.elapsed(),
            failure: None,
        })
    }
}

/// The project's own TypeScript, asked for the type errors of a wave's files.
pub struct TypeScriptAnalyzer {
    key: AnalyzerKey,
    runtime: Handle,
    limits: TypeScriptLimits,
    lookup: Mutex<ProjectLookup>,
    /// One server per project, by its config path.
    servers: ServerPool<PathBuf, TypeScriptServer>,
    projects: BTreeMap<PathBuf, Arc<Project>>,
    indexes: HashMap<PathBuf, ImportIndex>,
    memory: Memory,
    prior_texts: PriorTexts,
    /// The export surface of each changed file's last text.
    surfaces: Surfaces,
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
        let pool = PoolLimits {
            max_servers: limits.max_servers,
            max_memory_bytes: limits.max_server_memory,
            start_timeout: limits.start_timeout,
            memory_setting: MEMORY_SETTING,
        };
        let analyzer = Self {
            key: AnalyzerKey::from(ANALYZER_KEY),
            servers: ServerPool::new(runtime.clone(), pool),
            runtime,
            limits,
            lookup: Mutex::new(ProjectLookup::new(root)),
            projects: BTreeMap::new(),
            indexes: HashMap::new(),
            memory: Memory::new(limits.max_remembered_files),
            prior_texts,
            surfaces: Surfaces::default(),
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
        lock(&self.lookup)
    }

    /// The findings the last wave's check found in `path` before the wave, when it judged them.
    pub fn findings_in(&self, path: &str) -> Option<Vec<Finding>> {
        self.memory.before.get(path).cloned().flatten()
    }

    /// Checks `paths` (repository-relative, under `root`) and the files that import them, and
    /// returns the snapshot of the wave's type findings. Blocks the calling thread (never a
    /// runtime thread) for at most the wait, plus reading the files.
    pub fn scan(&mut self, root: &Path, paths: &[String]) -> Arc<AnalysisSnapshot> {
        self.scan_within(root, paths, self.limits.wait)
    }

    /// Whether files of an earlier wave are still waiting for their type check.
    pub fn has_pending(&self) -> bool {
        self.memory.pending() > 0
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
        let wait = Wait {
            deadline: tokio::time::Instant::now() + wait,
            waited_ms: u64::try_from(wait.as_millis()).unwrap_or(u64::MAX),
        };
        self.memory.before.clear();
        let mut outcome = WaveOutcome::default();
        let beneath = match Beneath::new(root) {
            Ok(beneath) => beneath,
            Err(error) => {
                for path in paths {
                    let error = error.to_string();
                    outcome.skip(path, SkipReason::Unreadable { error });
                }
                return outcome.into_snapshot(&self.key, self.limits.max_findings, started);
            }
        };
        let (configs, paths): (Vec<String>, Vec<String>) =
            paths.iter().cloned().partition(|p| is_project_config(p));
        let runtime = self.runtime.clone();
        if !configs.is_empty() {
            runtime.block_on(self.configs_changed(&configs, wait.deadline));
            outcome.paths.extend(configs);
        }
        for files in self.projects_of(&paths).into_values() {
            runtime.block_on(self.check_project(root, &beneath, files, wait, &mut outcome));
        }
        self.servers.enforce_memory();
        self.forget_retired();
        self.publish();
        outcome.into_snapshot(&self.key, self.limits.max_findings, started)
    }

    /// The changed `paths`, the changed files still pending and the dependents still pending,
    /// by the project each belongs to.
    fn projects_of(&mut self, paths: &[String]) -> BTreeMap<PathBuf, ProjectFiles> {
        let mut groups: BTreeMap<PathBuf, ProjectFiles> = BTreeMap::new();
        let mut changed: BTreeSet<String> = paths.iter().cloned().collect();
        changed.extend(self.memory.carried_changed.keys().cloned());
        let dependents: Vec<String> = self.memory.carried_dependents.keys().cloned().collect();
        let files = changed
            .into_iter()
            .map(|path| (path, false))
            .chain(dependents.into_iter().map(|path| (path, true)));
        for (path, is_dependent) in files {
            let Some(project) = self.project_for(&path) else {
                continue;
            };
            let group = groups
                .entry(project.config.clone())
                .or_insert_with(|| ProjectFiles {
                    project,
                    changed: Vec::new(),
                    dependents: Vec::new(),
                });
            if is_dependent {
                group.dependents.push(path);
            } else {
                group.changed.push(path);
            }
        }
        groups
    }

    fn project_for(&mut self, path: &str) -> Option<Arc<Project>> {
        let project = self.lookup().project_of(path)?;
        self.projects
            .entry(project.config.clone())
            .or_insert_with(|| Arc::clone(&project));
        Some(project)
    }

    /// Forgets what the servers that went away answered.
    fn forget_retired(&mut self) {
        for config in self.servers.take_retired() {
            self.memory.forget_server(&config);
        }
    }

    /// Kills the server of the project whose config is `config` (a test seam for crashes).
    #[doc(hidden)]
    pub fn kill_server(&mut self, config: &Path) -> bool {
        self.servers
            .get_mut(&config.to_path_buf())
            .map(|server| server.kill())
            .is_some()
    }

    /// The process ids of the running servers.
    pub fn server_pids(&self) -> Vec<u32> {
        self.servers
            .running()
            .filter_map(|server| server.pid())
            .collect()
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

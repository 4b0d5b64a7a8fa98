//! The wave coordinator's test doubles and driver: an in-memory workspace, a fake analyzer and
//! fake policies over it, a scan-counting wrapper for any analyzer, an event driver that replays
//! Pi 1.6's event order (parallel preflight in source order then concurrent execution; sequential
//! one call at a time), and a coordinator over a real directory with the built-in pack.

use super::write;
use pi_native_hooks_analysis::{
    AnalysisSnapshot, AnalyzerKey, Finding, PolicyDiagnostic, Position, ScanRequest, Severity,
    SkipReason, SkippedFile, SourceRange, WaveAnalyzer,
};
use pi_native_hooks_base::CancelToken;
use pi_native_hooks_base::PolicyId;
use pi_native_hooks_policy::{DiagnosticRun, FailureReason, PolicyFailure};
use pi_native_hooks_wave::{
    AssistantMessage, DiagnosticPolicies, ExecutionMode, ResultDecision, SnapshotScope,
    SnapshotSource, ToolCallInfo, ToolResult, WaveCoordinator,
};
use pi_native_hooks_workspace::WorkspaceError;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// The root of the in-memory workspace.
pub const ROOT: &str = "/fake/repo";

/// Files of the in-memory workspace, by relative path.
#[derive(Default)]
pub struct FakeFs {
    files: Mutex<BTreeMap<String, String>>,
}

impl FakeFs {
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    pub fn write(&self, path: &str, content: &str) {
        self.files
            .lock()
            .expect("fs")
            .insert(path.to_owned(), content.to_owned());
    }

    pub fn read(&self, path: &str) -> Option<String> {
        self.files.lock().expect("fs").get(path).cloned()
    }

    fn hashes(&self, only: Option<&BTreeSet<String>>) -> BTreeMap<String, u64> {
        let files = self.files.lock().expect("fs");
        match only {
            None => files
                .iter()
                .map(|(path, text)| (path.clone(), xxhash(text)))
                .collect(),
            Some(paths) => paths
                .iter()
                .map(|path| (path.clone(), files.get(path).map_or(0, |text| xxhash(text))))
                .collect(),
        }
    }
}

fn xxhash(text: &str) -> u64 {
    // Any stable hash will do; 0 marks absence.
    text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    }) | 1
}

/// A gate that holds every capture until opened (for baseline timeouts, with real time).
#[derive(Default)]
pub struct Gate {
    open: Mutex<bool>,
    changed: Condvar,
}

impl Gate {
    pub fn open(&self) {
        *self.open.lock().expect("gate") = true;
        self.changed.notify_all();
    }

    fn pass(&self) {
        let mut open = self.open.lock().expect("gate");
        while !*open {
            open = self.changed.wait(open).expect("gate");
        }
    }
}

/// An in-memory [`SnapshotSource`]: a snapshot is the hash of every file in scope.
pub struct FakeWorkspace {
    pub fs: Arc<FakeFs>,
    git: bool,
    cwd: PathBuf,
    pub captures: Arc<Mutex<Vec<SnapshotScope>>>,
    pub gate: Option<Arc<Gate>>,
}

impl FakeWorkspace {
    pub fn git(fs: &Arc<FakeFs>) -> Self {
        Self {
            fs: Arc::clone(fs),
            git: true,
            cwd: PathBuf::from(ROOT),
            captures: Arc::default(),
            gate: None,
        }
    }

    pub fn not_git(fs: &Arc<FakeFs>) -> Self {
        Self {
            git: false,
            ..Self::git(fs)
        }
    }
}

impl SnapshotSource for FakeWorkspace {
    type Snapshot = BTreeMap<String, u64>;

    fn cwd(&self) -> &Path {
        &self.cwd
    }

    fn git_root(&self) -> Option<&Path> {
        self.git.then_some(self.cwd.as_path())
    }

    fn capture(
        &self,
        scope: &SnapshotScope,
        _cancel: &CancelToken,
    ) -> Result<Self::Snapshot, WorkspaceError> {
        if let Some(gate) = &self.gate {
            gate.pass();
        }
        self.captures.lock().expect("captures").push(scope.clone());
        Ok(match scope {
            SnapshotScope::Full => self.fs.hashes(None),
            SnapshotScope::Paths(paths) => {
                let relative: BTreeSet<String> = paths
                    .iter()
                    .filter_map(|p| p.strip_prefix(ROOT).ok())
                    .map(|p| p.to_string_lossy().into_owned())
                    .collect();
                self.fs.hashes(Some(&relative))
            }
        })
    }

    fn changed_paths(
        &self,
        before: &Self::Snapshot,
        after: &Self::Snapshot,
    ) -> Result<BTreeSet<String>, WorkspaceError> {
        Ok(before
            .keys()
            .chain(after.keys())
            .filter(|path| before.get(*path) != after.get(*path))
            .cloned()
            .collect())
    }
}

/// Finds every `BAD` in `.ts` files of a [`FakeFs`]; the matched text is the whole line.
pub struct FakeAnalyzer {
    pub key: AnalyzerKey,
    pub fs: Arc<FakeFs>,
}

impl WaveAnalyzer for FakeAnalyzer {
    fn key(&self) -> &AnalyzerKey {
        &self.key
    }

    fn handles(&self, path: &str) -> bool {
        path.ends_with(".ts")
    }

    fn scan(&mut self, request: &ScanRequest<'_>) -> Arc<AnalysisSnapshot> {
        let paths = request.paths;
        let mut snapshot = AnalysisSnapshot {
            analyzer: self.key.clone(),
            paths: paths.to_vec(),
            ..AnalysisSnapshot::default()
        };
        for path in paths {
            let Some(text) = self.fs.read(path) else {
                snapshot.skipped.push(SkippedFile {
                    path: path.clone(),
                    reason: SkipReason::Vanished,
                });
                continue;
            };
            snapshot.parsed_files += 1;
            for (line, content) in text.lines().enumerate() {
                if let Some(column) = content.find("BAD") {
                    snapshot.findings.push(Finding {
                        rule: "no-bad".into(),
                        severity: Severity::Warning,
                        message: "BAD is not allowed".into(),
                        note: None,
                        path: path.clone().into(),
                        range: SourceRange {
                            start: Position { line, column },
                            end: Position {
                                line,
                                column: column + 3,
                            },
                        },
                        text_hash: format!("{:016x}", xxhash(content)),
                        fix: None,
                    });
                }
            }
        }
        Arc::new(snapshot)
    }
}

/// An analyzer whose scans wait until `gate` opens: a read that blocks, like opening a FIFO.
pub struct Blocking<A> {
    pub inner: A,
    pub gate: Arc<Gate>,
}

impl<A: WaveAnalyzer> WaveAnalyzer for Blocking<A> {
    fn key(&self) -> &AnalyzerKey {
        self.inner.key()
    }

    fn handles(&self, path: &str) -> bool {
        self.inner.handles(path)
    }

    fn scan(&mut self, request: &ScanRequest<'_>) -> Arc<AnalysisSnapshot> {
        self.gate.pass();
        self.inner.scan(request)
    }

    fn findings_in(&self, path: &str, bytes: &[u8]) -> Option<Vec<Finding>> {
        self.inner.findings_in(path, bytes)
    }

    fn max_file_bytes(&self) -> u64 {
        self.inner.max_file_bytes()
    }

    fn has_rules(&self) -> bool {
        self.inner.has_rules()
    }
}

/// Every scan an analyzer was asked for: `(key, paths)`.
pub type ScanLog = Arc<Mutex<Vec<(String, Vec<String>)>>>;

/// Records every scan of the wrapped analyzer in a [`ScanLog`].
pub struct Counting<A> {
    pub inner: A,
    pub scans: ScanLog,
}

impl<A: WaveAnalyzer> Counting<A> {
    pub fn new(inner: A) -> (Self, ScanLog) {
        let scans = Arc::new(Mutex::new(Vec::new()));
        (
            Self {
                inner,
                scans: Arc::clone(&scans),
            },
            scans,
        )
    }
}

impl<A: WaveAnalyzer> WaveAnalyzer for Counting<A> {
    fn key(&self) -> &AnalyzerKey {
        self.inner.key()
    }

    fn handles(&self, path: &str) -> bool {
        self.inner.handles(path)
    }

    fn scan(&mut self, request: &ScanRequest<'_>) -> Arc<AnalysisSnapshot> {
        self.scans
            .lock()
            .expect("scans")
            .push((self.inner.key().to_string(), request.paths.to_vec()));
        self.inner.scan(request)
    }

    fn findings_in(&self, path: &str, bytes: &[u8]) -> Option<Vec<Finding>> {
        self.inner.findings_in(path, bytes)
    }

    fn max_file_bytes(&self) -> u64 {
        self.inner.max_file_bytes()
    }

    fn has_rules(&self) -> bool {
        self.inner.has_rules()
    }
}

/// Diagnostic policies over `fake:*` snapshots: each reports every finding; `failing` ones fail.
pub struct FakePolicies {
    pub ids: Vec<String>,
    pub failing: BTreeSet<String>,
}

impl FakePolicies {
    pub fn new(ids: &[&str]) -> Self {
        Self {
            ids: ids.iter().map(|s| (*s).to_owned()).collect(),
            failing: BTreeSet::new(),
        }
    }
}

impl DiagnosticPolicies for FakePolicies {
    fn consumers(&self, analyzer: &AnalyzerKey) -> Vec<PolicyId> {
        if analyzer.as_str().starts_with("fake:") {
            self.ids.iter().map(Into::into).collect()
        } else {
            Vec::new()
        }
    }

    fn evaluate(&self, snapshot: &Arc<AnalysisSnapshot>, _cancel: &CancelToken) -> DiagnosticRun {
        let mut run = DiagnosticRun::default();
        for id in &self.ids {
            if self.failing.contains(id) {
                run.failures.push(PolicyFailure {
                    policy: id.into(),
                    path: PathBuf::from(format!("policies/{id}.rhai")),
                    function: "evaluate".into(),
                    reason: FailureReason::Malformed("fails on purpose".into()),
                });
                continue;
            }
            for f in &snapshot.findings {
                run.diagnostics.push(PolicyDiagnostic {
                    path: f.path.clone(),
                    line: f.range.start.line + 1,
                    column: f.range.start.column + 1,
                    end_line: f.range.end.line + 1,
                    end_column: f.range.end.column + 1,
                    rule: f.rule.clone(),
                    policy: id.into(),
                    severity: f.severity,
                    message: f.message.clone(),
                    guidance: format!("Remove BAD ({id}).").into(),
                });
            }
        }
        run.diagnostics.sort();
        run
    }
}

/// How a call ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// Runs and gets a successful `tool_result`.
    Ok,
    /// Runs and gets an error `tool_result` (it may still have changed files).
    Error,
    /// `tool_execution_start` → `tool_call` → `tool_execution_end`: blocked.
    Blocked,
    /// `tool_execution_start` → `tool_execution_end`: invalid arguments.
    Invalid,
    /// Runs, then no event ever arrives for it.
    Silent,
}

/// Something a call does to the workspace while it runs.
pub type Effect = Box<dyn FnOnce() + Send>;

/// One call of a batch.
pub struct Step {
    pub id: String,
    pub tool: String,
    pub input: Value,
    pub fate: Fate,
    /// Execution time (virtual under a paused clock).
    pub delay: Duration,
    pub effect: Option<Effect>,
}

impl Step {
    pub fn new(id: &str, tool: &str, input: Value) -> Self {
        Self {
            id: id.to_owned(),
            tool: tool.to_owned(),
            input,
            fate: Fate::Ok,
            delay: Duration::from_millis(10),
            effect: None,
        }
    }

    /// A `write` of `path` that writes `content` into `fs` when it runs.
    pub fn write(id: &str, fs: &Arc<FakeFs>, path: &str, content: &str) -> Self {
        let (fs, p, c) = (Arc::clone(fs), path.to_owned(), content.to_owned());
        Self::new(id, "write", json!({ "path": path, "content": content }))
            .effect(move || fs.write(&p, &c))
    }

    pub fn fate(mut self, fate: Fate) -> Self {
        self.fate = fate;
        self
    }

    pub fn delay_ms(mut self, ms: u64) -> Self {
        self.delay = Duration::from_millis(ms);
        self
    }

    pub fn effect(mut self, effect: impl FnOnce() + Send + 'static) -> Self {
        self.effect = Some(Box::new(effect));
        self
    }

    fn info(&self) -> ToolCallInfo {
        ToolCallInfo::new(&self.id, &self.tool, self.input.clone())
    }

    fn result(&self) -> ToolResult {
        let failed = self.fate == Fate::Error;
        ToolResult {
            call: ToolCallInfo::new(&self.id, &self.tool, self.input.clone()),
            is_error: failed,
            exit_code: (self.tool == "bash").then(|| i64::from(failed)),
        }
    }
}

/// How the driver replays a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Run {
    /// Pi's parallel mode.
    Parallel,
    /// Pi's sequential mode, announced as such.
    Sequential,
    /// Sequential execution announced as parallel (the coordinator must not deadlock).
    HiddenSequential,
}

/// What a `tool_result` handler got back.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub result: ToolResult,
    pub decision: ResultDecision,
}

/// Replays one assistant message's calls in Pi 1.6's order and returns every handler's outcome.
pub async fn run_batch<W: SnapshotSource>(
    coordinator: &WaveCoordinator<W>,
    steps: Vec<Step>,
    run: Run,
) -> Vec<Outcome> {
    let mode = if run == Run::Sequential {
        ExecutionMode::Sequential
    } else {
        ExecutionMode::Parallel
    };
    coordinator.assistant_message(AssistantMessage {
        calls: steps.iter().map(Step::info).collect(),
        mode,
    });
    let mut outcomes = Vec::new();
    if run != Run::Parallel {
        for step in steps {
            if let Some(outcome) = one_call(coordinator, step).await {
                outcomes.push(outcome);
            }
        }
        return outcomes;
    }
    let mut running = Vec::new();
    for step in steps {
        coordinator.tool_execution_start(step.info());
        if step.fate == Fate::Invalid {
            coordinator.tool_execution_end(&step.id);
            continue;
        }
        coordinator.tool_call(step.info()).await;
        if step.fate == Fate::Blocked {
            coordinator.tool_execution_end(&step.id);
            continue;
        }
        running.push(step);
    }
    let tasks: Vec<_> = running
        .into_iter()
        .map(|step| {
            let coordinator = coordinator.clone();
            tokio::spawn(async move { execute(&coordinator, step).await })
        })
        .collect();
    for task in tasks {
        if let Some(outcome) = task.await.expect("handler task") {
            outcomes.push(outcome);
        }
    }
    outcomes
}

async fn one_call<W: SnapshotSource>(
    coordinator: &WaveCoordinator<W>,
    step: Step,
) -> Option<Outcome> {
    coordinator.tool_execution_start(step.info());
    if step.fate == Fate::Invalid {
        coordinator.tool_execution_end(&step.id);
        return None;
    }
    coordinator.tool_call(step.info()).await;
    if step.fate == Fate::Blocked {
        coordinator.tool_execution_end(&step.id);
        return None;
    }
    execute(coordinator, step).await
}

async fn execute<W: SnapshotSource>(
    coordinator: &WaveCoordinator<W>,
    mut step: Step,
) -> Option<Outcome> {
    tokio::time::sleep(step.delay).await;
    if let Some(effect) = step.effect.take() {
        effect();
    }
    if step.fate == Fate::Silent {
        return None;
    }
    let result = step.result();
    let decision = coordinator.tool_result(&result).await;
    coordinator.tool_execution_end(&step.id);
    Some(Outcome { result, decision })
}

/// The decision for call `id`.
pub fn decision<'a>(outcomes: &'a [Outcome], id: &str) -> &'a ResultDecision {
    &outcomes
        .iter()
        .find(|o| o.result.call.id == id)
        .unwrap_or_else(|| panic!("no outcome for {id}"))
        .decision
}

/// The appended text for call `id`, if any.
pub fn appended<'a>(outcomes: &'a [Outcome], id: &str) -> Option<&'a str> {
    match decision(outcomes, id) {
        ResultDecision::Append(text) => Some(text),
        ResultDecision::Unchanged => None,
    }
}

/// A coordinator over the in-memory workspace, with its scan and capture logs.
pub struct Fake {
    pub coordinator: WaveCoordinator<FakeWorkspace>,
    pub fs: Arc<FakeFs>,
    pub scans: ScanLog,
    pub captures: Arc<Mutex<Vec<SnapshotScope>>>,
}

impl Fake {
    /// A coordinator in a git workspace with the two policies `p1` and `p2`.
    pub fn new(config: pi_native_hooks_wave::WaveConfig) -> Self {
        Self::with(config, FakePolicies::new(&["p1", "p2"]), true, None)
    }

    pub fn with(
        config: pi_native_hooks_wave::WaveConfig,
        policies: FakePolicies,
        git: bool,
        gate: Option<Arc<Gate>>,
    ) -> Self {
        let fs = FakeFs::new();
        let mut workspace = if git {
            FakeWorkspace::git(&fs)
        } else {
            FakeWorkspace::not_git(&fs)
        };
        workspace.gate = gate;
        let captures = Arc::clone(&workspace.captures);
        let (analyzer, scans) = Counting::new(FakeAnalyzer {
            key: "fake:analyzer".into(),
            fs: Arc::clone(&fs),
        });
        let analysis = pi_native_hooks_wave::AnalysisCoordinator::new(
            vec![Box::new(analyzer)],
            Arc::new(policies),
        )
        .expect("unique keys");
        let coordinator =
            WaveCoordinator::new(config, workspace, analysis).expect("inside a runtime");
        Self {
            coordinator,
            fs,
            scans,
            captures,
        }
    }

    /// A coordinator in a git workspace with the policy `p1` whose scans block until `gate`
    /// opens.
    pub fn blocking_analysis(config: pi_native_hooks_wave::WaveConfig, gate: &Arc<Gate>) -> Self {
        let fs = FakeFs::new();
        let workspace = FakeWorkspace::git(&fs);
        let captures = Arc::clone(&workspace.captures);
        let (analyzer, scans) = Counting::new(Blocking {
            inner: FakeAnalyzer {
                key: "fake:analyzer".into(),
                fs: Arc::clone(&fs),
            },
            gate: Arc::clone(gate),
        });
        let analysis = pi_native_hooks_wave::AnalysisCoordinator::new(
            vec![Box::new(analyzer)],
            Arc::new(FakePolicies::new(&["p1"])),
        )
        .expect("unique keys");
        let coordinator =
            WaveCoordinator::new(config, workspace, analysis).expect("inside a runtime");
        Self {
            coordinator,
            fs,
            scans,
            captures,
        }
    }

    pub fn scan_count(&self) -> usize {
        self.scans.lock().expect("scans").len()
    }

    pub fn capture_count(&self) -> usize {
        self.captures.lock().expect("captures").len()
    }

    /// The status after every background task ended.
    pub async fn settled(&self) -> pi_native_hooks_wave::WaveHistory {
        self.coordinator
            .idle()
            .await
            .expect("every background task ends within the timeout");
        self.coordinator.status()
    }
}

/// A coordinator over a real directory with the built-in rules and policies (never the personal
/// config), the real analyzer wrapped in [`Counting`].
pub fn real(dir: &Path) -> (WaveCoordinator, ScanLog) {
    real_with(dir, pi_native_hooks_delivery::RenderLimits::default())
}

/// [`real`] with the block bounded by `render`.
pub fn real_with(
    dir: &Path,
    render: pi_native_hooks_delivery::RenderLimits,
) -> (WaveCoordinator, ScanLog) {
    use pi_native_hooks_analysis::{Analyzer, ScanLimits, load_source};
    use pi_native_hooks_config::ConfigSource;
    use pi_native_hooks_policy::builtin_sources;
    use pi_native_hooks_policy::{PolicyRegistry, RegistrySource, Sandbox, SandboxLimits};
    use pi_native_hooks_wave::{AnalysisCoordinator, GitWorkspace, WaveConfig};

    let source = ConfigSource::BuiltIn;
    let (rules, problems) = load_source(&source);
    assert!(problems.is_empty(), "{problems:?}");
    let analyzer =
        Analyzer::new(source.analyzer_key(), rules, ScanLimits::default(), 1).expect("analyzer");
    let (analyzer, scans) = Counting::new(analyzer);
    // The built-in pack with a generous deadline: a loaded test machine must not time out the
    // policies (their deadline is tested with the policies).
    let sandbox = Sandbox::new(SandboxLimits {
        deadline: Duration::from_secs(30),
        ..SandboxLimits::default()
    });
    let registry = PolicyRegistry::from_sources(
        RegistrySource::Builtin,
        builtin_sources(),
        Arc::new(sandbox),
    );
    let analysis = AnalysisCoordinator::new(vec![Box::new(analyzer)], Arc::new(registry))
        .expect("unique keys");
    let workspace = GitWorkspace::probe(dir).expect("probe");
    let config = WaveConfig {
        timeout: Duration::from_secs(60),
        render,
        ..WaveConfig::default()
    };
    let coordinator = WaveCoordinator::new(config, workspace, analysis).expect("runtime");
    (coordinator, scans)
}

/// A `write` of `root/path` on disk.
pub fn write_step(id: &str, root: &Path, path: &str, text: &str) -> Step {
    let (root, p, t) = (root.to_path_buf(), path.to_owned(), text.to_owned());
    Step::new(id, "write", json!({ "path": path, "content": text }))
        .effect(move || write(&root, &p, &t))
}

/// The locations a diagnostic block lists under the header of `rule` (`path:line:column`), in
/// the order listed: the space-separated lists and the lines with a message of their own.
pub fn listed_locations(block: &str, rule: &str) -> Vec<String> {
    let mut current = false;
    let mut found = Vec::new();
    for line in block.lines().skip(1) {
        if !line.starts_with(' ') {
            current = line.starts_with(&format!("{rule} ("));
            continue;
        }
        let body = line.trim_start();
        if !current || body.starts_with("Fix:") || body.starts_with("To keep") {
            continue;
        }
        match body.split_once(": ") {
            Some((location, _message)) => found.push(location.to_owned()),
            None => found.extend(body.split(' ').map(str::to_owned)),
        }
    }
    found
}

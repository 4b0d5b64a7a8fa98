//! `cargo bench --bench typescript`: the TypeScript analyzer's cost per wave for a warm one-line
//! edit of a 300-line file, next to what the language server itself needs for the same edit, a
//! `tsc --noEmit -p` per wave, and a push-model client waiting for pushed diagnostics, all in the
//! same run, on two projects:
//!
//! - a generated 1,000-file project with a layered import graph ([`ts_project`], seeded; the
//!   edited file is the library module with about 15 importers, 300 lines);
//! - zod's `packages/zod/src` (from the corpora folder, `$CORPORA` relative to the repository,
//!   else `shared/corpora` beside the repository or above it), copied to a temporary directory
//!   without its tests and benchmarks (they import packages the copy does not have), with a strict
//!   `module: nodenext` config under which it type-checks cleanly; the edited file is `v3/ZodError.ts` (341 lines, 5 importers, among
//!   them the 5,138-line `v3/types.ts`).
//!
//! Both use the pinned TypeScript 7 (`$PI_NATIVE_HOOKS_TS7_MODULES`, set by
//! `scripts/provision.sh`, else `tests/typescript-servers/ts7/node_modules`), linked as the
//! project's `node_modules/typescript`. The edit inserts `export const benchEdit = 0;` before the
//! first top-level `export` past the middle of the file and alternates it with `= 1;`, so every
//! wave is a real one-line change of the module's exports, which its importers are checked
//! against ([`ts_project::edit_pair`]). The interleaved comparison also times a local edit
//! (`const benchEdit`, not exported), which no importer can see, so the analyzer checks the
//! edited file alone.
//!
//! Groups (one benchmark per project, named by its source file count):
//! - `analyzer`: `TypeScriptAnalyzer::scan` of the edited file on a warm analyzer: the changed
//!   file and its importers read from disk, the "before" answered from the analyzer's cache
//!   (every measured wave asserts it: nothing changed since the last wave's "after"), `didChange`,
//!   the pulls of the changed file and of every importer, the findings and the snapshot.
//! - `floor`: the same server started the same way through the crate's bench seam
//!   (the lsp crate's `LanguageServer` over `pi_native_hooks_typescript::launch`), given the
//!   same `didChange` and asked for the
//!   same pulls (the changed file and the importers the analyzer checked), with none of the
//!   analyzer's work around them.
//! - `tsc`: spawning the native `tsc --noEmit -p <project>` of the same TypeScript per wave, the
//!   way a `tsc` hook checks a wave (every file of the project, no incremental state).
//! - `push-wait`: a push-model client — push diagnostics left on, no pull capability — sends the
//!   same `didChange` and waits for `textDocument/publishDiagnostics` for the file, for at most
//!   2,500 ms. TypeScript 7 publishes diagnostics only for config files, never for a source
//!   file (every wave counts the pushes for the edited file), so every wave waits out its budget.
//!
//! Before the groups: the first wave's cold start (a fresh analyzer: server start, import index,
//! the "before" and "after" pulls), the server's own start (spawn to `initialize` answered), and
//! the servers' resident memory after the first wave, after the measured waves and after every
//! file of the project was pulled once. After the groups: the same `analyzer` / `floor` ratio
//! from waves interleaved one to one (medians), which the machine's load moves less than
//! criterion's groups measured one after the other.
//!
//! Afterwards the ratios and targets are printed (see `docs/performance.md`).

#![expect(
    clippy::cast_precision_loss,
    reason = "durations, counts and byte sizes far below 2^52, printed as floats"
)]

use criterion::{BenchmarkId, Criterion, SamplingMode, criterion_group};
use pi_native_hooks_benches::ts_project::EditKind;
use pi_native_hooks_benches::{
    Bound, Ratio, criterion_home, format_duration, markdown_report, mean_estimate, report,
    thousands, ts_project, write_figures,
};
use pi_native_hooks_lsp::{DiagnosticMode, LanguageServer, within};
use pi_native_hooks_test_support::typescript::{Ts, pinned_modules};
use pi_native_hooks_test_support::{checkout, corpora};
use pi_native_hooks_typescript::{
    PriorTexts, ProjectLookup, ServerCommand, TypeScriptAnalyzer, TypeScriptLimits, launch,
};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime};
use tempfile::TempDir;

const ANALYZER: &str = "analyzer";
const FLOOR: &str = "floor";
const TSC: &str = "tsc";
const PUSH_WAIT: &str = "push-wait";

/// Files of the generated project.
const GENERATED_FILES: usize = 1_000;
/// The zod file the waves edit.
const ZOD_TARGET: &str = "src/v3/ZodError.ts";
/// The folders of zod's source left out of the copy: its tests and benchmarks import `vitest`,
/// `benchmark` and zod itself by package name, none of which the copy has. (Left in and
/// excluded by the config, the tests would still be checked as importers of the edited file, by
/// an inferred project.)
const ZOD_LEFT_OUT: [&str; 2] = ["tests", "benchmarks"];
/// How long a push-model client waits for pushed diagnostics (pi-lens's budget).
const PUSH_BUDGET: Duration = Duration::from_millis(2_500);
/// The analyzer's wait: long enough that a wave is never cut short on a loaded machine (a wave
/// left pending would not be the work being measured; every wave asserts it was complete).
const WAIT: Duration = Duration::from_secs(60);
/// Fresh analyzers whose first wave is timed.
const COLD_ROUNDS: usize = 3;
/// Waves of each kind in the interleaved comparison.
const PAIRED_WAVES: usize = 40;

const STRICT_CONFIG: &str = r#"{ "compilerOptions": { "strict": true, "target": "es2022", "module": "nodenext", "noEmit": true }, "include": ["src"] }
"#;
const ZOD_CONFIG: &str = r#"{ "compilerOptions": { "strict": true, "target": "es2022", "lib": ["es2022", "dom"], "module": "nodenext", "noEmit": true, "skipLibCheck": true }, "include": ["src"] }
"#;

fn say(line: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{line}");
}

/// zod's `packages/zod/src`, if the corpora are there.
fn zod_source() -> Option<PathBuf> {
    let src = corpora().join("zod/packages/zod/src");
    src.is_dir().then_some(src)
}

/// One project the waves run in: its folder is both the repository root and the project.
struct Project {
    /// What the tables call it.
    label: String,
    /// Source files of the project: the benchmark id.
    files: usize,
    dir: TempDir,
    /// The edited file, relative to the folder.
    target: String,
    /// Its two alternating contents, an edit of its exports; the first is on disk between groups
    /// and at `HEAD`.
    contents: [Arc<str>; 2],
    /// Two alternating contents with a local edit instead, which no importer can see.
    local: [Arc<str>; 2],
    /// The native compiler.
    executable: PathBuf,
    /// The files a wave pulls: the edited one and its importers, as the analyzer's first wave
    /// checked them.
    pulled: Vec<String>,
}

impl Project {
    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn write(&self, version: usize) {
        std::fs::write(self.root().join(&self.target), &*self.contents[version % 2])
            .expect("write the edited file");
    }

    fn write_local(&self, version: usize) {
        std::fs::write(self.root().join(&self.target), &*self.local[version % 2])
            .expect("write the edited file");
    }
}

/// Makes `root` a project over `src/` with the pinned TypeScript installed as projects do.
fn configure(root: &Path, config: &str, modules: &Path) {
    std::fs::write(root.join("tsconfig.json"), config).expect("tsconfig");
    std::fs::write(root.join("package.json"), "{ \"type\": \"module\" }\n").expect("package");
    std::fs::create_dir_all(root.join("node_modules")).expect("node_modules");
    std::os::unix::fs::symlink(
        modules.join("typescript"),
        root.join("node_modules/typescript"),
    )
    .expect("link typescript");
}

/// Copies the `.ts` files below `from` to `to`, keeping their paths, except the `tests` and
/// `benchmarks` folders; returns how many.
fn copy_tree(from: &Path, to: &Path) -> usize {
    let mut copied = 0;
    for entry in std::fs::read_dir(from).expect("read the corpus") {
        let entry = entry.expect("a corpus entry");
        let kind = entry.file_type().expect("its type");
        let name = entry.file_name();
        let target = to.join(&name);
        if kind.is_dir() && !ZOD_LEFT_OUT.iter().any(|left| name == *left) {
            std::fs::create_dir_all(&target).expect("a folder");
            copied += copy_tree(&entry.path(), &target);
        } else if kind.is_file() && entry.path().extension().is_some_and(|e| e == "ts") {
            std::fs::copy(entry.path(), &target).expect("copy a file");
            copied += 1;
        }
    }
    copied
}

/// The native compiler the analyzer would run for the project in `root`.
fn native_tsc(root: &Path, target: &str) -> PathBuf {
    let project = ProjectLookup::new(root)
        .project_of(target)
        .expect("the project of the edited file");
    match &project.typescript {
        Ok(installed) => match installed.native_compiler() {
            Some(compiler) => compiler.to_path_buf(),
            None => panic!(
                "TypeScript {} is not the native compiler",
                installed.version
            ),
        },
        Err(reason) => panic!("no TypeScript to run: {reason}"),
    }
}

/// Runs `tsc --noEmit -p` once and panics with its output unless the project is clean.
fn assert_clean(project: &Project) -> Duration {
    let started = Instant::now();
    let output = Command::new(&project.executable)
        .args(["--noEmit", "-p"])
        .arg(project.root())
        .stdin(Stdio::null())
        .output()
        .expect("run tsc");
    let took = started.elapsed();
    assert!(
        output.status.success(),
        "{} does not type-check cleanly:\n{}",
        project.label,
        String::from_utf8_lossy(&output.stdout)
    );
    took
}

fn generated_project(modules: &Path) -> Project {
    let dir = tempfile::Builder::new()
        .prefix("pi-native-hooks-ts-bench-")
        .tempdir()
        .expect("temporary directory");
    let generated = ts_project::generate(dir.path(), GENERATED_FILES, ts_project::SEED)
        .expect("generate the project");
    configure(dir.path(), STRICT_CONFIG, modules);
    let text = std::fs::read_to_string(dir.path().join(&generated.target)).expect("read");
    let [a, b] = ts_project::edit_pair(&text, EditKind::Exported).expect("an edit point");
    let local = ts_project::edit_pair(&text, EditKind::Local).expect("an edit point");
    let executable = native_tsc(dir.path(), &generated.target);
    let project = Project {
        label: format!(
            "generated, {} files, {} lines; edited `{}` ({} lines, {} importers)",
            thousands(GENERATED_FILES),
            thousands(generated.lines),
            generated.target,
            a.lines().count(),
            generated.importers.len()
        ),
        files: GENERATED_FILES,
        dir,
        target: generated.target.clone(),
        contents: [Arc::from(a), Arc::from(b)],
        local: local.map(Arc::from),
        executable,
        pulled: std::iter::once(generated.target)
            .chain(generated.importers)
            .collect(),
    };
    project.write(0);
    project
}

fn zod_project(modules: &Path, src: &Path) -> Project {
    let dir = tempfile::Builder::new()
        .prefix("pi-native-hooks-ts-bench-zod-")
        .tempdir()
        .expect("temporary directory");
    std::fs::create_dir_all(dir.path().join("src")).expect("src");
    let files = copy_tree(src, &dir.path().join("src"));
    configure(dir.path(), ZOD_CONFIG, modules);
    let text = std::fs::read_to_string(dir.path().join(ZOD_TARGET)).expect("read zod's file");
    let [a, b] = ts_project::edit_pair(&text, EditKind::Exported).expect("an edit point");
    let local = ts_project::edit_pair(&text, EditKind::Local).expect("an edit point");
    let executable = native_tsc(dir.path(), ZOD_TARGET);
    let lines = a.lines().count();
    let project = Project {
        label: format!(
            "zod `packages/zod/src`, {files} files; edited `{}` ({lines} lines)",
            ZOD_TARGET.trim_start_matches("src/")
        ),
        files,
        dir,
        target: ZOD_TARGET.to_owned(),
        contents: [Arc::from(a), Arc::from(b)],
        local: local.map(Arc::from),
        executable,
        pulled: Vec::new(),
    };
    project.write(0);
    project
}

/// A runtime for the servers and an analyzer over the project, whose `HEAD` of the edited file
/// is its first content.
struct Harness {
    analyzer: TypeScriptAnalyzer,
    /// Runs the analyzer's servers; dropped after it.
    _runtime: tokio::runtime::Runtime,
}

impl Harness {
    fn new(project: &Project) -> Self {
        let runtime = runtime();
        let target = project.target.clone();
        let head = project.contents[0].to_string();
        let prior: PriorTexts = Box::new(move |paths: &[String]| {
            paths
                .iter()
                .map(|p| (*p == target).then(|| head.clone().into_bytes()))
                .collect()
        });
        let limits = TypeScriptLimits {
            wait: WAIT,
            ..TypeScriptLimits::default()
        };
        let analyzer =
            TypeScriptAnalyzer::new(project.root(), runtime.handle().clone(), limits, prior);
        Self {
            analyzer,
            _runtime: runtime,
        }
    }

    /// One wave after writing `version`: the scan's duration, checked to be complete.
    fn wave(&mut self, project: &Project, version: usize) -> (Duration, usize, usize) {
        project.write(version);
        let started = Instant::now();
        let snapshot = self
            .analyzer
            .scan(project.root(), std::slice::from_ref(&project.target));
        let took = started.elapsed();
        assert!(
            snapshot.skipped.is_empty(),
            "every file was checked: {:?}",
            snapshot.skipped
        );
        assert!(
            snapshot.findings.is_empty(),
            "the edit introduces no type error: {:?}",
            snapshot.findings
        );
        (took, snapshot.parsed_files, snapshot.cached_files)
    }

    /// A warm wave of the local edit, checked to pull the edited file alone and reuse its
    /// "before".
    fn local_wave(&mut self, project: &Project, version: usize) -> Duration {
        project.write_local(version);
        let started = Instant::now();
        let snapshot = self
            .analyzer
            .scan(project.root(), std::slice::from_ref(&project.target));
        let took = started.elapsed();
        assert!(snapshot.skipped.is_empty() && snapshot.findings.is_empty());
        assert_eq!(
            (
                snapshot.paths.as_slice(),
                snapshot.parsed_files,
                snapshot.cached_files
            ),
            (std::slice::from_ref(&project.target), 1, 1),
            "a local edit is checked in the edited file alone"
        );
        took
    }

    /// A warm wave: also checks it pulled exactly `pulled` and reused every "before".
    fn warm_wave(&mut self, project: &Project, version: usize) -> Duration {
        let (took, pulled, reused) = self.wave(project, version);
        assert_eq!(
            (pulled, reused),
            (project.pulled.len(), project.pulled.len()),
            "a warm wave pulls the edited file and its importers once and reuses their \"before\""
        );
        took
    }

    fn memory(&self) -> u64 {
        self.analyzer.status().get().memory_bytes
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

/// A floor server on its own runtime, warm: the edited file opened and every pull answered once.
struct FloorHarness {
    floor: LanguageServer,
    runtime: tokio::runtime::Runtime,
}

impl FloorHarness {
    /// Starts `tsc --lsp --stdio` for the project exactly as the analyzer does (same launch, same
    /// output budget per pull), with none of the analyzer around it.
    fn start(project: &Project) -> (Self, Duration) {
        let runtime = runtime();
        let command = ServerCommand::Native {
            compiler: project.executable.clone(),
        };
        // A native compiler takes no memory bound at start (the analyzer enforces it after).
        let launch = launch(&command, project.root(), u64::MAX);
        let started = Instant::now();
        let floor = runtime
            .block_on(async {
                tokio::time::timeout(
                    WAIT,
                    LanguageServer::start(
                        &launch,
                        project.root(),
                        TypeScriptLimits::default().max_output_bytes,
                    ),
                )
                .await
            })
            .expect("the server starts in time")
            .expect("the server starts");
        let took = started.elapsed();
        (Self { floor, runtime }, took)
    }

    /// `didChange` to `version`, then every pull: the floor of one wave.
    fn wave(&mut self, project: &Project, version: usize) -> Duration {
        let text = &project.contents[version % 2];
        let started = Instant::now();
        self.floor
            .sync(&project.target, Some(text))
            .expect("didChange");
        let counts = self.pull(&project.pulled);
        let took = started.elapsed();
        assert_eq!(counts.len(), project.pulled.len());
        took
    }

    /// Pulls the diagnostics of every path at once, as the analyzer does: how many each has.
    fn pull(&self, paths: &[String]) -> Vec<usize> {
        self.floor.renew_budget();
        let deadline = tokio::time::Instant::now() + WAIT;
        let requests = paths
            .iter()
            .map(|path| within(deadline, "textDocument/diagnostic", self.floor.pull(path)));
        self.runtime
            .block_on(futures::future::join_all(requests))
            .into_iter()
            .map(|answer| answer.expect("the pull is answered in time").len())
            .collect()
    }
}

/// A push-model client — the analyzer's launch with push diagnostics left on and no pull
/// capability — waiting for what the server pushes for the edited file at its version.
struct PushClient {
    server: LanguageServer,
    target: String,
    /// Pushes received for the edited file.
    received: usize,
    runtime: tokio::runtime::Runtime,
}

impl PushClient {
    fn start(project: &Project) -> Self {
        let runtime = runtime();
        let command = ServerCommand::Native {
            compiler: project.executable.clone(),
        };
        let mut launch = launch(&command, project.root(), u64::MAX);
        launch.diagnostics = DiagnosticMode::Push;
        // Push diagnostics left on; logs and automatic type acquisition off, as the analyzer
        // starts it.
        if let Some(serde_json::Value::Object(options)) = &mut launch.initialization_options {
            options.remove("disablePushDiagnostics");
        }
        let server = runtime
            .block_on(async {
                tokio::time::timeout(
                    WAIT,
                    LanguageServer::start(
                        &launch,
                        project.root(),
                        TypeScriptLimits::default().max_output_bytes,
                    ),
                )
                .await
            })
            .expect("the server starts in time")
            .expect("the server starts");
        let mut client = Self {
            server,
            target: project.target.clone(),
            received: 0,
            runtime,
        };
        client
            .server
            .sync(&project.target, Some(&project.contents[0]))
            .expect("didOpen");
        // What an editor-like client sees after opening: whatever the server pushes then.
        client.wait_for_push();
        client
    }

    /// Waits for a push for the edited file at its version, at most the budget; whether one
    /// came.
    fn wait_for_push(&mut self) -> bool {
        let deadline = tokio::time::Instant::now() + PUSH_BUDGET;
        let pushed = self.runtime.block_on(within(
            deadline,
            "textDocument/publishDiagnostics",
            self.server.pushed(&self.target),
        ));
        self.received = self.server.pushes_received(&self.target);
        pushed.is_ok()
    }

    /// `didChange` to `version`, then the wait for its diagnostics.
    fn wave(&mut self, project: &Project, version: usize) -> Duration {
        let started = Instant::now();
        self.server
            .sync(&project.target, Some(&project.contents[version % 2]))
            .expect("didChange");
        self.wait_for_push();
        started.elapsed()
    }
}

/// The cold start and memory figures of one project.
#[derive(Default)]
struct Cold {
    first_waves: Vec<Duration>,
    server_start: Vec<Duration>,
    first_wave_memory: u64,
    warm_memory: Option<u64>,
    every_file_memory: u64,
    every_file_pull: Duration,
    tsc_once: Duration,
}

struct Fixture {
    projects: Vec<Project>,
    cold: Mutex<Vec<Cold>>,
}

static FIXTURE: OnceLock<Option<Fixture>> = OnceLock::new();

fn fixture() -> Option<&'static Fixture> {
    FIXTURE
        .get_or_init(|| {
            let Ok(modules) = pinned_modules(Ts::V7) else {
                say(
                    "TypeScript 7 is not installed: run `. scripts/provision.sh` (it runs `npm ci` \
                     in tests/typescript-servers/ts7). Nothing measured.",
                );
                return None;
            };
            let mut projects = Vec::new();
            match zod_source() {
                Some(src) => projects.push(zod_project(&modules, &src)),
                None => say(
                    "zod's corpus is not there (set CORPORA to the corpora folder): its column is \
                     not measured",
                ),
            }
            projects.push(generated_project(&modules));
            let mut cold = Vec::new();
            for project in &mut projects {
                cold.push(cold_start(project));
                let figures = cold.last().expect("just pushed");
                say(&format!(
                    "{}: a wave pulls {} files; first waves {:?}, server starts {:?}, first-wave \
                     memory {}, every file pulled in {:?} to {}",
                    project.label,
                    project.pulled.len(),
                    figures.first_waves,
                    figures.server_start,
                    mib(figures.first_wave_memory),
                    figures.every_file_pull,
                    mib(figures.every_file_memory),
                ));
            }
            Some(Fixture {
                projects,
                cold: Mutex::new(cold),
            })
        })
        .as_ref()
}

/// The first wave of fresh analyzers, the server's own start, and the memory figures; fixes the
/// files a wave pulls (from the first wave, for a project whose importers are not known).
fn cold_start(project: &mut Project) -> Cold {
    let mut cold = Cold {
        tsc_once: assert_clean(project),
        ..Cold::default()
    };
    for round in 0..COLD_ROUNDS {
        let mut harness = Harness::new(project);
        project.write(1);
        let started = Instant::now();
        let snapshot = harness
            .analyzer
            .scan(project.root(), std::slice::from_ref(&project.target));
        cold.first_waves.push(started.elapsed());
        assert!(snapshot.skipped.is_empty(), "{:?}", snapshot.skipped);
        if project.pulled.is_empty() {
            project.pulled.clone_from(&snapshot.paths);
        } else {
            let mut expected = project.pulled.clone();
            expected.sort();
            assert_eq!(
                snapshot.paths, expected,
                "the analyzer checks the edited file and its importers"
            );
        }
        if round == 0 {
            cold.first_wave_memory = harness.memory();
        }
        drop(harness);
        project.write(0);
    }
    for _ in 0..COLD_ROUNDS {
        let (floor, took) = FloorHarness::start(project);
        cold.server_start.push(took);
        drop(floor);
    }
    let (mut floor, _) = FloorHarness::start(project);
    floor
        .floor
        .sync(&project.target, Some(&project.contents[0]))
        .expect("didOpen");
    let every: Vec<String> = source_files(project.root(), "src");
    let started = Instant::now();
    floor.pull(&every);
    cold.every_file_pull = started.elapsed();
    cold.every_file_memory = floor.floor.resident_bytes().unwrap_or(0);
    cold
}

/// Every `.ts` file below `dir` (relative to `root`): what `tsc -p` checks.
fn source_files(root: &Path, dir: &str) -> Vec<String> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(root.join(dir)).expect("read a folder") {
        let entry = entry.expect("an entry");
        let name = entry.file_name().to_string_lossy().into_owned();
        let relative = format!("{dir}/{name}");
        if entry.file_type().expect("its type").is_dir() {
            files.extend(source_files(root, &relative));
        } else if Path::new(&name).extension().is_some_and(|e| e == "ts") {
            files.push(relative);
        }
    }
    files.sort();
    files
}

fn group_config(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    measurement: Duration,
) {
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(measurement);
}

fn analyzer(c: &mut Criterion) {
    let Some(fixture) = fixture() else { return };
    let mut group = c.benchmark_group(ANALYZER);
    group_config(&mut group, Duration::from_secs(5));
    for (index, project) in fixture.projects.iter().enumerate() {
        let mut harness = Harness::new(project);
        // The first wave starts the server; the next two make the "before" a cached answer.
        harness.wave(project, 1);
        harness.warm_wave(project, 0);
        harness.warm_wave(project, 1);
        let mut version = 1;
        group.bench_function(BenchmarkId::from_parameter(project.files), |b| {
            b.iter_custom(|iterations| {
                let mut total = Duration::ZERO;
                for _ in 0..iterations {
                    version += 1;
                    total += harness.warm_wave(project, version);
                }
                total
            });
        });
        if let Some(cold) = fixture.cold.lock().expect("cold figures").get_mut(index) {
            cold.warm_memory = Some(harness.memory());
        }
        drop(harness);
        project.write(0);
    }
    group.finish();
}

fn floor(c: &mut Criterion) {
    let Some(fixture) = fixture() else { return };
    let mut group = c.benchmark_group(FLOOR);
    group_config(&mut group, Duration::from_secs(5));
    for project in &fixture.projects {
        let (mut harness, _) = FloorHarness::start(project);
        harness
            .floor
            .sync(&project.target, Some(&project.contents[0]))
            .expect("didOpen");
        harness.pull(&project.pulled);
        harness.wave(project, 1);
        harness.wave(project, 0);
        let mut version = 0;
        group.bench_function(BenchmarkId::from_parameter(project.files), |b| {
            b.iter_custom(|iterations| {
                let mut total = Duration::ZERO;
                for _ in 0..iterations {
                    version += 1;
                    total += harness.wave(project, version);
                }
                total
            });
        });
    }
    group.finish();
}

fn tsc(c: &mut Criterion) {
    let Some(fixture) = fixture() else { return };
    let mut group = c.benchmark_group(TSC);
    group_config(&mut group, Duration::from_secs(20));
    for project in &fixture.projects {
        let mut version = 0;
        group.bench_function(BenchmarkId::from_parameter(project.files), |b| {
            b.iter_custom(|iterations| {
                let mut total = Duration::ZERO;
                for _ in 0..iterations {
                    version += 1;
                    project.write(version);
                    let started = Instant::now();
                    let status = Command::new(&project.executable)
                        .args(["--noEmit", "-p"])
                        .arg(project.root())
                        .stdin(Stdio::null())
                        .stdout(Stdio::null())
                        .status()
                        .expect("run tsc");
                    total += started.elapsed();
                    assert!(status.success(), "tsc found errors in {}", project.label);
                }
                total
            });
        });
        project.write(0);
    }
    group.finish();
}

fn push_wait(c: &mut Criterion) {
    let Some(fixture) = fixture() else { return };
    let mut group = c.benchmark_group(PUSH_WAIT);
    // Ten waves of the budget each.
    group_config(&mut group, PUSH_BUDGET * 10);
    for project in &fixture.projects {
        let mut client = PushClient::start(project);
        let opened = client.received;
        let mut version = 0;
        let mut waves = 0;
        group.bench_function(BenchmarkId::from_parameter(project.files), |b| {
            b.iter_custom(|iterations| {
                let mut total = Duration::ZERO;
                for _ in 0..iterations {
                    version += 1;
                    waves += 1;
                    total += client.wave(project, version);
                }
                total
            });
        });
        say(&format!(
            "push-wait, {}: pushes for the edited file: {opened} after didOpen, {} in {waves} waves",
            project.label,
            client.received - opened
        ));
        PUSH_COUNTS.lock().expect("push counts").push((
            project.files,
            client.received - opened,
            waves,
        ));
        drop(client);
        project.write(0);
    }
    group.finish();
}

/// Per project (by file count): pushes received for the edited file, in how many waves.
static PUSH_COUNTS: Mutex<Vec<(usize, usize, usize)>> = Mutex::new(Vec::new());

criterion_group! {
    name = typescript;
    config = Criterion::default();
    targets = analyzer, floor, tsc, push_wait
}

/// One side of the interleaved comparison.
#[derive(Default)]
struct Side {
    /// Wall time of each wave.
    walls: Vec<Duration>,
    /// This process's CPU time during its waves: the engine's work (or the bare client's).
    own_cpu: Duration,
    /// Its server's CPU time over the whole comparison, background work included.
    server_cpu: Duration,
}

impl Side {
    fn median(&self) -> Duration {
        median(&mut self.walls.clone())
    }
}

/// The interleaved comparison of one project.
struct Paired {
    analyzer: Side,
    floor: Side,
    /// A second analyzer's waves of the local edit.
    local: Side,
    /// The `tsc` group's mean in this run, for the local edit's ratio.
    tsc: Option<Duration>,
}

/// This process's CPU time, every thread (the runtimes' included).
fn own_cpu() -> Duration {
    nix::time::clock_gettime(nix::time::ClockId::CLOCK_PROCESS_CPUTIME_ID)
        .map_or(Duration::ZERO, Duration::from)
}

/// The CPU time of process `pid` (user and system, every thread), from `/proc/<pid>/stat`.
fn process_cpu(pid: Option<u32>) -> Duration {
    // Clock ticks of the kernel's user ABI (`USER_HZ`), 100 on Linux.
    const TICKS_PER_SECOND: u64 = 100;
    let Some(pid) = pid else {
        return Duration::ZERO;
    };
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The command name may hold spaces: the fields after it follow its closing parenthesis.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or(Vec::new(), |(_, rest)| rest.split_whitespace().collect());
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    let ticks: u64 = [11, 12]
        .iter()
        .filter_map(|&i| fields.get(i).and_then(|f| f.parse::<u64>().ok()))
        .sum();
    Duration::from_millis(ticks * 1_000 / TICKS_PER_SECOND)
}

/// Times one wave into `side`.
fn timed(side: &mut Side, wave: impl FnOnce() -> Duration) {
    let cpu = own_cpu();
    let wall = wave();
    side.own_cpu += own_cpu().saturating_sub(cpu);
    side.walls.push(wall);
}

/// The analyzer and the floor, warm side by side, alternating one wave each.
fn paired(project: &Project) -> Paired {
    let mut harness = Harness::new(project);
    harness.wave(project, 1);
    harness.warm_wave(project, 0);
    harness.warm_wave(project, 1);
    let (mut floor, _) = FloorHarness::start(project);
    floor
        .floor
        .sync(&project.target, Some(&project.contents[1]))
        .expect("didOpen");
    floor.pull(&project.pulled);
    floor.wave(project, 0);
    floor.wave(project, 1);
    let analyzer_pid = harness.analyzer.server_pids().first().copied();
    let floor_pid = floor.floor.pid();
    let servers = (process_cpu(analyzer_pid), process_cpu(floor_pid));
    let mut local = Harness::new(project);
    project.write_local(1);
    local
        .analyzer
        .scan(project.root(), std::slice::from_ref(&project.target));
    local.local_wave(project, 0);
    local.local_wave(project, 1);
    let mut result = Paired {
        analyzer: Side::default(),
        floor: Side::default(),
        local: Side::default(),
        tsc: None,
    };
    for n in 0..PAIRED_WAVES {
        // Who goes first alternates, so neither always follows the other's work.
        if n % 2 == 0 {
            timed(&mut result.analyzer, || harness.warm_wave(project, n));
            timed(&mut result.floor, || floor.wave(project, n));
        } else {
            timed(&mut result.floor, || floor.wave(project, n));
            timed(&mut result.analyzer, || harness.warm_wave(project, n));
        }
        timed(&mut result.local, || local.local_wave(project, n));
    }
    drop(local);
    result.analyzer.server_cpu = process_cpu(analyzer_pid).saturating_sub(servers.0);
    result.floor.server_cpu = process_cpu(floor_pid).saturating_sub(servers.1);
    drop(harness);
    project.write(0);
    result
}

fn median(values: &mut [Duration]) -> Duration {
    values.sort();
    values[values.len() / 2]
}

const RATIOS: [Ratio; 3] = [
    Ratio {
        numerator: ANALYZER,
        denominator: FLOOR,
        bound: Some(Bound::AtMost(1.2)),
        target_waves: &[],
    },
    Ratio {
        numerator: TSC,
        denominator: ANALYZER,
        bound: Some(Bound::AtLeast(20.0)),
        target_waves: &[],
    },
    Ratio {
        numerator: PUSH_WAIT,
        denominator: ANALYZER,
        bound: None,
        target_waves: &[],
    },
];

fn mib(bytes: u64) -> String {
    format!("{:.0} MiB", bytes as f64 / (1024.0 * 1024.0))
}

fn durations(values: &[Duration]) -> String {
    let mut sorted = values.to_vec();
    sorted.sort();
    let all: Vec<String> = values
        .iter()
        .map(|d| format_duration(d.as_nanos() as f64))
        .collect();
    format!(
        "{} (median of {}: {})",
        format_duration(median(&mut sorted).as_nanos() as f64),
        values.len(),
        all.join(", ")
    )
}

/// One cell of a table row, per project.
type Cell<'a, T> = &'a dyn Fn(&T) -> String;

/// A Markdown table with one column per project: `rows` of (name, cell).
fn table<T>(
    heading: &str,
    columns: &[String],
    items: &[T],
    rows: &[(&str, Cell<'_, T>)],
) -> String {
    let mut out = format!(
        "| {heading} | {} |\n| --- |{}\n",
        columns.join(" | "),
        " ---: |".repeat(columns.len())
    );
    for (name, cell) in rows {
        let cells: Vec<String> = items.iter().map(cell).collect();
        let _ = writeln!(out, "| {name} | {} |", cells.join(" | "));
    }
    out
}

fn nanos(duration: Duration) -> String {
    format_duration(duration.as_nanos() as f64)
}

/// The cold start and memory table.
fn cold_table(cold: &[Cold], columns: &[String]) -> String {
    table(
        "cold start and memory",
        columns,
        cold,
        &[
            (
                "first wave of a fresh analyzer (server start, import index, \"before\" and \"after\" pulls)",
                &|c| durations(&c.first_waves),
            ),
            (
                "the server's start alone (spawn to `initialize` answered)",
                &|c| durations(&c.server_start),
            ),
            ("server memory after the first wave (VmRSS)", &|c| {
                mib(c.first_wave_memory)
            }),
            ("server memory after the measured waves", &|c| {
                c.warm_memory.map_or_else(|| "not measured".to_owned(), mib)
            }),
            ("server memory after pulling every file once", &|c| {
                mib(c.every_file_memory)
            }),
            ("pulling every file once, on a fresh server", &|c| {
                nanos(c.every_file_pull)
            }),
            (
                "one `tsc --noEmit -p` before the groups (page cache warm-up)",
                &|c| nanos(c.tsc_once),
            ),
        ],
    )
}

/// The interleaved comparison's table.
fn paired_table(paired: &[Paired], columns: &[String]) -> String {
    let per_wave = |total: Duration| format_duration(total.as_nanos() as f64 / PAIRED_WAVES as f64);
    let ratio = |p: &Paired| p.analyzer.median().as_secs_f64() / p.floor.median().as_secs_f64();
    table(
        &format!("interleaved, {PAIRED_WAVES} waves each"),
        columns,
        paired,
        &[
            ("`analyzer`, median wall time", &|p| {
                nanos(p.analyzer.median())
            }),
            ("`floor`, median wall time", &|p| nanos(p.floor.median())),
            ("`analyzer` / `floor`, medians (target ≤ 1.2)", &|p| {
                let ratio = ratio(p);
                let verdict = if ratio <= 1.2 { "met" } else { "**missed**" };
                format!("{ratio:.2}x: {verdict}")
            }),
            (
                "CPU per wave in this process, `analyzer` (the engine)",
                &|p| per_wave(p.analyzer.own_cpu),
            ),
            (
                "CPU per wave in this process, `floor` (the bare client)",
                &|p| per_wave(p.floor.own_cpu),
            ),
            ("CPU per wave of the `analyzer`'s server", &|p| {
                per_wave(p.analyzer.server_cpu)
            }),
            ("CPU per wave of the `floor`'s server", &|p| {
                per_wave(p.floor.server_cpu)
            }),
            (
                "`analyzer`, a local edit no importer can see (`const benchEdit`), median wall time",
                &|p| nanos(p.local.median()),
            ),
            (
                "`tsc` / that, the `tsc` group's mean (target ≥ 20)",
                &|p| {
                    p.tsc.map_or_else(
                        || "not measured".to_owned(),
                        |tsc| {
                            let ratio = tsc.as_secs_f64() / p.local.median().as_secs_f64();
                            let verdict = if ratio >= 20.0 { "met" } else { "**missed**" };
                            format!("{ratio:.1}x: {verdict}")
                        },
                    )
                },
            ),
        ],
    )
}

/// The tables that are not criterion's: cold start and memory, the interleaved comparison, the
/// pushes seen and the projects.
fn other_tables(fixture: &Fixture, paired: &[Paired]) -> String {
    let columns: Vec<String> = fixture
        .projects
        .iter()
        .map(|p| format!("{} files", thousands(p.files)))
        .collect();
    let mut out = cold_table(&fixture.cold.lock().expect("cold figures"), &columns);
    if !paired.is_empty() {
        out.push('\n');
        out.push_str(&paired_table(paired, &columns));
    }
    let pushes = PUSH_COUNTS.lock().expect("push counts");
    if !pushes.is_empty() {
        let counts: Vec<String> = pushes
            .iter()
            .map(|(files, received, waves)| {
                format!("{} files: {received} in {waves} waves", thousands(*files))
            })
            .collect();
        let _ = write!(
            out,
            "\nDiagnostics pushed for the edited file to the `push-wait` client: {}.\n",
            counts.join("; ")
        );
    }
    out.push_str("\nProjects:\n\n");
    for project in &fixture.projects {
        let _ = writeln!(
            out,
            "- {} files: {}; a wave pulls {} files.",
            thousands(project.files),
            project.label,
            project.pulled.len()
        );
    }
    out
}

fn main() {
    let started = SystemTime::now();
    let Some(fixture) = fixture() else {
        if let Some(line) = write_figures("typescript", None) {
            say(&line);
        }
        return;
    };
    typescript();
    Criterion::default().configure_from_args().final_summary();

    let home = criterion_home(checkout());
    let mean = |group: &str, files: usize| mean_estimate(&home, group, &files.to_string(), started);
    let groups = [ANALYZER, FLOOR, TSC, PUSH_WAIT];
    let sizes: Vec<usize> = fixture.projects.iter().map(|p| p.files).collect();
    say(&report(&groups, &sizes, &RATIOS, mean));
    let measured = mean(ANALYZER, GENERATED_FILES).is_ok();
    let paired: Vec<Paired> = if measured {
        fixture
            .projects
            .iter()
            .map(|project| Paired {
                tsc: mean(TSC, project.files)
                    .ok()
                    .map(|nanos| Duration::from_secs_f64(nanos / 1e9)),
                ..paired(project)
            })
            .collect()
    } else {
        Vec::new()
    };
    let others = other_tables(fixture, &paired);
    say(&others);
    let markdown = markdown_report(&groups, &sizes, "files", &RATIOS, mean)
        .map(|table| format!("{table}\n{others}"));
    if let Some(line) = write_figures("typescript", markdown.as_deref()) {
        say(&line);
    }
}

//! `cargo bench --bench scan`: the in-process ast-grep scan of one wave of changed TS/TSX files,
//! against the tree-sitter parse floor, the ast-grep CLI and the cached re-scan.
//!
//! A deterministic corpus of 100 generated files (the same generator as the parity test) is
//! written twice, as revision A and revision B: B is A with one comment line prepended to every
//! file, so both revisions have the same paths and nearly the same bytes, but every content hash
//! differs. Waves are the first 1, 10 and 100 files.
//!
//! Groups (one benchmark per wave size, times include reading the files from the page cache):
//! - `engine`, `engine-2-threads`: one long-lived [`Analyzer`] (rules loaded once, 1 or 2 threads)
//!   holding no syntax tree, scanning the wave, alternating between revisions A and B, so every
//!   scan misses the content cache and reads, hashes, parses and matches every file: the
//!   first-scan path of a session in which the files changed.
//! - `engine-two-rules`: `engine` with only the pack's original two rules (non-null assertion and
//!   dynamic import, `-ts` and `-tsx`): the baseline the full pack's cost is compared with.
//! - `parse-floor`: reading and tree-sitter parsing the same files (same alternation), one thread.
//! - `ast-grep-cli`: `ast-grep scan --json=stream -c <sgconfig.yml> <files>` on the same files,
//!   when the binary is found (`AST_GREP_BIN`, `node_modules`, `PATH`).
//! - `engine-rescan`: the same wave again, unchanged (every file served from the cache).
//! - `engine-edit-{insert,change,hunk}` and their `-hint` twins (waves of 1 and 10 files): one
//!   long-lived analyzer holding the trees of revision A re-analyzes the wave after an edit in
//!   the middle of every file — one line inserted, one line changed, 20 lines replaced — and back,
//!   alternating, so every scan misses the content cache and takes the incremental path. Without
//!   `-hint` the edit is found from the common prefix and suffix of the old and new text; with it,
//!   from the `edit` call's old and new text ([`EditHint`]).
//!
//! After the run the ratios the targets are stated in are printed (see `docs/performance.md`).

#![expect(
    clippy::case_sensitive_file_extension_comparisons,
    reason = "the corpora are named `.ts`/`.tsx` exactly"
)]
#![expect(
    clippy::format_collect,
    reason = "building generated input and tables; allocation is outside what is measured"
)]

use ast_grep_core::tree_sitter::LanguageExt;
use ast_grep_language::SupportLang;
use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group};
use pi_native_hooks_analysis::{Analyzer, EditHint, RuleSet, ScanLimits};
use pi_native_hooks_benches::{
    Bound, Ratio, criterion_home, markdown_report, mean_estimate, report, write_figures,
};
use pi_native_hooks_compose::LoadedConfig;
use pi_native_hooks_config::ConfigSource;
use pi_native_hooks_test_support::{ast_grep, checkout, corpus};
use std::hint::black_box;
use std::io::Write;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};
use tempfile::TempDir;

// The allocator the CLI and the Node addon install (it counts bytes per thread for the policies'
// memory budget), so its cost is part of what is measured.
#[global_allocator]
static ALLOCATOR: pi_native_hooks_policy::CountingAllocator =
    pi_native_hooks_policy::CountingAllocator;

/// Wave sizes, in files.
const WAVES: [usize; 3] = [1, 10, 100];
/// Files in the generated corpus (the largest wave).
const CORPUS_FILES: usize = 100;
/// The corpus seed; fixed so every run measures the same bytes.
const SEED: u64 = 0x5EED;
/// The line prepended to every file of revision B.
const REVISION_B: &str = "// revision B: every content hash differs from revision A\n";

const ENGINE: &str = "engine";
const ENGINE_2: &str = "engine-2-threads";
const TWO_RULES: &str = "engine-two-rules";
/// The rule files of the original two-rule pack.
const TWO_RULE_FILES: [&str; 4] = [
    "typescript-no-non-null-assertion-ts.yml",
    "typescript-no-non-null-assertion-tsx.yml",
    "typescript-no-dynamic-import-ts.yml",
    "typescript-no-dynamic-import-tsx.yml",
];
const FLOOR: &str = "parse-floor";
const CLI: &str = "ast-grep-cli";
const RESCAN: &str = "engine-rescan";
/// The edits of `engine-edit`: the group names without and with the edit hint, and how many
/// lines in the middle of each file are rewritten (0: one line is inserted instead).
const EDITS: [(&str, &str, usize); 3] = [
    ("engine-edit-insert", "engine-edit-insert-hint", 0),
    ("engine-edit-change", "engine-edit-change-hint", 1),
    ("engine-edit-hunk", "engine-edit-hunk-hint", 20),
];
/// The wave sizes `engine-edit` measures.
const EDIT_WAVES: [usize; 2] = [1, 10];

/// The ast-grep CLI and the config root it runs with.
struct Cli {
    bin: PathBuf,
    sgconfig: PathBuf,
}

/// Everything the groups share, built once.
struct Fixture {
    /// Revision A, revision B and the config root; removed at the end of `main`.
    dirs: Vec<TempDir>,
    /// The roots of revision A and revision B.
    roots: [PathBuf; 2],
    /// Repository-relative paths of the corpus; a wave of `n` files is the first `n`.
    paths: Vec<String>,
    /// Bytes of revision A per file, for throughput.
    sizes: Vec<u64>,
    /// The built-in config: its rules, loaded once, are shared by every analyzer.
    loaded: LoadedConfig,
    /// The CLI, or why it is not available.
    cli: Result<Cli, String>,
}

fn say(line: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{line}");
}

fn tempdir(prefix: &str) -> TempDir {
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir()
        .expect("create a temporary directory")
}

impl Fixture {
    fn new() -> Self {
        let (a, b, config) = (
            tempdir("pnh-bench-a-"),
            tempdir("pnh-bench-b-"),
            tempdir("pnh-bench-config-"),
        );
        let paths = corpus::generate(a.path(), CORPUS_FILES, SEED);
        let mut sizes = Vec::with_capacity(paths.len());
        let mut lines = 0;
        for path in &paths {
            let text = std::fs::read_to_string(a.path().join(path)).expect("read a corpus file");
            sizes.push(text.len() as u64);
            lines += text.lines().count();
            let target = b.path().join(path);
            std::fs::create_dir_all(target.parent().expect("a corpus file has a parent"))
                .expect("create a revision B directory");
            std::fs::write(target, format!("{REVISION_B}{text}")).expect("write revision B");
        }
        let tsx = paths.iter().filter(|p| p.ends_with(".tsx")).count();
        say(&format!(
            "corpus: {} files ({} .ts, {tsx} .tsx), {lines} lines, {} bytes; waves of {WAVES:?} files \
             ({:?} bytes)",
            paths.len(),
            paths.len() - tsx,
            sizes.iter().sum::<u64>(),
            WAVES.map(|n| sizes[..n].iter().sum::<u64>()),
        ));

        let loaded = LoadedConfig::load(&ConfigSource::BuiltIn);
        assert!(
            loaded.rule_problems.is_empty(),
            "built-in rules: {:?}",
            loaded.rule_problems
        );
        let cli = ast_grep::find_binary().map(|bin| Cli {
            bin,
            sgconfig: ast_grep::write_config_root(config.path()),
        });
        Self {
            roots: [a.path().to_path_buf(), b.path().to_path_buf()],
            dirs: vec![a, b, config],
            paths,
            sizes,
            loaded,
            cli,
        }
    }

    fn wave(&self, files: usize) -> &[String] {
        &self.paths[..files]
    }

    fn bytes(&self, files: usize) -> u64 {
        self.sizes[..files].iter().sum()
    }

    fn analyzer(&self, threads: usize) -> Analyzer {
        self.loaded.analyzer(threads).expect("start the analyzer")
    }

    /// An analyzer holding no tree: revisions A and B differ by one line per file, so with held
    /// trees every scan after the first would be incremental, not the first-scan path measured.
    fn cold_analyzer(&self, threads: usize) -> Analyzer {
        self.analyzer(threads).with_tree_cache_bytes(0)
    }

    fn remove(&self) {
        for dir in &self.dirs {
            let _ = std::fs::remove_dir_all(dir.path());
        }
    }
}

/// The fixture, built by the first group that runs. It lives in a static (criterion's groups are
/// plain functions), so `main` removes its directories explicitly.
static FIXTURE: OnceLock<Fixture> = OnceLock::new();

fn fixture() -> &'static Fixture {
    FIXTURE.get_or_init(Fixture::new)
}

/// Flat sampling: every sample runs the same number of iterations, which keeps the 100-file waves
/// (tens of milliseconds each) within the measurement time.
fn group_config(group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>) {
    group.sampling_mode(SamplingMode::Flat);
}

/// `engine` and `engine-2-threads`: a full scan of the wave on every iteration.
fn engine_group(c: &mut Criterion, name: &str, threads: usize) {
    let f = fixture();
    let mut group = c.benchmark_group(name);
    group_config(&mut group);
    for files in WAVES {
        let wave = f.wave(files);
        let mut analyzer = f.cold_analyzer(threads);
        let mut revision = 0;
        group.throughput(Throughput::Bytes(f.bytes(files)));
        group.bench_function(BenchmarkId::from_parameter(files), |b| {
            b.iter(|| {
                revision ^= 1;
                let snapshot = analyzer.scan(&f.roots[revision], wave);
                assert!(
                    snapshot.parsed_files == files && snapshot.cached_files == 0,
                    "a full scan must parse every file"
                );
                snapshot
            });
        });
    }
    group.finish();
}

fn engine(c: &mut Criterion) {
    engine_group(c, ENGINE, 1);
}

/// `engine-two-rules`: the `engine` scan with only the original two rules.
fn engine_two_rules(c: &mut Criterion) {
    let f = fixture();
    let files: Vec<_> = pi_native_hooks_config::builtin::rule_files()
        .into_iter()
        .filter(|file| {
            file.path
                .file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| TWO_RULE_FILES.contains(&name))
        })
        .collect();
    assert_eq!(
        files.len(),
        TWO_RULE_FILES.len(),
        "the two-rule pack's files"
    );
    let load = RuleSet::load(&files, &[]);
    assert!(load.errors.is_empty(), "{:?}", load.errors);
    let rules = std::sync::Arc::new(load.rules);
    let mut group = c.benchmark_group(TWO_RULES);
    group_config(&mut group);
    for size in WAVES {
        let wave = f.wave(size);
        let mut analyzer = Analyzer::new(
            "ast-grep:two-rules",
            std::sync::Arc::clone(&rules),
            ScanLimits::default(),
            1,
        )
        .expect("start the analyzer")
        .with_tree_cache_bytes(0);
        let mut revision = 0;
        group.throughput(Throughput::Bytes(f.bytes(size)));
        group.bench_function(BenchmarkId::from_parameter(size), |b| {
            b.iter(|| {
                revision ^= 1;
                let snapshot = analyzer.scan(&f.roots[revision], wave);
                assert!(
                    snapshot.parsed_files == size && snapshot.cached_files == 0,
                    "a full scan must parse every file"
                );
                snapshot
            });
        });
    }
    group.finish();
}

fn engine_2_threads(c: &mut Criterion) {
    engine_group(c, ENGINE_2, 2);
}

/// `parse-floor`: read and parse each file of the wave, nothing else.
fn parse_floor(c: &mut Criterion) {
    let f = fixture();
    let mut group = c.benchmark_group(FLOOR);
    group_config(&mut group);
    for files in WAVES {
        let wave = f.wave(files);
        let mut revision = 0;
        group.throughput(Throughput::Bytes(f.bytes(files)));
        group.bench_function(BenchmarkId::from_parameter(files), |b| {
            b.iter(|| {
                revision ^= 1;
                let root = &f.roots[revision];
                for path in wave {
                    let text = std::fs::read_to_string(root.join(path)).expect("read a file");
                    let lang = if path.ends_with(".tsx") {
                        SupportLang::Tsx
                    } else {
                        SupportLang::TypeScript
                    };
                    black_box(lang.ast_grep(&text));
                }
            });
        });
    }
    group.finish();
}

fn cli_command(cli: &Cli, root: &std::path::Path, wave: &[String]) -> Command {
    let mut command = Command::new(&cli.bin);
    command
        .args(["scan", "--json=stream", "-c"])
        .arg(&cli.sgconfig)
        .args(wave)
        .current_dir(root);
    command
}

/// `ast-grep-cli`: one CLI process per wave.
fn ast_grep_cli(c: &mut Criterion) {
    let f = fixture();
    let cli = match &f.cli {
        Ok(cli) => cli,
        Err(why) => {
            say(&format!(
                "{CLI}: skipped: {why} (run `. scripts/provision.sh` to install the pinned CLI)"
            ));
            return;
        }
    };
    let mut group = c.benchmark_group(CLI);
    group_config(&mut group);
    group.sample_size(10);
    for files in WAVES {
        let wave = f.wave(files);
        // The CLI must do the same work: the same number of findings as the engine.
        let output = cli_command(cli, &f.roots[0], wave)
            .output()
            .expect("run the ast-grep CLI");
        assert!(output.status.success(), "ast-grep scan failed: {output:?}");
        let reported = output
            .stdout
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .count();
        // Everything the engine found, including what its findings bound cut (the full pack
        // finds more than the bound in the 100-file wave).
        let snapshot = f.analyzer(1).scan(&f.roots[0], wave);
        let expected = snapshot.findings.len() + snapshot.omitted_findings;
        assert_eq!(
            reported, expected,
            "the ast-grep CLI and the engine disagree on the {files}-file wave; run the parity test"
        );
        let mut revision = 0;
        group.throughput(Throughput::Bytes(f.bytes(files)));
        group.bench_function(BenchmarkId::from_parameter(files), |b| {
            b.iter(|| {
                revision ^= 1;
                let output = cli_command(cli, &f.roots[revision], wave)
                    .output()
                    .expect("run the ast-grep CLI");
                assert!(output.status.success(), "ast-grep scan failed");
                output.stdout
            });
        });
    }
    group.finish();
}

/// Revision A's `text` with `lines` lines in the middle rewritten (0: one line inserted there),
/// and the `edit` call that does it.
fn edited(text: &str, lines: usize) -> (String, EditHint) {
    let starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .filter(|&i| i < text.len())
        .collect();
    let middle = starts.len() / 2;
    let start = starts[middle];
    let end = starts
        .get(middle + lines.max(1))
        .copied()
        .unwrap_or(text.len());
    let old = &text[start..end];
    let new = if lines == 0 {
        // A comment: valid wherever a line starts, so the file keeps parsing without a syntax
        // error (which would mean a fresh parse) whatever the middle line is.
        format!("// an inserted line\n{old}")
    } else {
        old.lines()
            .map(|line| format!("{line} // edited\n"))
            .collect()
    };
    let hint = EditHint {
        old_text: old.to_owned(),
        new_text: new.clone(),
    };
    (format!("{}{new}{}", &text[..start], &text[end..]), hint)
}

/// `engine-edit-*`: an edit of every held file of the wave, then its reverse, alternating.
fn engine_edit(c: &mut Criterion) {
    let f = fixture();
    for (name, hint_name, lines) in EDITS {
        // Revision A and its edited copy, in their own directories.
        let edited_root = tempdir("pnh-bench-edit-");
        let mut forward = Vec::new();
        let mut backward = Vec::new();
        for path in f.wave(EDIT_WAVES[EDIT_WAVES.len() - 1]) {
            let text = std::fs::read_to_string(f.roots[0].join(path)).expect("read a file");
            let (new, hint) = edited(&text, lines);
            let target = edited_root.path().join(path);
            std::fs::create_dir_all(target.parent().expect("a parent")).expect("mkdir");
            std::fs::write(&target, new).expect("write the edited file");
            backward.push((
                path.clone(),
                EditHint {
                    old_text: hint.new_text.clone(),
                    new_text: hint.old_text.clone(),
                },
            ));
            forward.push((path.clone(), hint));
        }
        let roots = [f.roots[0].clone(), edited_root.path().to_path_buf()];
        for (group_name, hinted) in [(name, false), (hint_name, true)] {
            let mut group = c.benchmark_group(group_name);
            group_config(&mut group);
            for files in EDIT_WAVES {
                let wave = f.wave(files);
                let mut analyzer = f.analyzer(1);
                analyzer.scan(&roots[0], wave);
                let mut revision = 0;
                group.throughput(Throughput::Bytes(f.bytes(files)));
                group.bench_function(BenchmarkId::from_parameter(files), |b| {
                    b.iter(|| {
                        revision ^= 1;
                        let hints = if revision == 1 { &forward } else { &backward };
                        let snapshot = if hinted {
                            analyzer.scan_edited(&roots[revision], wave, &hints[..files])
                        } else {
                            analyzer.scan(&roots[revision], wave)
                        };
                        assert_eq!(snapshot.parsed_files, files, "every file changed");
                        snapshot
                    });
                });
                let stats = analyzer.tree_cache_stats();
                assert_eq!(
                    stats.full_analyses, files as u64,
                    "{group_name}: only the first scan is a full one"
                );
            }
            group.finish();
        }
        let _ = std::fs::remove_dir_all(edited_root.path());
    }
}

/// `engine-rescan`: the wave again, unchanged since the previous scan.
fn engine_rescan(c: &mut Criterion) {
    let f = fixture();
    let mut group = c.benchmark_group(RESCAN);
    group_config(&mut group);
    for files in WAVES {
        let wave = f.wave(files);
        let mut analyzer = f.analyzer(1);
        let first = analyzer.scan(&f.roots[0], wave);
        assert_eq!(first.parsed_files, files, "the first scan parses the wave");
        group.throughput(Throughput::Bytes(f.bytes(files)));
        group.bench_function(BenchmarkId::from_parameter(files), |b| {
            b.iter(|| {
                let snapshot = analyzer.scan(&f.roots[0], wave);
                assert!(
                    snapshot.cached_files == files && snapshot.parsed_files == 0,
                    "an unchanged wave must be served from the cache"
                );
                snapshot
            });
        });
    }
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(30)
}

criterion_group! {
    name = scan;
    config = config();
    targets = engine, engine_two_rules, engine_2_threads, parse_floor, ast_grep_cli, engine_rescan,
        engine_edit
}

/// The ratios the targets are stated in.
const RATIOS: [Ratio; 11] = [
    Ratio {
        numerator: ENGINE,
        denominator: TWO_RULES,
        bound: Some(Bound::AtMost(1.15)),
        target_waves: &[],
    },
    Ratio {
        numerator: ENGINE,
        denominator: FLOOR,
        bound: Some(Bound::AtMost(1.2)),
        target_waves: &[],
    },
    Ratio {
        numerator: ENGINE_2,
        denominator: FLOOR,
        bound: Some(Bound::Below(1.0)),
        target_waves: &[10],
    },
    Ratio {
        numerator: CLI,
        denominator: ENGINE,
        bound: Some(Bound::AtLeast(10.0)),
        target_waves: &[1],
    },
    Ratio {
        numerator: RESCAN,
        denominator: ENGINE,
        bound: Some(Bound::AtMost(0.02)),
        target_waves: &[],
    },
    Ratio {
        numerator: EDITS[0].0,
        denominator: FLOOR,
        bound: Some(Bound::AtMost(0.2)),
        target_waves: &[1, 10],
    },
    Ratio {
        numerator: EDITS[0].1,
        denominator: FLOOR,
        bound: Some(Bound::AtMost(0.2)),
        target_waves: &[1, 10],
    },
    Ratio {
        numerator: EDITS[1].0,
        denominator: FLOOR,
        bound: Some(Bound::AtMost(0.2)),
        target_waves: &[1, 10],
    },
    Ratio {
        numerator: EDITS[1].1,
        denominator: FLOOR,
        bound: Some(Bound::AtMost(0.2)),
        target_waves: &[1, 10],
    },
    Ratio {
        numerator: EDITS[2].0,
        denominator: FLOOR,
        bound: None,
        target_waves: &[],
    },
    Ratio {
        numerator: CLI,
        denominator: EDITS[0].0,
        bound: Some(Bound::AtLeast(25.0)),
        target_waves: &[1],
    },
];

fn main() {
    let started = SystemTime::now();
    scan();
    Criterion::default().configure_from_args().final_summary();

    let home = criterion_home(checkout());
    let groups = [
        ENGINE, TWO_RULES, ENGINE_2, FLOOR, CLI, RESCAN, EDITS[0].0, EDITS[0].1, EDITS[1].0,
        EDITS[1].1, EDITS[2].0, EDITS[2].1,
    ];
    let mean = |group: &str, wave: usize| mean_estimate(&home, group, &wave.to_string(), started);
    say(&report(&groups, &WAVES, &RATIOS, mean));
    let markdown = markdown_report(&groups, &WAVES, "files", &RATIOS, mean);
    if let Some(line) = write_figures("scan", markdown.as_deref()) {
        say(&line);
    }
    if let Some(fixture) = FIXTURE.get() {
        fixture.remove();
    }
}

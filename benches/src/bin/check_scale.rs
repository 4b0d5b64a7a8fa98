//! Peak memory and wall time of `pi-native-hooks check` on a real repository, side by side with
//! `ast-grep scan` over the same rules, and again on four copies of the same tree: what a CI
//! runner pays per repository size.
//!
//! ```text
//! cargo run --release -p pi-native-hooks-benches --bin check_scale [ROUNDS]
//! ```
//!
//! The tree is `shadcn-ui` from the corpora folder (`$CORPORA`, relative to the repository, else
//! `shared/corpora` beside the repository or above it), copied once as it is and once four times
//! side by side (`copy-1/` … `copy-4/`). Both tools read one config root: a `sgconfig.yml` with
//! `ruleDirs: [rules]` and the repository's `rules/*.yml` (`pi-native-hooks check --config <root>
//! --format concise --threads 2 .`, `ast-grep scan --config <root>/sgconfig.yml --report-style
//! short --threads 2 .`), run from the tree's folder with their output to `/dev/null`; each round
//! runs both, the order alternating. `/usr/bin/time -f '%M %e'` gives each run's peak resident set
//! and wall time; the tables show medians. Each round runs both tools on two threads (the figures
//! the targets are judged on) and again with `--threads 1`: on two, the growth over the tree
//! includes two large files parsed at once (each copy's largest files come at the same point of its
//! half of the work), which one thread rules out. The `pi-native-hooks` binary is
//! `target/release/pi-native-hooks` (`scripts/bench-figures` builds it), the ast-grep CLI the
//! pinned one (`AST_GREP_BIN`, set by `scripts/provision.sh`).

#![expect(
    clippy::cast_precision_loss,
    reason = "memory sizes and file counts far below 2^52, printed as floats"
)]
#![expect(clippy::print_stdout, reason = "the table is this program's output")]
#![expect(clippy::print_stderr, reason = "what could not be measured")]

use pi_native_hooks_benches::{format_duration, thousands, write_figures};
use pi_native_hooks_test_support::{ast_grep, checkout, corpora};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Duration;

/// Rounds (one run of each tool per round) when none is given.
const ROUNDS: usize = 5;
/// Copies of the tree in the larger one.
const COPIES: usize = 4;
/// The most a check's peak may be over `ast-grep scan`'s (issue target).
const MEMORY_TARGET: f64 = 1.5;
/// The most a check's wall time may be over `ast-grep scan`'s.
const TIME_TARGET: f64 = 1.0;

/// One run: peak resident set in KiB, wall time.
#[derive(Clone, Copy, Debug)]
struct Run {
    peak_kib: u64,
    wall: Duration,
}

/// One tree's runs of both tools, on two threads (the issue's setting) and on one.
struct Tree {
    label: String,
    files: usize,
    check: Vec<Run>,
    ast_grep: Vec<Run>,
    /// `--threads 1`: one syntax tree alive at a time, so what is left of the growth over the
    /// tree is what the tool keeps per file or per finding.
    check_one: Vec<Run>,
    ast_grep_one: Vec<Run>,
}

fn say(line: &str) {
    eprintln!("{line}");
}

/// Runs `command` under `/usr/bin/time` in `dir`, its output discarded.
fn timed(dir: &Path, program: &Path, args: &[&str]) -> Result<Run, String> {
    let output = Command::new("/usr/bin/time")
        .args(["-f", "%M %e"])
        .arg(program)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|error| format!("/usr/bin/time: {error}"))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    // A tool that reports findings exits with 1; anything past that is a failed run.
    if output.status.code().is_none_or(|code| code > 1) {
        return Err(format!("{} failed: {stderr}", program.display()));
    }
    let last = stderr.lines().last().unwrap_or_default();
    let mut fields = last.split_whitespace();
    let (Some(peak), Some(wall)) = (fields.next(), fields.next()) else {
        return Err(format!("no measurement in {last:?}"));
    };
    Ok(Run {
        peak_kib: peak.parse().map_err(|_| format!("peak {peak:?}"))?,
        wall: Duration::from_secs_f64(wall.parse().map_err(|_| format!("wall {wall:?}"))?),
    })
}

/// Copies the regular files and directories of `from` into `to` (symlinks are left out, as both
/// tools leave them unfollowed); returns how many TS/TSX files it copied.
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<usize> {
    std::fs::create_dir_all(to)?;
    let mut sources = 0;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            sources += copy_tree(&entry.path(), &target)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target)?;
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if [".ts", ".tsx", ".mts", ".cts"]
                .iter()
                .any(|ext| name.ends_with(ext))
            {
                sources += 1;
            }
        }
    }
    Ok(sources)
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn mib(kib: f64) -> String {
    format!("{:.0} MiB", kib / 1024.0)
}

impl Tree {
    fn peak(runs: &[Run]) -> f64 {
        median(runs.iter().map(|r| r.peak_kib as f64).collect())
    }

    fn wall(runs: &[Run]) -> f64 {
        median(runs.iter().map(|r| r.wall.as_secs_f64()).collect())
    }
}

fn verdict(ratio: f64, target: f64) -> String {
    let met = if ratio <= target { "met" } else { "**missed**" };
    format!("{ratio:.2}x (target ≤ {target}): {met}")
}

fn table(trees: &[Tree], rounds: usize) -> String {
    let mut out = String::new();
    let columns: Vec<String> = trees
        .iter()
        .map(|t| format!("{} ({} TS/TSX files)", t.label, thousands(t.files)))
        .collect();
    let _ = writeln!(
        out,
        "| medians of {rounds} runs | {} |\n| --- |{}",
        columns.join(" | "),
        " ---: |".repeat(trees.len())
    );
    let row = |name: &str, cell: &dyn Fn(&Tree) -> String| {
        let cells: Vec<String> = trees.iter().map(cell).collect();
        format!("| {name} | {} |\n", cells.join(" | "))
    };
    out.push_str(&row("`pi-native-hooks check`, peak resident set", &|t| {
        mib(Tree::peak(&t.check))
    }));
    out.push_str(&row("`ast-grep scan`, peak resident set", &|t| {
        mib(Tree::peak(&t.ast_grep))
    }));
    out.push_str(&row("peak, `check` / `ast-grep scan`", &|t| {
        verdict(
            Tree::peak(&t.check) / Tree::peak(&t.ast_grep),
            MEMORY_TARGET,
        )
    }));
    out.push_str(&row("`pi-native-hooks check`, wall time", &|t| {
        format_duration(Tree::wall(&t.check) * 1e9)
    }));
    out.push_str(&row("`ast-grep scan`, wall time", &|t| {
        format_duration(Tree::wall(&t.ast_grep) * 1e9)
    }));
    out.push_str(&row("wall time, `check` / `ast-grep scan`", &|t| {
        verdict(Tree::wall(&t.check) / Tree::wall(&t.ast_grep), TIME_TARGET)
    }));
    out.push_str(&row("`pi-native-hooks check --threads 1`, peak", &|t| {
        mib(Tree::peak(&t.check_one))
    }));
    out.push_str(&row("`ast-grep scan --threads 1`, peak", &|t| {
        mib(Tree::peak(&t.ast_grep_one))
    }));
    if let [one, four] = trees {
        let growth = |runs: fn(&Tree) -> &[Run]| Tree::peak(runs(four)) / Tree::peak(runs(one));
        let _ = writeln!(
            out,
            "\nPeak on the {COPIES}-fold tree over the tree itself (flat is 1): on two threads \
             `check` {:.2}x, `ast-grep scan` {:.2}x; on one thread `check` {:.2}x, `ast-grep \
             scan` {:.2}x.",
            growth(|t| &t.check),
            growth(|t| &t.ast_grep),
            growth(|t| &t.check_one),
            growth(|t| &t.ast_grep_one),
        );
    }
    out
}

/// The tree of `copies` copies of `source` in `work`: its folder and its TS/TSX file count.
fn build_tree(work: &Path, source: &Path, copies: usize) -> Result<(PathBuf, usize), String> {
    let dir = work.join(format!("tree-{copies}"));
    let mut files = 0;
    for n in 1..=copies {
        let target = if copies == 1 {
            dir.clone()
        } else {
            dir.join(format!("copy-{n}"))
        };
        files += copy_tree(source, &target)
            .map_err(|error| format!("cannot copy {}: {error}", source.display()))?;
    }
    Ok((dir, files))
}

/// `rounds` runs of each tool in `tree`'s folder, the order alternating.
fn measure(
    tree: &mut Tree,
    dir: &Path,
    (check, ast_grep_bin): (&Path, &Path),
    (config, sgconfig): (&Path, &Path),
    rounds: usize,
) -> Result<(), String> {
    let config = config.to_string_lossy().into_owned();
    let sgconfig = sgconfig.to_string_lossy().into_owned();
    for round in 0..rounds {
        for threads in ["2", "1"] {
            let check_args = [
                "check",
                "--config",
                &config,
                "--format",
                "concise",
                "--threads",
                threads,
                ".",
            ];
            let grep_args = [
                "scan",
                "--config",
                &sgconfig,
                "--report-style",
                "short",
                "--threads",
                threads,
                ".",
            ];
            let run_check = || timed(dir, check, &check_args);
            let run_grep = || timed(dir, ast_grep_bin, &grep_args);
            let (a, b) = if round % 2 == 0 {
                let a = run_check()?;
                (a, run_grep()?)
            } else {
                let b = run_grep()?;
                (run_check()?, b)
            };
            say(&format!(
                "{} round {round}, {threads} threads: check {} KiB {:?}, ast-grep {} KiB {:?}",
                tree.label, a.peak_kib, a.wall, b.peak_kib, b.wall
            ));
            let (checks, greps) = if threads == "1" {
                (&mut tree.check_one, &mut tree.ast_grep_one)
            } else {
                (&mut tree.check, &mut tree.ast_grep)
            };
            checks.push(a);
            greps.push(b);
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let rounds = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(ROUNDS)
        .max(1);
    let repo = checkout();
    let corpora = corpora();
    let source = corpora.join("shadcn-ui");
    let check = repo.join("target/release/pi-native-hooks");
    let ast_grep_bin = ast_grep::find_binary();
    let missing = [
        (!source.is_dir()).then(|| format!("no shadcn-ui in {}", corpora.display())),
        (!check.is_file()).then(|| {
            format!(
                "no {} (cargo build --release -p pi-native-hooks-cli)",
                check.display()
            )
        }),
        (!Path::new("/usr/bin/time").is_file())
            .then(|| "no /usr/bin/time (Debian's `time` package)".to_owned()),
        ast_grep_bin.as_ref().err().cloned(),
    ];
    let (Ok(ast_grep_bin), None) = (&ast_grep_bin, missing.iter().flatten().next()) else {
        for why in missing.iter().flatten() {
            say(&format!("{why}: nothing measured"));
        }
        if let Some(line) = write_figures("check-scale", None) {
            say(&line);
        }
        return ExitCode::FAILURE;
    };
    match run(&source, &check, ast_grep_bin, rounds) {
        Ok(markdown) => {
            println!("{markdown}");
            if let Some(line) = write_figures("check-scale", Some(&markdown)) {
                say(&line);
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            say(&error);
            ExitCode::FAILURE
        }
    }
}

/// Both trees measured: the table.
fn run(source: &Path, check: &Path, ast_grep_bin: &Path, rounds: usize) -> Result<String, String> {
    let work = tempfile::Builder::new()
        .prefix("pi-native-hooks-check-scale-")
        .tempdir()
        .map_err(|error| format!("cannot create a temporary directory: {error}"))?;
    let config = work.path().join("config");
    let sgconfig = ast_grep::write_config_root(&config);
    let mut trees = Vec::new();
    for copies in [1, COPIES] {
        let (dir, files) = build_tree(work.path(), source, copies)?;
        let mut tree = Tree {
            label: if copies == 1 {
                "shadcn-ui".to_owned()
            } else {
                format!("{copies} copies of it")
            },
            files,
            check: Vec::new(),
            ast_grep: Vec::new(),
            check_one: Vec::new(),
            ast_grep_one: Vec::new(),
        };
        measure(
            &mut tree,
            &dir,
            (check, ast_grep_bin),
            (&config, &sgconfig),
            rounds,
        )?;
        trees.push(tree);
    }
    Ok(table(&trees, rounds))
}

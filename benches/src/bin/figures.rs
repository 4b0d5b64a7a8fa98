//! Writes and checks the figure tables of the docs (see the library's `figures` module).
//!
//! ```text
//! figures update NAME FRAGMENT [--load "1.00 0.50 0.20"]   # put a run's Markdown into its doc
//! figures check                                            # exit 1 when a table is stale
//! figures instructions                                     # callgrind counts of scan_cost
//! ```
//!
//! `scripts/bench-figures` runs the benches and calls `update`; use that script rather than this
//! program directly. `update` refuses to record a run whose inputs have uncommitted changes: the
//! table names the commit it was measured at.

#![expect(clippy::print_stdout, reason = "the tables are this program's output")]
#![expect(clippy::print_stderr, reason = "errors for the person running it")]
#![expect(
    clippy::cast_precision_loss,
    reason = "instruction counts far below 2^52, shown as ratios"
)]

use pi_native_hooks_benches::figures::{self, Section};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("update") => update(&root, &args[1..]),
        Some("check") => check(&root),
        Some("instructions") => instructions(&root),
        _ => Err("usage: figures update NAME FRAGMENT [--load AVG] | check | instructions".into()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("figures: {error}");
            ExitCode::FAILURE
        }
    }
}

type Failure = Box<dyn std::error::Error>;

fn check(root: &Path) -> Result<(), Failure> {
    let stale = figures::stale_sections(root)?;
    for table in &stale {
        eprintln!("{table}");
    }
    if stale.is_empty() {
        println!(
            "every figure table matches its inputs ({} tables)",
            figures::SECTIONS.len()
        );
        Ok(())
    } else {
        Err(format!("{} stale figure tables", stale.len()).into())
    }
}

fn git(root: &Path, args: &[&str]) -> Result<String, Failure> {
    let output = Command::new("git").args(args).current_dir(root).output()?;
    if !output.status.success() {
        return Err(format!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        )
        .into());
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

fn update(root: &Path, args: &[String]) -> Result<(), Failure> {
    let [name, fragment, rest @ ..] = args else {
        return Err("usage: figures update NAME FRAGMENT [--load AVG]".into());
    };
    let load = match rest {
        [] => None,
        [flag, value] if flag == "--load" => Some(value.as_str()),
        _ => return Err("usage: figures update NAME FRAGMENT [--load AVG]".into()),
    };
    let section = figures::section(name)?;
    let mut status_args = vec!["status", "--porcelain", "--"];
    status_args.extend(section.inputs.iter().copied());
    let dirty = git(root, &status_args)?;
    if !dirty.is_empty() {
        return Err(format!(
            "the inputs of `{name}` have uncommitted changes; commit them and measure again, so the \
             table names the commit it was measured at:\n{dirty}"
        )
        .into());
    }
    let body = std::fs::read_to_string(fragment)
        .map_err(|error| format!("{fragment}: {error} (did the run write its figures?)"))?;
    let digest = figures::inputs_digest(root, section)?;
    let heading = heading(root, section, load)?;
    let doc = root.join(section.doc);
    let text = std::fs::read_to_string(&doc).map_err(|e| format!("{}: {e}", doc.display()))?;
    let new = figures::splice(&text, section, &digest, &format!("{heading}\n\n{body}"))?;
    std::fs::write(&doc, new).map_err(|e| format!("{}: {e}", doc.display()))?;
    println!(
        "{}: `{name}` figures updated (inputs {digest})",
        section.doc
    );
    Ok(())
}

/// The line above a table: when, at which commit, on what machine, by which command.
fn heading(root: &Path, section: &Section, load: Option<&str>) -> Result<String, Failure> {
    let date = Command::new("date")
        .args(["-u", "+%-d %B %Y"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())?;
    let commit = git(root, &["rev-parse", "--short=10", "HEAD"])?;
    let cpus = std::thread::available_parallelism().map_or(0, std::num::NonZero::get);
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|line| line.strip_prefix("model name"))
        .and_then(|rest| rest.split_once(':'))
        .map_or("unknown CPU", |(_, model)| model.trim());
    let memory = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find_map(|line| line.strip_prefix("MemTotal:"))
                .and_then(|rest| {
                    rest.trim()
                        .trim_end_matches("kB")
                        .trim()
                        .parse::<f64>()
                        .ok()
                })
        })
        .map_or_else(String::new, |kib| {
            format!(", {:.0} GiB", kib / 1024.0 / 1024.0)
        });
    let load = load.map_or_else(String::new, |load| {
        format!("; load average before the run {load}")
    });
    Ok(format!(
        "Run of {date} at commit `{commit}`, {cpus} CPUs ({model}){memory}{load}; produced by \
         `scripts/bench-figures {}` (`{}`).",
        section.name, section.command
    ))
}

/// One counted configuration of `scan_cost`.
struct Count {
    pack: &'static str,
    files: usize,
    instructions: u64,
    findings: String,
}

fn instructions(root: &Path) -> Result<(), Failure> {
    let bin = cargo_target(root).join("release/examples/scan_cost");
    if !bin.exists() {
        return Err(format!(
            "{} is missing: run `cargo build --release -p pi-native-hooks-benches --example \
             scan_cost` first",
            bin.display()
        )
        .into());
    }
    let scratch = tempfile_dir()?;
    let mut counts = Vec::new();
    for files in [1, 10, 100] {
        for pack in ["full", "two-rules", "floor"] {
            let out = scratch.join(format!("callgrind.{pack}.{files}"));
            let output = Command::new("valgrind")
                .arg("--tool=callgrind")
                .arg("--collect-atstart=no")
                .arg("--toggle-collect=*scan_cost::measured*")
                .arg(format!("--callgrind-out-file={}", out.display()))
                .arg(&bin)
                .args([pack, &files.to_string(), "2"])
                .output()
                .map_err(|error| format!("valgrind: {error} (is valgrind installed?)"))?;
            if !output.status.success() {
                return Err(format!(
                    "valgrind {pack} {files}: {}",
                    String::from_utf8_lossy(&output.stderr)
                )
                .into());
            }
            let text = std::fs::read_to_string(&out)?;
            let instructions = text
                .lines()
                .find_map(|line| {
                    line.strip_prefix("totals:")
                        .or_else(|| line.strip_prefix("summary:"))
                })
                .and_then(|rest| rest.split_whitespace().next())
                .and_then(|n| n.parse().ok())
                .ok_or_else(|| format!("{}: no totals line", out.display()))?;
            let stdout = String::from_utf8_lossy(&output.stdout);
            let findings = stdout
                .split(", ")
                .find_map(|part| part.trim_end().strip_suffix(" findings per scan"))
                .unwrap_or("—")
                .to_owned();
            eprintln!("{pack} {files}: {instructions} instructions");
            counts.push(Count {
                pack,
                files,
                instructions,
                findings,
            });
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    print!("{}", instructions_table(&counts));
    Ok(())
}

fn instructions_table(counts: &[Count]) -> String {
    let get = |pack: &str, files: usize| {
        counts
            .iter()
            .find(|c| c.pack == pack && c.files == files)
            .map_or(0.0, |c| c.instructions as f64)
    };
    let millions = |n: f64| format!("{:.2} M", n / 1e6);
    let mut out = String::from(
        "| wave | full pack | two-rule pack | parse floor | findings per scan | full / two-rule (≤ 1.15) | full / parse floor (≤ 1.2) |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    for files in [1, 10, 100] {
        let (full, two, floor) = (
            get("full", files),
            get("two-rules", files),
            get("floor", files),
        );
        let verdict = |ratio: f64, limit: f64| {
            format!(
                "{ratio:.3}x: {}",
                if ratio <= limit { "met" } else { "**missed**" }
            )
        };
        let findings = counts
            .iter()
            .find(|c| c.pack == "full" && c.files == files)
            .map_or("—", |c| c.findings.as_str());
        let _ = writeln!(
            out,
            "| {files} {} | {} | {} | {} | {findings} | {} | {} |",
            if files == 1 { "file" } else { "files" },
            millions(full),
            millions(two),
            millions(floor),
            verdict(full / two, 1.15),
            verdict(full / floor, 1.2),
        );
    }
    out
}

fn cargo_target(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from)
}

fn tempfile_dir() -> Result<PathBuf, Failure> {
    let dir = std::env::temp_dir().join(format!("pnh-figures-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

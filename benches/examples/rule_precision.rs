//! Measures the built-in rule pack on real TypeScript: per rule, the files it applies to, its
//! findings and findings per 1,000 files in each corpus; then a deterministic sample of findings
//! per rule family to judge by hand, and the precision of the judged samples.
//!
//! ```sh
//! cargo build --release -p pi-native-hooks-cli --bin pi-native-hooks
//! cargo run --release -p pi-native-hooks-benches --example rule_precision -- \
//!     --generated 1000 --verdicts docs/precision-samples.md \
//!     zod=../shared/corpora/zod shadcn-ui=../shared/corpora/shadcn-ui npm=node_modules
//! ```
//!
//! Each `LABEL=DIR` is a corpus: every `.ts`, `.tsx`, `.mts` and `.cts` file below `DIR` (hidden
//! directories skipped, `node_modules` included, symbolic links not followed). Declaration files
//! (`.d.ts`, `.d.mts`, `.d.cts`) form a separate corpus `LABEL-dts`. `--generated N` adds `N` files
//! of the generated corpus (`tests/support/src/corpus/`, seed 1) as `generated`.
//!
//! The files are copied into a temporary directory (the corpora stay untouched, and the paths the
//! rules' `files`/`ignores` globs see are relative to the corpus) and scanned by the built
//! `pi-native-hooks check --json --builtin`, in batches under its per-scan limits; a batch whose
//! findings hit the limit is split and scanned again, and any other warning is an error. The files
//! a rule applies to are counted by the same binary with probe rules: each rule file with its
//! `rule:` replaced by one that matches every file, so `files`/`ignores` are honoured exactly.
//!
//! `--ast-grep PATH` also runs that ast-grep CLI over every corpus copy with the repository's
//! `rules/` and fails unless it reports exactly the findings `check` reported (files `check` did
//! not analyze because of their size left out).
//!
//! Samples are drawn from the real corpora's source files only (not the generated corpus, not
//! declaration files): up to `--sample` findings per family (`-ts` and `-tsx` together), chosen
//! with a seeded generator from the sorted findings, so the same pack on the same corpora draws
//! the same sample. `--worksheet FILE` writes them with their code; `--verdicts FILE` reads the
//! judged samples (one Markdown table per family under a `## family` heading, rows `| n |
//! label:path:line:column | TP or FP | why |`, up to a line `<!-- end of the checked samples -->`),
//! fails when they do not cover exactly the drawn sample, and prints the precision table.

#![expect(
    clippy::case_sensitive_file_extension_comparisons,
    reason = "the corpora are named `.ts`/`.tsx` exactly"
)]
#![expect(
    clippy::cast_possible_truncation,
    clippy::cast_precision_loss,
    reason = "sizes and counts of measured inputs, far below 2^32; figures are printed as floats"
)]
#![expect(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a measuring program: the tables go to stdout, progress to stderr"
)]

use pi_native_hooks_test_support::{checkout, corpus};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// Files per `check` run: well under its 500-file limit.
const BATCH: usize = 200;
/// The unused-suppression hint is not a rule of the pack.
const UNUSED_SUPPRESSION: &str = "unused-suppression";

type Error = String;

struct Options {
    bin: PathBuf,
    /// The ast-grep CLI to compare every corpus with, if given.
    ast_grep: Option<PathBuf>,
    generated: usize,
    sample: usize,
    seed: u64,
    worksheet: Option<PathBuf>,
    verdicts: Option<PathBuf>,
    corpora: Vec<(String, PathBuf)>,
}

/// One corpus after copying: its label, its copy and its files, relative and sorted.
struct Corpus {
    label: String,
    real: bool,
    root: PathBuf,
    files: Vec<String>,
}

/// One finding, 1-based.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Hit {
    corpus: String,
    path: String,
    line: u64,
    column: u64,
    end_line: u64,
    end_column: u64,
    rule: String,
}

impl Hit {
    fn location(&self) -> String {
        format!(
            "{}:{}:{}:{}",
            self.corpus, self.path, self.line, self.column
        )
    }
}

fn usage() -> String {
    "usage: rule_precision [--bin PATH] [--ast-grep PATH] [--generated N] [--sample N] [--seed N] \
     [--worksheet FILE] [--verdicts FILE] LABEL=DIR..."
        .to_owned()
}

fn parse_options() -> Result<Options, Error> {
    let mut options = Options {
        bin: checkout().join("target/release/pi-native-hooks"),
        ast_grep: None,
        generated: 0,
        sample: 20,
        seed: 14,
        worksheet: None,
        verdicts: None,
        corpora: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        let number = |text: String| text.parse::<u64>().map_err(|e| format!("{text}: {e}"));
        match arg.as_str() {
            "--bin" => options.bin = PathBuf::from(value("--bin")?),
            "--ast-grep" => options.ast_grep = Some(PathBuf::from(value("--ast-grep")?)),
            "--generated" => options.generated = number(value("--generated")?)? as usize,
            "--sample" => options.sample = number(value("--sample")?)? as usize,
            "--seed" => options.seed = number(value("--seed")?)?,
            "--worksheet" => options.worksheet = Some(PathBuf::from(value("--worksheet")?)),
            "--verdicts" => options.verdicts = Some(PathBuf::from(value("--verdicts")?)),
            "-h" | "--help" => return Err(usage()),
            corpus => {
                let (label, dir) = corpus
                    .split_once('=')
                    .ok_or_else(|| format!("{corpus}: expected LABEL=DIR\n{}", usage()))?;
                if label.is_empty() || label.contains([':', '|', ' ']) {
                    return Err(format!(
                        "{label:?}: a label is a word without `:`, `|` or spaces"
                    ));
                }
                options.corpora.push((label.to_owned(), PathBuf::from(dir)));
            }
        }
    }
    if options.corpora.is_empty() && options.generated == 0 {
        return Err(usage());
    }
    Ok(options)
}

fn is_typescript(name: &str) -> bool {
    [".ts", ".tsx", ".mts", ".cts"]
        .iter()
        .any(|ext| name.ends_with(ext))
}

fn is_declaration(name: &str) -> bool {
    [".d.ts", ".d.mts", ".d.cts"]
        .iter()
        .any(|ext| name.ends_with(ext))
}

/// Every TypeScript file below `dir`, relative, `/`-separated.
fn walk(dir: &Path, prefix: &str, out: &mut Vec<String>) -> Result<(), Error> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("{}: {e}", dir.display()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let kind = entry
            .file_type()
            .map_err(|e| format!("{}: {e}", entry.path().display()))?;
        let relative = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}/{name}")
        };
        if kind.is_dir() && !name.starts_with('.') {
            walk(&entry.path(), &relative, out)?;
        } else if kind.is_file() && is_typescript(&name) {
            out.push(relative);
        }
    }
    Ok(())
}

fn tempdir(prefix: &str) -> Result<tempfile::TempDir, Error> {
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir()
        .map_err(|e| format!("cannot create a temporary directory: {e}"))
}

/// Copies `files` from `from` to `to`.
fn copy_files(from: &Path, to: &Path, files: &[String]) -> Result<(), Error> {
    for file in files {
        let target = to.join(file);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        std::fs::copy(from.join(file), &target)
            .map_err(|e| format!("{}: {e}", from.join(file).display()))?;
    }
    Ok(())
}

/// The corpora, copied under `scratch`.
fn prepare(options: &Options, scratch: &Path) -> Result<Vec<Corpus>, Error> {
    let mut corpora = Vec::new();
    for (label, dir) in &options.corpora {
        let mut files = Vec::new();
        walk(dir, "", &mut files)?;
        files.sort();
        let (declarations, sources): (Vec<String>, Vec<String>) =
            files.into_iter().partition(|f| is_declaration(f));
        for (label, real, files) in [
            (label.clone(), true, sources),
            (format!("{label}-dts"), false, declarations),
        ] {
            if files.is_empty() {
                continue;
            }
            let root = scratch.join(&label);
            copy_files(dir, &root, &files)?;
            corpora.push(Corpus {
                label,
                real,
                root,
                files,
            });
        }
    }
    if options.generated > 0 {
        let root = scratch.join("generated");
        let files = corpus::generate(&root, options.generated, 1);
        corpora.push(Corpus {
            label: "generated".to_owned(),
            real: false,
            root,
            files,
        });
    }
    Ok(corpora)
}

fn number(value: &serde_json::Value, key: &str, line: &str) -> Result<u64, Error> {
    value[key]
        .as_u64()
        .ok_or_else(|| format!("no number `{key}` in {line}"))
}

fn text(value: &serde_json::Value, key: &str, line: &str) -> Result<String, Error> {
    value[key]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("no string `{key}` in {line}"))
}

/// Runs `check --json <config> <files>` from the corpus root, splitting a batch whose findings
/// reach the limit.
fn check(bin: &Path, config: &[&str], corpus: &Corpus, files: &[String]) -> Result<Scan, Error> {
    let output = Command::new(bin)
        .args(["check", "--json"])
        .args(config)
        .args(files)
        .current_dir(&corpus.root)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if stderr.contains("findings omitted") && files.len() > 1 {
        let (a, b) = files.split_at(files.len() / 2);
        let mut scan = check(bin, config, corpus, a)?;
        let second = check(bin, config, corpus, b)?;
        scan.hits.extend(second.hits);
        scan.skipped.extend(second.skipped);
        return Ok(scan);
    }
    // Files over the size limit are reported by name and counted by the caller; any other
    // warning means the scan is not what it should be.
    let mut skipped = Vec::new();
    let mut warnings = Vec::new();
    for line in stderr.lines().filter(|l| !l.trim().is_empty()) {
        match line
            .strip_prefix("pi-native-hooks: warning: ")
            .and_then(|rest| rest.split_once(": not analyzed: "))
        {
            Some((path, reason)) if reason.contains("-byte limit") => skipped.push(path.to_owned()),
            _ => warnings.push(line),
        }
    }
    if !matches!(output.status.code(), Some(0 | 1)) || !warnings.is_empty() {
        return Err(format!(
            "{} check over {} files of {} ({}): {}",
            bin.display(),
            files.len(),
            corpus.label,
            output.status,
            warnings.join("\n")
        ));
    }
    let known: BTreeSet<&str> = files.iter().map(String::as_str).collect();
    let mut hits = Vec::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let value: serde_json::Value =
            serde_json::from_str(line).map_err(|e| format!("not JSON ({e}): {line}"))?;
        let path = text(&value, "path", line)?;
        if !known.contains(path.as_str()) {
            return Err(format!(
                "check reported {path}, not one of the files it was given: is {} inside a git \
                 repository?",
                corpus.root.display()
            ));
        }
        hits.push(Hit {
            corpus: corpus.label.clone(),
            path,
            line: number(&value, "line", line)?,
            column: number(&value, "column", line)?,
            end_line: number(&value, "endLine", line)?,
            end_column: number(&value, "endColumn", line)?,
            rule: text(&value, "rule", line)?,
        });
    }
    Ok(Scan { hits, skipped })
}

/// What one or more `check` runs reported.
#[derive(Default)]
struct Scan {
    hits: Vec<Hit>,
    /// Files `check` did not analyze because of their size.
    skipped: Vec<String>,
}

fn check_all(bin: &Path, config: &[&str], corpus: &Corpus) -> Result<Scan, Error> {
    let mut scan = Scan::default();
    for batch in corpus.files.chunks(BATCH) {
        let part = check(bin, config, corpus, batch)?;
        scan.hits.extend(part.hits);
        scan.skipped.extend(part.skipped);
    }
    Ok(scan)
}

/// A config root whose rules are the pack's rules with `rule:` replaced by a match of the whole
/// file: one finding per rule per file the rule applies to. Returns the rule ids.
fn write_probe_root(root: &Path) -> Result<Vec<String>, Error> {
    let rules_dir = checkout().join("rules");
    let probe_dir = root.join("rules");
    std::fs::create_dir_all(&probe_dir).map_err(|e| format!("{}: {e}", probe_dir.display()))?;
    let mut ids = Vec::new();
    let entries =
        std::fs::read_dir(&rules_dir).map_err(|e| format!("{}: {e}", rules_dir.display()))?;
    for entry in entries {
        let path = entry
            .map_err(|e| format!("{}: {e}", rules_dir.display()))?
            .path();
        if path.extension().is_none_or(|e| e != "yml") {
            continue;
        }
        let source =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let head: Vec<&str> = source.lines().take_while(|l| *l != "rule:").collect();
        if head.len() == source.lines().count() {
            return Err(format!("{}: no top-level `rule:` line", path.display()));
        }
        let id = head
            .iter()
            .find_map(|l| l.strip_prefix("id: "))
            .ok_or_else(|| format!("{}: no `id:` line", path.display()))?;
        ids.push(id.trim().to_owned());
        let probe = format!("{}\nrule:\n  kind: program\n", head.join("\n"));
        let target = probe_dir.join(path.file_name().unwrap_or_default());
        std::fs::write(&target, probe).map_err(|e| format!("{}: {e}", target.display()))?;
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o644))
            .map_err(|e| format!("{}: {e}", target.display()))?;
    }
    let config = root.join("sgconfig.yml");
    std::fs::write(&config, "ruleDirs:\n  - rules\n")
        .map_err(|e| format!("{}: {e}", config.display()))?;
    for (path, mode) in [
        (&config, 0o644),
        (&probe_dir, 0o755),
        (&root.to_path_buf(), 0o755),
    ] {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    ids.sort();
    Ok(ids)
}

/// The family of a rule id: the id without its language suffix.
fn family(rule: &str) -> &str {
    rule.strip_suffix("-tsx")
        .or_else(|| rule.strip_suffix("-ts"))
        .unwrap_or(rule)
}

/// `SplitMix64`.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Up to `size` hits of `pool` (sorted first), chosen with `seed`, returned sorted.
fn draw(mut pool: Vec<Hit>, size: usize, seed: u64) -> Vec<Hit> {
    pool.sort();
    let mut state = seed;
    let take = size.min(pool.len());
    for i in 0..take {
        let j = i + (next(&mut state) % (pool.len() - i) as u64) as usize;
        pool.swap(i, j);
    }
    pool.truncate(take);
    pool.sort();
    pool
}

fn per_thousand(findings: usize, files: usize) -> String {
    if files == 0 {
        return "—".to_owned();
    }
    format!("{:.1}", findings as f64 * 1000.0 / files as f64)
}

/// The code of a hit with two lines of context, the matched lines marked `>`.
fn excerpt(corpus: &Corpus, hit: &Hit) -> String {
    let Ok(text) = std::fs::read_to_string(corpus.root.join(&hit.path)) else {
        return "(unreadable)\n".to_owned();
    };
    let lines: Vec<&str> = text.lines().collect();
    let first = hit.line.saturating_sub(3) as usize;
    let last = (hit.end_line.min(hit.line + 8) + 2).min(lines.len() as u64) as usize;
    let mut out = String::new();
    for (index, line) in lines.iter().enumerate().take(last).skip(first) {
        let number = index as u64 + 1;
        let mark = if (hit.line..=hit.end_line).contains(&number) {
            '>'
        } else {
            ' '
        };
        let clipped: String = line.chars().take(160).collect();
        let _ = writeln!(out, "{mark}{number:>5} {clipped}");
    }
    out
}

/// Ends the judged samples in the verdicts file; what follows (earlier rounds) is not checked.
const END_OF_SAMPLES: &str = "<!-- end of the checked samples -->";

/// The judged samples: family → location → verdict (`true` for a true positive).
fn read_verdicts(path: &Path) -> Result<BTreeMap<String, BTreeMap<String, bool>>, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut verdicts: BTreeMap<String, BTreeMap<String, bool>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for (index, line) in text.lines().enumerate() {
        if line.trim() == END_OF_SAMPLES {
            break;
        }
        if let Some(heading) = line.strip_prefix("## ") {
            current = Some(heading.trim().trim_matches('`').to_owned());
            continue;
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 5 || !matches!(cells[3], "TP" | "FP") {
            continue;
        }
        let family = current.clone().ok_or_else(|| {
            format!(
                "{}:{}: a verdict before any `## family` heading",
                path.display(),
                index + 1
            )
        })?;
        let location = cells[2].trim_matches('`').to_owned();
        if verdicts
            .entry(family)
            .or_default()
            .insert(location.clone(), cells[3] == "TP")
            .is_some()
        {
            return Err(format!(
                "{}:{}: {location} is judged twice",
                path.display(),
                index + 1
            ));
        }
    }
    Ok(verdicts)
}

/// `ast-grep scan --json=stream` over a corpus copy with the repository's rules: the findings,
/// 1-based, or why the CLI failed.
fn ast_grep_hits(cli: &Path, config: &Path, corpus: &Corpus) -> Result<Vec<Hit>, Error> {
    let output = Command::new(cli)
        .args(["scan", "--json=stream", "-c"])
        .arg(config)
        .arg(".")
        .current_dir(&corpus.root)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", cli.display()))?;
    if !output.status.success() {
        return Err(format!(
            "ast-grep over {} failed ({}): {}",
            corpus.label,
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let mut hits = Vec::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let value: serde_json::Value =
            serde_json::from_str(line).map_err(|e| format!("not JSON ({e}): {line}"))?;
        let position = |key: &str| {
            value["range"][key]["line"]
                .as_u64()
                .zip(value["range"][key]["column"].as_u64())
                .map(|(l, c)| (l + 1, c + 1))
                .ok_or_else(|| format!("no range.{key} in {line}"))
        };
        let ((start_line, column), (end_line, end_column)) = (position("start")?, position("end")?);
        hits.push(Hit {
            corpus: corpus.label.clone(),
            path: text(&value, "file", line)?
                .trim_start_matches("./")
                .to_owned(),
            line: start_line,
            column,
            end_line,
            end_column,
            rule: text(&value, "ruleId", line)?,
        });
    }
    Ok(hits)
}

/// A config root for the ast-grep CLI holding the repository's rules. Returns its `sgconfig.yml`.
fn write_cli_root(root: &Path) -> Result<PathBuf, Error> {
    let rules_dir = checkout().join("rules");
    let target_dir = root.join("rules");
    std::fs::create_dir_all(&target_dir).map_err(|e| format!("{}: {e}", target_dir.display()))?;
    let entries =
        std::fs::read_dir(&rules_dir).map_err(|e| format!("{}: {e}", rules_dir.display()))?;
    for entry in entries {
        let path = entry
            .map_err(|e| format!("{}: {e}", rules_dir.display()))?
            .path();
        if path.extension().is_some_and(|e| e == "yml") {
            let target = target_dir.join(path.file_name().unwrap_or_default());
            std::fs::copy(&path, &target).map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    let config = root.join("sgconfig.yml");
    std::fs::write(&config, "ruleDirs:\n  - rules\n")
        .map_err(|e| format!("{}: {e}", config.display()))?;
    Ok(config)
}

/// Hits in `a` that `b` lacks, as a multiset difference.
fn missing_from(a: &[Hit], b: &[Hit]) -> Vec<Hit> {
    let mut counts: BTreeMap<&Hit, usize> = BTreeMap::new();
    for hit in b {
        *counts.entry(hit).or_default() += 1;
    }
    let mut missing = Vec::new();
    for hit in a {
        match counts.get_mut(hit) {
            Some(count) if *count > 0 => *count -= 1,
            _ => missing.push(hit.clone()),
        }
    }
    missing
}

// Not yet split into its phases (corpus setup, the two runs, the comparison, the report).
#[expect(clippy::too_many_lines)]
fn run(options: &Options) -> Result<(), Error> {
    if !options.bin.is_file() {
        return Err(format!(
            "{} is missing: run `cargo build --release -p pi-native-hooks-cli --bin \
             pi-native-hooks` first (or pass --bin)",
            options.bin.display()
        ));
    }
    // `check` runs from each corpus copy: the binary's path must not be relative.
    let bin = std::fs::canonicalize(&options.bin)
        .map_err(|e| format!("{}: {e}", options.bin.display()))?;
    let scratch = tempdir("pnh-rule-precision-")?;
    let corpora = prepare(options, scratch.path())?;
    let probe = tempdir("pnh-rule-probe-")?;
    let ids = write_probe_root(probe.path())?;
    let probe_root = probe.path().to_string_lossy().into_owned();

    // rule → corpus → (files the rule applies to, findings)
    let mut table: BTreeMap<String, BTreeMap<String, (usize, usize)>> = BTreeMap::new();
    let mut all_hits: Vec<Hit> = Vec::new();
    let mut skipped: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let cli_dir = tempdir("pnh-rule-cli-")?;
    let cli_config = match &options.ast_grep {
        Some(_) => Some(write_cli_root(cli_dir.path())?),
        None => None,
    };
    let mut parity: Vec<(String, usize)> = Vec::new();
    for corpus in &corpora {
        eprintln!("scanning {} ({} files)", corpus.label, corpus.files.len());
        for hit in check_all(&bin, &["--config", &probe_root], corpus)?.hits {
            table
                .entry(hit.rule)
                .or_default()
                .entry(corpus.label.clone())
                .or_default()
                .0 += 1;
        }
        let scan = check_all(&bin, &["--builtin"], corpus)?;
        for hit in &scan.hits {
            table
                .entry(hit.rule.clone())
                .or_default()
                .entry(corpus.label.clone())
                .or_default()
                .1 += 1;
        }
        if let (Some(cli), Some(config)) = (&options.ast_grep, &cli_config) {
            // Files over the size limit are not analyzed by `check`, so they are left out here.
            let reference: Vec<Hit> = ast_grep_hits(cli, config, corpus)?
                .into_iter()
                .filter(|h| !scan.skipped.contains(&h.path))
                .collect();
            let (mut ours, mut theirs) = (scan.hits.clone(), reference);
            ours.sort();
            theirs.sort();
            let (only_ours, only_theirs) =
                (missing_from(&ours, &theirs), missing_from(&theirs, &ours));
            if !only_ours.is_empty() || !only_theirs.is_empty() {
                return Err(format!(
                    "{}: check and ast-grep disagree: {} only in check, {} only in ast-grep; first: {:?}",
                    corpus.label,
                    only_ours.len(),
                    only_theirs.len(),
                    only_ours.first().or(only_theirs.first())
                ));
            }
            parity.push((corpus.label.clone(), ours.len()));
        }
        all_hits.extend(scan.hits);
        skipped.insert(&corpus.label, scan.skipped);
    }
    let unknown: BTreeSet<&str> = all_hits
        .iter()
        .map(|h| h.rule.as_str())
        .filter(|r| *r != UNUSED_SUPPRESSION && ids.binary_search(&(*r).to_owned()).is_err())
        .collect();
    if !unknown.is_empty() {
        return Err(format!(
            "the binary reports rules that rules/ does not hold: {unknown:?}; rebuild it"
        ));
    }

    let mut out = String::new();
    let _ = writeln!(
        out,
        "| corpus | files | of which `.tsx` | not analyzed (over 1 MiB) |\n| --- | ---: | ---: | --- |"
    );
    for corpus in &corpora {
        let tsx = corpus.files.iter().filter(|f| f.ends_with(".tsx")).count();
        let big = skipped
            .get(corpus.label.as_str())
            .map(Vec::as_slice)
            .unwrap_or_default();
        let listed = if big.is_empty() {
            "0".to_owned()
        } else {
            format!("{}: `{}`", big.len(), big.join("`, `"))
        };
        let _ = writeln!(
            out,
            "| {} | {} | {tsx} | {listed} |",
            corpus.label,
            corpus.files.len()
        );
    }
    let _ = writeln!(
        out,
        "\nEach cell: findings / files the rule applies to (findings per 1,000 of those files).\n"
    );
    let _ = write!(out, "| rule |");
    for corpus in &corpora {
        let _ = write!(out, " {} |", corpus.label);
    }
    let _ = write!(out, "\n| --- |");
    for _ in &corpora {
        let _ = write!(out, " ---: |");
    }
    out.push('\n');
    for rule in ids
        .iter()
        .chain(std::iter::once(&UNUSED_SUPPRESSION.to_owned()))
    {
        let _ = write!(out, "| `{rule}` |");
        for corpus in &corpora {
            let (files, findings) = table
                .get(rule)
                .and_then(|c| c.get(&corpus.label))
                .copied()
                .unwrap_or_default();
            let files = if rule == UNUSED_SUPPRESSION {
                corpus.files.len() - skipped.get(corpus.label.as_str()).map_or(0, Vec::len)
            } else {
                files
            };
            let _ = write!(
                out,
                " {findings} / {files} ({}) |",
                per_thousand(findings, files)
            );
        }
        out.push('\n');
    }
    if options.ast_grep.is_some() {
        let _ = writeln!(
            out,
            "\nParity with the ast-grep CLI (same files, same rules):\n"
        );
        for (label, findings) in &parity {
            let _ = writeln!(out, "- {label}: {findings} findings, identical");
        }
    }
    println!("{out}");

    // The sample: real source corpora only, per family.
    let real: BTreeSet<&str> = corpora
        .iter()
        .filter(|c| c.real)
        .map(|c| c.label.as_str())
        .collect();
    let families: BTreeSet<&str> = ids.iter().map(|id| family(id)).collect();
    let mut samples: BTreeMap<&str, Vec<Hit>> = BTreeMap::new();
    for name in &families {
        let pool: Vec<Hit> = all_hits
            .iter()
            .filter(|h| real.contains(h.corpus.as_str()) && family(&h.rule) == *name)
            .cloned()
            .collect();
        samples.insert(name, draw(pool, options.sample, options.seed));
    }

    if let Some(path) = &options.worksheet {
        let by_label: BTreeMap<&str, &Corpus> =
            corpora.iter().map(|c| (c.label.as_str(), c)).collect();
        let mut sheet = String::new();
        for (name, hits) in &samples {
            let _ = writeln!(sheet, "## {name}\n");
            for (index, hit) in hits.iter().enumerate() {
                let _ = writeln!(sheet, "{}. `{}` {}\n", index + 1, hit.location(), hit.rule);
                let _ = writeln!(
                    sheet,
                    "```text\n{}```\n",
                    excerpt(by_label[hit.corpus.as_str()], hit)
                );
            }
        }
        std::fs::write(path, sheet).map_err(|e| format!("{}: {e}", path.display()))?;
        eprintln!("wrote the sampled findings to {}", path.display());
    }

    if let Some(path) = &options.verdicts {
        let verdicts = read_verdicts(path)?;
        let mut problems = Vec::new();
        let mut table = String::from(
            "| family | findings in real sources | sample | true positives | false positives | precision |\n\
             | --- | ---: | ---: | ---: | ---: | ---: |\n",
        );
        for name in verdicts
            .keys()
            .filter(|f| !samples.contains_key(f.as_str()))
        {
            problems.push(format!("{name}: judged, but not a rule family of the pack"));
        }
        for (name, hits) in &samples {
            let judged = verdicts.get(*name).cloned().unwrap_or_default();
            let drawn: BTreeSet<String> = hits.iter().map(Hit::location).collect();
            for location in drawn.iter().filter(|l| !judged.contains_key(*l)) {
                problems.push(format!(
                    "{name}: {location} is in the sample but not judged"
                ));
            }
            for location in judged.keys().filter(|l| !drawn.contains(*l)) {
                problems.push(format!(
                    "{name}: {location} is judged but not in the sample"
                ));
            }
            let total = all_hits
                .iter()
                .filter(|h| real.contains(h.corpus.as_str()) && family(&h.rule) == *name)
                .count();
            let tp = drawn
                .iter()
                .filter(|l| judged.get(*l) == Some(&true))
                .count();
            let fp = drawn
                .iter()
                .filter(|l| judged.get(*l) == Some(&false))
                .count();
            let precision = if drawn.is_empty() {
                "— (no findings)".to_owned()
            } else {
                format!("{:.0}%", tp as f64 * 100.0 / drawn.len() as f64)
            };
            let _ = writeln!(
                table,
                "| `{name}` | {total} | {} | {tp} | {fp} | {precision} |",
                drawn.len()
            );
        }
        if !problems.is_empty() {
            return Err(format!(
                "{} does not match the drawn sample:\n{}",
                path.display(),
                problems.join("\n")
            ));
        }
        println!(
            "Judged samples ([precision-samples.md](precision-samples.md) lists every one with its \
             verdict and why; TP means the code is what the rule's message says and its guidance \
             would be the right request to an agent that wrote it):\n\n{table}"
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    match parse_options().and_then(|options| run(&options)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("rule_precision: {error}");
            ExitCode::FAILURE
        }
    }
}

//! `pi-native-hooks check`: scan the changed TS/TSX files of a repository (or the given paths)
//! once, run the diagnostic policies over that one snapshot, and print what they report plus any
//! finding no policy covers, as a pre-commit or CI step.
//!
//! The results are written in the form `--format` picks ([`super::format`]); the exit status
//! is decided here: 1 when a result is at or above `--error-on` (or findings were omitted), 0
//! when only lower ones were printed, 2 when the run is incomplete. Messages on stderr escape
//! file names and reasons ([`crate::text`]).

use super::format::{self, ColorChoice, Diagnostic, ErrorOn, Format, Summary};
use super::new_since::{self, PresentAtRev};
use super::{ExitStatus, Output};
use crate::analysis::{AnalysisSnapshot, SkipReason};
use crate::cancel::CancelToken;
use crate::config::ConfigSource;
use crate::delivery::{Start, diagnostic_start, finding_start};
use crate::policy::{CheckResult, DiagnosticRun};
use crate::setup::LoadedConfig;
use crate::text::{Escaped, escape};
use std::path::{Path, PathBuf};

/// Examples and exit statuses, below `check --help`.
const CHECK_HELP: &str = "Examples:
  pi-native-hooks check                        the changed files (modified, staged, untracked)
  pi-native-hooks check src tests/a.ts         everything under src/, and tests/a.ts
  pi-native-hooks check --new-since main       only what the branch added since main
  pi-native-hooks check --format github        GitHub Actions annotations
  pi-native-hooks check --format sarif > pi-native-hooks.sarif
  pi-native-hooks check --error-on hint        fail on every finding, hints included

Severities, lowest first: hint < info < warning.

Exit status:
  0  no result at or above --error-on (lower ones are still printed)
  1  a result at or above --error-on, or findings left out by a limit
  2  usage or configuration error, a policy that failed, an analysis that failed or a file
     that could not be read (explained on stderr)";

/// Arguments of `check`.
#[derive(Debug, clap::Args)]
#[command(after_help = CHECK_HELP)]
pub struct CheckArgs {
    /// Files to scan (default: the modified, staged and untracked files of the repository around
    /// the current directory, compared to HEAD).
    pub paths: Vec<PathBuf>,
    /// Run as if started in DIR (like `git -C`).
    #[arg(short = 'C', value_name = "DIR")]
    pub directory: Option<PathBuf>,
    /// Use this config root instead of the personal one.
    #[arg(long, value_name = "DIR", conflicts_with = "builtin")]
    pub config: Option<PathBuf>,
    /// Use the built-in default pack even when a personal config root exists.
    #[arg(long)]
    pub builtin: bool,
    /// How to print the results.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = Format::Human)]
    pub format: Format,
    /// Print one JSON object per finding and line (the same as `--format json`).
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// When to colour the human output.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// The lowest severity that makes `check` exit 1 (hint < info < warning); lower ones are
    /// printed and exit 0.
    #[arg(long, value_enum, value_name = "SEVERITY", default_value_t = ErrorOn::Warning)]
    pub error_on: ErrorOn,
    /// Report only the findings that were not in their file at REV (a branch, tag or commit):
    /// the same rule with the same whitespace-normalised text, counted per file. Without paths,
    /// also checks the files committed since REV.
    #[arg(long, value_name = "REV")]
    pub new_since: Option<String>,
}

/// Runs `check` from `cwd`.
pub fn run(args: &CheckArgs, cwd: &Path, out: &mut Output<'_>) -> ExitStatus {
    let cwd = args
        .directory
        .as_ref()
        .map_or_else(|| cwd.to_path_buf(), |dir| cwd.join(dir));
    let source = if args.builtin {
        ConfigSource::BuiltIn
    } else {
        match super::config_source(args.config.as_deref().map(|dir| cwd.join(dir)).as_deref()) {
            Ok(source) => source,
            Err(error) => return out.fail(&error.to_string()),
        }
    };
    let config = LoadedConfig::load(&source);
    if !config.rule_problems.is_empty() {
        let lines: Vec<String> = config.rule_problems.iter().map(escaped).collect();
        return out.fail(&format!(
            "the config at {} has errors:\n{}",
            source,
            lines.join("\n")
        ));
    }
    let rev = match args
        .new_since
        .as_deref()
        .map(|rev| new_since::open(&cwd, rev))
    {
        None => None,
        Some(Ok(tree)) => Some(tree),
        Some(Err(error)) => return out.fail(&error.to_string()),
    };
    let mut targets = match super::targets::resolve(&cwd, &args.paths) {
        Ok(targets) => targets,
        Err(error) => return out.fail(&error.to_string()),
    };
    if let (Some(rev), true) = (&rev, args.paths.is_empty()) {
        match new_since::committed_since(rev) {
            Ok(committed) => {
                targets.paths.extend(committed);
                targets.paths.sort();
                targets.paths.dedup();
            }
            Err(error) => return out.fail(&error.to_string()),
        }
    }
    let mut analyzer = match config.analyzer(default_threads()) {
        Ok(analyzer) => analyzer,
        Err(error) => return out.fail(&error.to_string()),
    };
    let registry = &config.registry;
    if !registry.problems().is_empty() {
        let lines: Vec<String> = registry.problems().iter().map(escaped).collect();
        return out.fail(&format!(
            "the policies at {} have errors:\n{}",
            source,
            lines.join("\n")
        ));
    }
    let snapshot = analyzer.scan_walked(&targets.root, &targets.paths, &targets.unfollowed);
    let run = registry.evaluate_diagnostics(&snapshot, &CancelToken::new());
    let present = rev.map(|rev| {
        let present = new_since::present_at(&rev, &analyzer, &snapshot);
        for (path, reason) in &present.unjudged {
            out.warn(&format!(
                "{}: cannot compare with {}: {}; all of its findings are reported",
                Escaped(path),
                args.new_since.as_deref().unwrap_or_default(),
                escape(reason)
            ));
        }
        present
    });
    let sources = format::worktree_sources(&targets.root);
    let place = Place {
        root: &targets.root,
        cwd: &cwd,
        sources: &sources,
    };
    report(&snapshot, &run, present.as_ref(), &place, args, out)
}

fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

impl CheckArgs {
    /// The output form: `--json` is `--format json`.
    fn output_format(&self) -> Format {
        if self.json { Format::Json } else { self.format }
    }
}

/// A result as the output forms see it: a policy's diagnostic with the note of the finding it
/// reports, or a finding no policy reported.
fn diagnostic<'a>(result: &CheckResult<'a>) -> Diagnostic<'a> {
    match *result {
        CheckResult::Policy {
            diagnostic: d,
            finding,
        } => Diagnostic {
            rule: &d.rule,
            severity: d.severity,
            path: &d.path,
            line: d.line,
            column: d.column,
            end_line: d.end_line,
            end_column: d.end_column,
            message: &d.message,
            note: finding.and_then(|f| f.note.as_deref()),
            policy: Some(&d.policy),
            guidance: Some(&d.guidance),
            replacement: None,
        },
        CheckResult::Unreported(f) => Diagnostic {
            rule: &f.rule,
            severity: f.severity,
            path: &f.path,
            line: f.range.start.line + 1,
            column: f.range.start.column + 1,
            end_line: f.range.end.line + 1,
            end_column: f.range.end.column + 1,
            message: &f.message,
            note: f.note.as_deref(),
            policy: None,
            guidance: None,
            replacement: None,
        },
    }
}

/// Where a run's files are, for showing them: the root the snapshot's paths are relative to, the
/// current directory (`-C` included) and where code frames read the analyzed text.
struct Place<'a> {
    root: &'a Path,
    cwd: &'a Path,
    sources: format::SourceLookup<'a>,
}

/// Prints the results of the run (policy diagnostics and the findings no policy reported, in the
/// engine's order) in the chosen form, then what was skipped or failed.
fn report(
    snapshot: &AnalysisSnapshot,
    run: &DiagnosticRun,
    present: Option<&PresentAtRev>,
    place: &Place<'_>,
    args: &CheckArgs,
    out: &mut Output<'_>,
) -> ExitStatus {
    let mut results = run.results(snapshot);
    if let Some(present) = present {
        let before = results.len();
        results.retain(|result| !present.old.contains(&start(result)));
        let left_out = before - results.len();
        if left_out > 0 {
            out.note(&format!(
                "{left_out} {} already present at {} not shown",
                if left_out == 1 { "finding" } else { "findings" },
                escape(args.new_since.as_deref().unwrap_or_default())
            ));
        }
    }
    let diagnostics: Vec<Diagnostic<'_>> = results.iter().map(diagnostic).collect();
    let summary = Summary {
        analyzed: snapshot.parsed_files + snapshot.cached_files,
        not_analyzed: snapshot.skipped.len(),
        omitted: snapshot.omitted_findings,
    };
    let format = args.output_format();
    let written = format::write(
        format,
        &format::Report {
            diagnostics: &diagnostics,
            summary,
            root: place.root,
            cwd: place.cwd,
            sources: place.sources,
            color: format == Format::Human && args.color.enabled(),
        },
        out.stdout,
    );
    if written.is_err() {
        return ExitStatus::Error;
    }
    for skipped in &snapshot.skipped {
        out.warn(&format!(
            "{}: not analyzed: {}",
            Escaped(&skipped.path),
            escaped(&skipped.reason)
        ));
    }
    if snapshot.omitted_findings > 0 {
        out.warn(&format!(
            "{} more findings omitted (limit reached)",
            snapshot.omitted_findings
        ));
    }
    if let Some(failure) = &snapshot.failure {
        return out.fail(&format!(
            "analysis failed: {}",
            Escaped(&failure.to_string())
        ));
    }
    if !run.failures.is_empty() {
        let failures: Vec<String> = run.failures.iter().map(escaped).collect();
        return out.fail(&format!(
            "policies failed; their diagnostics are missing:\n{}",
            failures.join("\n")
        ));
    }
    if snapshot
        .skipped
        .iter()
        .any(|s| matches!(s.reason, SkipReason::Unreadable { .. }))
    {
        return out.fail("some files could not be read; the scan is incomplete");
    }
    // Omitted findings have unknown severities: they fail the run.
    let failing = diagnostics.iter().any(|d| args.error_on.fails(d.severity));
    if failing || snapshot.omitted_findings > 0 {
        ExitStatus::Findings
    } else {
        ExitStatus::Clean
    }
}

/// Where a result starts: path, rule, 1-based line and column.
fn start(result: &CheckResult<'_>) -> Start {
    match result {
        CheckResult::Policy { diagnostic, .. } => diagnostic_start(diagnostic),
        CheckResult::Unreported(finding) => finding_start(finding),
    }
}

/// `value` as text, escaped.
fn escaped(value: &impl ToString) -> String {
    escape(&value.to_string()).into_owned()
}

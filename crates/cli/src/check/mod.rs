//! `pi-native-hooks check`: scan the changed TS/TSX files of a repository (or the given paths, or
//! with `--staged` the index's content) once, run the diagnostic policies over that one snapshot,
//! and print what they report plus any finding no policy covers, as a pre-commit or CI step.
//!
//! It fails closed: no limit applies unless given as a flag, every requested file that was not
//! analyzed is named and makes the exit status 2 (unless `--allow-skipped`), and a rule or policy
//! that does not load is named with its file and line while the others still run (exit 2).
//!
//! The results are written in the form `--format` picks ([`crate::format`]); a run that
//! reported nothing says what it analyzed (or that nothing was selected) in the human forms,
//! unless `--quiet` or a failure makes it silent. The exit status
//! is decided here: 1 when a result is at or above `--error-on` (or findings were omitted), 0
//! when only lower ones were printed, 2 when the run is incomplete. Messages on stderr escape
//! file names and reasons ([`pi_native_hooks_base::text`]).

pub mod fix;
pub(crate) mod new_since;
pub(crate) mod staged;
pub(crate) mod targets;
pub(crate) mod types;

use super::{ExitStatus, Output};
use crate::format::{self, Clean, ColorChoice, Diagnostic, ErrorOn, Format, Summary};
use new_since::PresentAtRev;
use pi_native_hooks_analysis::{AnalysisSnapshot, Analyzer, ScanLimits, SkipReason, SkippedFile};
use pi_native_hooks_base::CancelToken;
use pi_native_hooks_base::{Escaped, escape};
use pi_native_hooks_compose::LoadedConfig;
use pi_native_hooks_config::ConfigSource;
use pi_native_hooks_delivery::{Start, diagnostic_start, finding_start};
use pi_native_hooks_policy::{CheckResult, DiagnosticRun};
use pi_native_hooks_typescript::TsserverBridge;
use pi_native_hooks_workspace::RevisionTree;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;
use targets::WalkOptions;

/// Examples and exit statuses, below `check --help`.
const CHECK_HELP: &str = "Examples:
  pi-native-hooks check                        the changed files (modified, staged, untracked)
  pi-native-hooks check src tests/a.ts         everything under src/, and tests/a.ts
  pi-native-hooks check --new-since main       only what the branch added since main
  pi-native-hooks check --format github        GitHub Actions annotations
  pi-native-hooks check --format sarif > pi-native-hooks.sarif
  pi-native-hooks check --error-on hint        fail on every finding, hints included
  pi-native-hooks check --staged               the staged content, as a pre-commit hook
  pi-native-hooks check --fix                  apply the rules' fixes, report what remains
  pi-native-hooks check --quiet                print nothing when there is nothing to report

Severities, lowest first: hint < info < warning.

Exit status:
  0  every requested file was analyzed and no result is at or above --error-on (lower ones
     are still printed)
  1  a result at or above --error-on, or findings left out by --max-findings (with
     --allow-skipped)
  2  a usage or configuration error (the rules and policies that loaded still ran and their
     findings are printed), a policy or the analysis failed, or a requested file was not
     analyzed or a finding left out (unless --allow-skipped); explained on stderr";

/// Arguments of `check`.
#[derive(Debug, clap::Args)]
#[command(after_help = CHECK_HELP)]
// Each flag is an independent command-line switch, not a state.
#[expect(clippy::struct_excessive_bools)]
pub(crate) struct CheckArgs {
    /// The host's typescript-language-server for projects with a TypeScript before 7 (set by the
    /// npm package's command, never on the command line).
    #[arg(skip)]
    pub tsserver_bridge: Option<TsserverBridge>,
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
    #[arg(long, value_name = "REV", conflicts_with = "staged")]
    pub new_since: Option<String>,
    /// Check the staged content (the index, not the worktree) of the staged TS/TSX files, as a
    /// pre-commit hook needs; PATHS then only narrow the staged files down.
    #[arg(long)]
    pub staged: bool,
    /// Walk directories without honouring .gitignore, .ignore and git's exclude files (hidden
    /// files and directories stay skipped).
    #[arg(long)]
    pub no_ignore: bool,
    /// Analyze at most N files (default: all); the rest are named as not analyzed.
    #[arg(long, value_name = "N")]
    pub max_files: Option<usize>,
    /// Keep at most N findings (default: all); the number left out is reported.
    #[arg(long, value_name = "N")]
    pub max_findings: Option<usize>,
    /// Analyze N files at a time (default: one per available CPU). Each file being analyzed holds
    /// its syntax tree, so fewer threads lower the peak memory on large files.
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,
    /// Skip files larger than BYTES (default: no limit), naming each one.
    #[arg(long, value_name = "BYTES")]
    pub max_file_bytes: Option<u64>,
    /// Accept files that were requested but not analyzed (too large, binary, not UTF-8, an
    /// unreadable name or file, vanished, not a regular file, past a limit): they are still
    /// listed as warnings, and the exit status follows the findings instead of being 2.
    #[arg(long)]
    pub allow_skipped: bool,
    /// Apply the rewrites of the rules that have a `fix:` (as `ast-grep scan --update-all`
    /// does), then analyze again and report what remains. Fixes that overlap one already applied
    /// wait for the next run. Not with --new-since: it would rewrite findings it does not report.
    // Any mode that reports other content than the worktree's (such as the index's) must conflict
    // too: the fixes are written to the worktree files.
    #[arg(long, conflicts_with_all = ["new_since", "staged"])]
    pub fix: bool,
    /// Print nothing when there is nothing to report: no `Analyzed N files in T: no findings.`
    /// or `No changed TS/TSX files…` line. Results, their summary line, warnings and errors are
    /// still printed.
    #[arg(short, long)]
    pub quiet: bool,
    /// Also report the type errors of the project's own TypeScript (7 or later, installed in the
    /// project) in the checked files and the files that import them; with --new-since, only the
    /// type errors introduced since REV.
    #[arg(long, conflicts_with_all = ["staged", "fix"])]
    pub types: bool,
}

/// Runs `check` from `cwd`.
///
/// A broken rule or policy does not stop the run: the rules and policies that loaded run, their
/// results are printed, every problem is named on stderr and the exit status is 2.
pub(crate) fn run(args: &CheckArgs, cwd: &Path, out: &mut Output<'_>) -> ExitStatus {
    let started = Instant::now();
    let cwd = args
        .directory
        .as_ref()
        .map_or_else(|| cwd.to_path_buf(), |dir| cwd.join(dir));
    let source = if args.builtin {
        ConfigSource::BuiltIn
    } else {
        match crate::config_source(args.config.as_deref().map(|dir| cwd.join(dir)).as_deref()) {
            Ok(source) => source,
            Err(error) => return out.fail(&error.to_string()),
        }
    };
    let config = LoadedConfig::load(&source);
    // Named first, so that a later usage error cannot hide them.
    let broken = report_config_problems(&config, out);
    let rev = match args
        .new_since
        .as_deref()
        .map(|rev| new_since::open(&cwd, rev))
    {
        None => None,
        Some(Ok(tree)) => Some(tree),
        Some(Err(error)) => return out.fail(&error.to_string()),
    };
    let limits = limits(args);
    // `check` analyzes each file once, so it holds neither trees nor a content cache: its memory
    // is the files being analyzed and the findings. Only `--fix` analyzes the fixed files again,
    // so only then are trees held (within the settings' budget) for the incremental re-analysis,
    // and the unfixed files' findings kept for the second scan.
    let mut analyzer = match Analyzer::new(
        source.analyzer_key(),
        Arc::clone(&config.rules),
        limits,
        args.threads.map_or_else(default_threads, usize::from),
    ) {
        Ok(analyzer) if args.fix => {
            analyzer.with_tree_cache_bytes(config.settings.settings.tree_cache_bytes)
        }
        Ok(analyzer) => analyzer.with_tree_cache_bytes(0).without_content_cache(),
        Err(error) => return out.fail(&error.to_string()),
    };
    let Scanned {
        root,
        snapshot,
        staged_sources,
        fixed,
    } = match scan(args, &cwd, rev.as_ref(), limits, &mut analyzer, out) {
        Ok(scanned) => scanned,
        Err(status) => return status,
    };
    let registry = &config.registry;
    let run = registry.evaluate_diagnostics(&snapshot, &CancelToken::new());
    let typed = match type_check(args, &root, &snapshot, rev.as_ref(), &config, limits, out) {
        Ok(typed) => typed,
        Err(status) => return status,
    };
    let present = rev.map(|rev| {
        let typed = typed.as_ref().and_then(|t| t.present.as_ref());
        present_at_rev(&rev, &analyzer, &snapshot, typed, args, out)
    });
    let worktree = format::worktree_sources(&root);
    let staged_lookup = |path: &str| staged_sources.as_ref().and_then(|s| s.text(path));
    let sources: format::SourceLookup<'_> = if args.staged {
        &staged_lookup
    } else {
        &worktree
    };
    let place = Place {
        root: &root,
        cwd: &cwd,
        sources,
    };
    // A run that fails says so on stderr; a clean-run line beside it would read as a pass.
    let fix_failed = fixed
        .as_ref()
        .is_some_and(|fixed| !fixed.problems.is_empty());
    let say_clean = (!(args.quiet || broken || fix_failed)).then_some(started);
    let (snapshot, run) = match typed {
        Some(typed) => (
            types::merged(snapshot, &typed.snapshot),
            types::merged_run(run, typed.run),
        ),
        None => (snapshot, run),
    };
    let status = report(
        &snapshot,
        &run,
        present.as_ref(),
        &place,
        args,
        say_clean,
        out,
    );
    let status = match fixed {
        Some(fixed) => fix::summarize(&fixed, &snapshot, status, out),
        None => status,
    };
    if broken { ExitStatus::Error } else { status }
}

/// Which findings of the check (and of its type check) were already present at `--new-since`'s
/// revision; each file that cannot be compared is named on stderr.
fn present_at_rev(
    rev: &RevisionTree,
    analyzer: &Analyzer,
    snapshot: &AnalysisSnapshot,
    typed: Option<&PresentAtRev>,
    args: &CheckArgs,
    out: &mut Output<'_>,
) -> PresentAtRev {
    let mut present = new_since::present_at(rev, analyzer, snapshot);
    if let Some(typed) = typed {
        present.old.extend(typed.old.iter().cloned());
        present.unjudged.extend(typed.unjudged.iter().cloned());
    }
    for (path, reason) in &present.unjudged {
        out.warn(&format!(
            "{}: cannot compare with {}: {}; all of its findings are reported",
            Escaped(path),
            args.new_since.as_deref().unwrap_or_default(),
            escape(reason)
        ));
    }
    present
}

/// With `--types`, the type check of what `snapshot` analyzed, every project without one named
/// on stderr; a type check that cannot start is a usage error, returned as the exit status.
fn type_check(
    args: &CheckArgs,
    root: &Path,
    snapshot: &AnalysisSnapshot,
    rev: Option<&RevisionTree>,
    config: &LoadedConfig,
    limits: ScanLimits,
    out: &mut Output<'_>,
) -> Result<Option<types::TypeCheck>, ExitStatus> {
    if !args.types {
        return Ok(None);
    }
    let rev = rev.zip(args.new_since.as_deref());
    let settings = &config.settings.settings.typescript;
    match types::run(
        root,
        snapshot,
        rev,
        settings,
        limits.max_file_bytes,
        &config.registry,
        args.tsserver_bridge.as_ref(),
    ) {
        Ok(typed) => {
            for off in &typed.off {
                out.warn(&format!("no type check for {}", escape(off)));
            }
            Ok(Some(typed))
        }
        Err(error) => Err(out.fail(&error.to_string())),
    }
}

/// Names every rule and policy of `config` that did not load, each with its file (and line where
/// the parser gives one); `true` if there was any.
fn report_config_problems(config: &LoadedConfig, out: &mut Output<'_>) -> bool {
    let source = &config.source;
    if !config.rule_problems.is_empty() {
        let lines: Vec<String> = config.rule_problems.iter().map(escaped).collect();
        out.fail(&format!(
            "the config at {source} has errors; the rules that loaded still run:\n{}",
            lines.join("\n")
        ));
    }
    let problems = config.registry.problems();
    if !problems.is_empty() {
        let lines: Vec<String> = problems.iter().map(escaped).collect();
        out.fail(&format!(
            "the policies at {source} have errors; the policies that loaded still run:\n{}",
            lines.join("\n")
        ));
    }
    !config.rule_problems.is_empty() || !problems.is_empty()
}

/// The scan limits: none unless given as flags (the Pi wave keeps [`ScanLimits::default`]).
fn limits(args: &CheckArgs) -> ScanLimits {
    let unlimited = ScanLimits::unlimited();
    ScanLimits {
        max_file_bytes: args.max_file_bytes.unwrap_or(unlimited.max_file_bytes),
        max_files: args.max_files.unwrap_or(unlimited.max_files),
        max_findings: args.max_findings.unwrap_or(unlimited.max_findings),
    }
}

/// `snapshot` with `extra` (requested files that never reached the analysis) among its skipped
/// files, so the policies, the report and the exit status see them like any other.
fn with_skipped(snapshot: Arc<AnalysisSnapshot>, extra: Vec<SkippedFile>) -> Arc<AnalysisSnapshot> {
    if extra.is_empty() {
        return snapshot;
    }
    let mut snapshot = Arc::unwrap_or_clone(snapshot);
    snapshot
        .paths
        .extend(extra.iter().map(|skipped| skipped.path.clone()));
    snapshot.paths.sort();
    snapshot.paths.dedup();
    snapshot.skipped.extend(extra);
    snapshot.skipped.sort_by(|a, b| a.path.cmp(&b.path));
    Arc::new(snapshot)
}

/// `n` and the noun, singular or plural.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// What `check` analyzed: the root its paths are relative to, the analysis, the staged content
/// (for code frames under `--staged`) and, with `--fix`, what was written before the analysis.
struct Scanned {
    root: PathBuf,
    snapshot: Arc<AnalysisSnapshot>,
    staged_sources: Option<format::ContentSources>,
    fixed: Option<fix::FixReport>,
}

/// Resolves the requested files (the index's staged blobs, named paths or git's changed files,
/// plus the files committed since `rev`) and analyzes them; with `--fix`, writes the fixes and
/// analyzes again. A usage error is printed and returned as the exit status.
fn scan(
    args: &CheckArgs,
    cwd: &Path,
    rev: Option<&RevisionTree>,
    limits: ScanLimits,
    analyzer: &mut Analyzer,
    out: &mut Output<'_>,
) -> Result<Scanned, ExitStatus> {
    let mut fixed = None;
    let mut staged_sources = None;
    let (root, snapshot) = if args.staged {
        let staged = match staged::staged(cwd, &args.paths, limits.max_file_bytes) {
            Ok(staged) => staged,
            Err(error) => return Err(out.fail(&error.to_string())),
        };
        let mut not_analyzed = staged.not_analyzed;
        not_analyzed.extend(staged.unfollowed.into_iter().map(|path| SkippedFile {
            path,
            reason: SkipReason::SymlinkNotFollowed,
        }));
        staged_sources = Some(format::ContentSources::of(&staged.files));
        let scanned = analyzer.scan_contents(staged.files);
        (staged.root, with_skipped(scanned, not_analyzed))
    } else {
        let walk = WalkOptions {
            ignore_files: !args.no_ignore,
        };
        let mut targets = match targets::resolve(cwd, &args.paths, walk) {
            Ok(targets) => targets,
            Err(error) => return Err(out.fail(&error.to_string())),
        };
        if let (Some(rev), true) = (rev, args.paths.is_empty()) {
            match new_since::committed_since(rev) {
                Ok(committed) => {
                    targets.paths.extend(committed);
                    targets.paths.sort();
                    targets.paths.dedup();
                }
                Err(error) => return Err(out.fail(&error.to_string())),
            }
        }
        for warning in &targets.warnings {
            out.warn(warning);
        }
        let mut scanned = analyzer.scan_walked(&targets.root, &targets.paths, &targets.unfollowed);
        if args.fix {
            fixed = Some(fix::apply(&targets.root, &scanned));
            scanned = analyzer.scan_walked(&targets.root, &targets.paths, &targets.unfollowed);
        }
        (targets.root, with_skipped(scanned, targets.not_analyzed))
    };
    Ok(Scanned {
        root,
        snapshot,
        staged_sources,
        fixed,
    })
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
            replacement: finding.and_then(|f| f.fix.as_deref()),
        },
        CheckResult::Unreported(f) => Diagnostic::from(f),
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
/// engine's order) in the chosen form, then what was skipped or failed. `say_clean` is when the
/// run started, if a run that reports nothing should say so.
fn report(
    snapshot: &AnalysisSnapshot,
    run: &DiagnosticRun,
    present: Option<&PresentAtRev>,
    place: &Place<'_>,
    args: &CheckArgs,
    say_clean: Option<Instant>,
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
    let nothing_selected = nothing_selected(args);
    let failed = snapshot.failure.is_some() || !run.failures.is_empty();
    let clean = match say_clean {
        Some(started) if !failed => Clean::Say {
            elapsed: started.elapsed(),
            nothing_selected: &nothing_selected,
        },
        _ => Clean::Silent,
    };
    let summary = Summary {
        analyzed: snapshot.parsed_files + snapshot.cached_files,
        not_analyzed: snapshot.skipped.len(),
        omitted: snapshot.omitted_findings,
        clean,
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
            "{} more findings omitted (the --max-findings limit of {})",
            snapshot.omitted_findings,
            args.max_findings.unwrap_or_default()
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
    // A symlink a walk met is not followed by design (its target, when inside the walk, is
    // analyzed under its own name); anything else requested and not analyzed fails the run.
    let not_analyzed = snapshot
        .skipped
        .iter()
        .filter(|s| s.reason != SkipReason::SymlinkNotFollowed)
        .count();
    if !args.allow_skipped && (not_analyzed > 0 || snapshot.omitted_findings > 0) {
        let what = match (not_analyzed, snapshot.omitted_findings) {
            (0, _) => "findings were left out".to_owned(),
            (files, 0) => format!("{} not analyzed", count(files, "file was", "files were")),
            (files, _) => format!(
                "{} not analyzed and findings were left out",
                count(files, "file was", "files were")
            ),
        };
        return out.fail(&format!(
            "the check is incomplete: {what}; pass --allow-skipped to accept that"
        ));
    }
    // Omitted findings have unknown severities: they fail the run.
    let failing = diagnostics.iter().any(|d| args.error_on.fails(d.severity));
    if failing || snapshot.omitted_findings > 0 {
        ExitStatus::Findings
    } else {
        ExitStatus::Clean
    }
}

/// What a run that selected no file looked for, and how to ask for more.
fn nothing_selected(args: &CheckArgs) -> String {
    const ASK: &str = "(pass paths, or . for the whole tree)";
    match (
        args.staged,
        args.paths.is_empty(),
        args.new_since.as_deref(),
    ) {
        (true, true, _) => "No staged TS/TSX files.".to_owned(),
        (true, false, _) => "No staged TS/TSX files among the given paths.".to_owned(),
        (false, false, _) => "No TS/TSX files among the given paths.".to_owned(),
        (false, true, Some(rev)) => format!(
            "No changed TS/TSX files since HEAD, and none committed since {} {ASK}.",
            escape(rev)
        ),
        (false, true, None) => format!("No changed TS/TSX files since HEAD {ASK}."),
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

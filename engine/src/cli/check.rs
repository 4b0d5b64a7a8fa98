//! `pi-native-hooks check`: scan the changed TS/TSX files of a repository (or the given paths) and
//! print the findings, as a pre-commit or CI step.

use super::{ExitStatus, Output};
use crate::analysis::{AnalysisSnapshot, Analyzer, Finding, ScanLimits, SkipReason, rules};
use crate::config::ConfigSource;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Arguments of `check`.
#[derive(Debug, clap::Args)]
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
    /// Print one JSON object per finding and line.
    #[arg(long)]
    pub json: bool,
}

/// One finding as printed by `--json`: 1-based lines and columns (columns in characters).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JsonFinding<'a> {
    rule: &'a str,
    severity: &'a str,
    path: &'a str,
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    message: &'a str,
    note: Option<&'a str>,
}

impl<'a> From<&'a Finding> for JsonFinding<'a> {
    fn from(f: &'a Finding) -> Self {
        Self {
            rule: &f.rule,
            severity: f.severity.as_str(),
            path: &f.path,
            line: f.range.start.line + 1,
            column: f.range.start.column + 1,
            end_line: f.range.end.line + 1,
            end_column: f.range.end.column + 1,
            message: &f.message,
            note: f.note.as_deref(),
        }
    }
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
            Err(message) => return out.fail(&message),
        }
    };
    let (rules, problems) = rules::load_source(&source);
    if !problems.is_empty() {
        let lines: Vec<String> = problems.iter().map(ToString::to_string).collect();
        return out.fail(&format!(
            "the config at {} has errors:\n{}",
            source,
            lines.join("\n")
        ));
    }
    let (root, paths) = match super::targets::resolve(&cwd, &args.paths) {
        Ok(targets) => targets,
        Err(message) => return out.fail(&message),
    };
    let mut analyzer = match Analyzer::new(
        source.analyzer_key(),
        rules,
        ScanLimits::default(),
        default_threads(),
    ) {
        Ok(analyzer) => analyzer,
        Err(error) => return out.fail(&error.to_string()),
    };
    let snapshot = analyzer.scan(&root, &paths);
    report(&snapshot, args.json, out)
}

fn default_threads() -> usize {
    std::thread::available_parallelism()
        .map(usize::from)
        .unwrap_or(1)
}

fn report(snapshot: &AnalysisSnapshot, json: bool, out: &mut Output<'_>) -> ExitStatus {
    for finding in &snapshot.findings {
        let written = if json {
            serde_json::to_string(&JsonFinding::from(finding))
                .map_err(std::io::Error::other)
                .and_then(|line| writeln!(out.stdout, "{line}"))
        } else {
            writeln!(out.stdout, "{finding}")
        };
        if written.is_err() {
            return ExitStatus::Error;
        }
    }
    for skipped in &snapshot.skipped {
        out.warn(&format!(
            "{}: not analyzed: {}",
            skipped.path,
            describe_skip(&skipped.reason)
        ));
    }
    if snapshot.omitted_findings > 0 {
        out.warn(&format!(
            "{} more findings omitted (limit reached)",
            snapshot.omitted_findings
        ));
    }
    if let Some(failure) = &snapshot.failure {
        return out.fail(&format!("analysis failed: {failure}"));
    }
    if snapshot
        .skipped
        .iter()
        .any(|s| matches!(s.reason, SkipReason::Unreadable { .. }))
    {
        return out.fail("some files could not be read; the scan is incomplete");
    }
    if snapshot.findings.is_empty() && snapshot.omitted_findings == 0 {
        ExitStatus::Clean
    } else {
        ExitStatus::Findings
    }
}

fn describe_skip(reason: &SkipReason) -> String {
    match reason {
        SkipReason::TooLarge { bytes, limit } => {
            format!("{bytes} bytes is over the {limit}-byte limit")
        }
        SkipReason::Binary => "binary file".to_owned(),
        SkipReason::NotUtf8 => "not valid UTF-8".to_owned(),
        SkipReason::Vanished => "file vanished before it could be read".to_owned(),
        SkipReason::TooManyFiles { limit } => format!("more than {limit} files in one scan"),
        SkipReason::Unreadable { error } => error.clone(),
    }
}

//! `pi-native-hooks test [--config DIR] [--update]`: run every policy's fixtures through the real
//! analyzer and print pass / noisy / missing per case, snapshot differences and problems.

use super::{ExitStatus, Output};
use crate::config::ConfigSource;
use crate::policy::testing::{SnapshotStatus, TestReport, run_fixtures};
use crate::setup::LoadedConfig;
use crate::text::escape_lines;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// Arguments of `test`.
#[derive(Debug, clap::Args)]
pub struct TestArgs {
    /// Test this config root instead of the personal one.
    #[arg(long, value_name = "DIR")]
    pub config: Option<PathBuf>,
    /// Rewrite the snapshots of rendered results instead of comparing them.
    #[arg(long)]
    pub update: bool,
}

/// Runs `test` from `cwd`.
pub fn run(args: &TestArgs, cwd: &Path, out: &mut Output<'_>) -> ExitStatus {
    let root = match super::policy_root(args.config.as_deref(), cwd) {
        Ok(root) => root,
        Err(error) => return out.fail(&error.to_string()),
    };
    let config = LoadedConfig::load(&ConfigSource::Root(root.clone()));
    if let Some(guidance) = config.registry.guidance() {
        return out.fail(&guidance);
    }
    if !config.rule_problems.is_empty() {
        let lines: Vec<String> = config
            .rule_problems
            .iter()
            .map(ToString::to_string)
            .collect();
        return out.fail(&format!(
            "the rules at {} have errors:\n{}",
            root.display(),
            lines.join("\n")
        ));
    }
    let mut analyzer = match config.analyzer(1) {
        Ok(analyzer) => analyzer,
        Err(error) => return out.fail(&error.to_string()),
    };
    let report = run_fixtures(&root, &config.registry, &mut analyzer, args.update);
    // Case names, findings and errors come from fixture and policy files: escaped line by line.
    let _ = out
        .stdout
        .write_all(escape_lines(&render(&report)).as_bytes());
    for id in &report.untested {
        out.warn(&format!("policy {id:?} has no fixtures"));
    }
    if report.passed() {
        ExitStatus::Clean
    } else {
        ExitStatus::Findings
    }
}

fn render(report: &TestReport) -> String {
    let mut text = String::new();
    let (mut passed, mut failed) = (0, 0);
    for file in &report.files {
        let _ = writeln!(text, "{} ({})", file.policy, file.path.display());
        for case in &file.cases {
            if case.passed() {
                passed += 1;
            } else {
                failed += 1;
            }
            let _ = writeln!(text, "  {:<13} {}", case.outcome().as_str(), case.name);
            for item in &case.noisy {
                let _ = writeln!(text, "      unexpected: {item}");
            }
            for item in &case.missing {
                let _ = writeln!(text, "      missing: {item}");
            }
            if let Some(error) = &case.error {
                let _ = writeln!(text, "      error: {error}");
            }
        }
        let _ = match &file.snapshot {
            SnapshotStatus::Matches => writeln!(text, "  snapshot matches"),
            SnapshotStatus::Updated => writeln!(text, "  snapshot updated"),
            SnapshotStatus::Missing => {
                writeln!(text, "  snapshot missing: run with --update and review it")
            }
            SnapshotStatus::Differs {
                line,
                expected,
                actual,
            } => writeln!(
                text,
                "  snapshot differs at line {line}:\n    - {expected}\n    + {actual}\n  review, then run with --update"
            ),
            SnapshotStatus::Failed(error) => writeln!(text, "  snapshot failed: {error}"),
        };
    }
    for problem in &report.problems {
        let _ = writeln!(text, "problem: {problem}");
    }
    let verdict = if report.passed() { "ok" } else { "FAILED" };
    let _ = writeln!(
        text,
        "policy tests {verdict}: {passed} cases passed, {failed} cases failed"
    );
    text
}

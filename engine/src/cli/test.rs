//! `pi-native-hooks test [--config DIR] [--update]`: run every policy's fixtures through the real
//! analyzer and print pass / noisy / missing per case, snapshot differences and problems.

use super::{ExitStatus, Output};
use crate::config::ConfigSource;
use crate::policy::testing::{SnapshotStatus, TestReport, run_fixtures};
use crate::setup::LoadedConfig;
use crate::text::escape_lines;
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
        text.push_str(&format!("{} ({})\n", file.policy, file.path.display()));
        for case in &file.cases {
            if case.passed() {
                passed += 1;
            } else {
                failed += 1;
            }
            text.push_str(&format!("  {:<13} {}\n", case.status(), case.name));
            for item in &case.noisy {
                text.push_str(&format!("      unexpected: {item}\n"));
            }
            for item in &case.missing {
                text.push_str(&format!("      missing: {item}\n"));
            }
            if let Some(error) = &case.error {
                text.push_str(&format!("      error: {error}\n"));
            }
        }
        text.push_str(&match &file.snapshot {
            SnapshotStatus::Matches => "  snapshot matches\n".to_owned(),
            SnapshotStatus::Updated => "  snapshot updated\n".to_owned(),
            SnapshotStatus::Missing => "  snapshot missing: run with --update and review it\n".to_owned(),
            SnapshotStatus::Differs { line, expected, actual } => format!(
                "  snapshot differs at line {line}:\n    - {expected}\n    + {actual}\n  review, then run with --update\n"
            ),
            SnapshotStatus::Failed(error) => format!("  snapshot failed: {error}\n"),
        });
    }
    for problem in &report.problems {
        text.push_str(&format!("problem: {problem}\n"));
    }
    let verdict = if report.passed() { "ok" } else { "FAILED" };
    text.push_str(&format!(
        "policy tests {verdict}: {passed} cases passed, {failed} cases failed\n"
    ));
    text
}

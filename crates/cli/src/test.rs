//! `pi-native-hooks test [--config DIR] [--filter ID] [--update]`: run the policies' fixtures
//! through the real analyzer and print pass / noisy / missing per case, each snapshot mismatch as
//! a unified diff, every problem with its code frame, and a summary that counts each kind of
//! failure.

use super::fixtures::{RunOptions, SnapshotStatus, TestReport, run_fixtures_with};
use super::{ExitStatus, Output};
use pi_native_hooks_base::PolicyId;
use pi_native_hooks_base::did_you_mean;
use pi_native_hooks_base::escape_lines;
use pi_native_hooks_compose::LoadedConfig;
use pi_native_hooks_config::ConfigSource;
use pi_native_hooks_policy::PolicyRegistry;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// Arguments of `test`.
#[derive(Debug, clap::Args)]
pub(crate) struct TestArgs {
    /// Test this config root instead of the personal one.
    #[arg(long, value_name = "DIR")]
    pub config: Option<PathBuf>,
    /// Run only the fixtures of the policy with this id.
    #[arg(long, value_name = "ID")]
    pub filter: Option<String>,
    /// Rewrite the snapshots of rendered results instead of comparing them.
    #[arg(long)]
    pub update: bool,
}

/// Runs `test` from `cwd`.
pub(crate) fn run(args: &TestArgs, cwd: &Path, out: &mut Output<'_>) -> ExitStatus {
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
    let filter = args.filter.as_deref().map(PolicyId::from);
    if let Some(id) = &filter
        && config.registry.policy(id.as_str()).is_none()
    {
        return out.fail(&unknown_filter(id, &config.registry));
    }
    let mut analyzer = match config.analyzer(1) {
        Ok(analyzer) => analyzer,
        Err(error) => return out.fail(&error.to_string()),
    };
    let options = RunOptions {
        update: args.update,
        filter,
    };
    let report = run_fixtures_with(&root, &config.registry, &mut analyzer, &options);
    // Case names, findings, errors and frames come from fixture and policy files: escaped line
    // by line.
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

/// `--filter` named no loaded policy: the closest id, every loaded id, and the files that failed
/// to load (one of them may be the policy meant).
fn unknown_filter(id: &PolicyId, registry: &PolicyRegistry) -> String {
    let ids: Vec<&str> = registry
        .policies()
        .iter()
        .map(|p| p.contract.id.as_str())
        .collect();
    let mut message = format!(
        "--filter: no loaded policy has the id {:?}{}",
        id.as_str(),
        did_you_mean(id.as_str(), ids.iter().copied())
    );
    if ids.is_empty() {
        message.push_str("\nno policy is loaded");
    } else {
        let _ = write!(message, "\nloaded policies: {}", ids.join(", "));
    }
    if !registry.problems().is_empty() {
        let _ = write!(
            message,
            "\n{} policy file(s) failed to load (run `test` without --filter for details):",
            registry.problems().len()
        );
        for problem in registry.problems() {
            let _ = write!(message, "\n  {}", problem.path.display());
        }
    }
    message
}

/// `text` with every line indented by `prefix`.
fn indent(text: &str, prefix: &str) -> String {
    text.lines()
        .map(|line| {
            if line.is_empty() {
                "\n".to_owned()
            } else {
                format!("{prefix}{line}\n")
            }
        })
        .collect()
}

fn render(report: &TestReport) -> String {
    let mut text = String::new();
    for file in &report.files {
        let _ = writeln!(text, "{} ({})", file.policy, file.path.display());
        for case in &file.cases {
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
            if let Some(frame) = &case.error_frame {
                text.push_str(&indent(frame, "      "));
            }
        }
        match &file.snapshot {
            SnapshotStatus::Matches => text.push_str("  snapshot matches\n"),
            SnapshotStatus::Updated => text.push_str("  snapshot updated\n"),
            SnapshotStatus::Missing => {
                text.push_str("  snapshot missing: run with --update and review it\n");
            }
            SnapshotStatus::Differs { diff } => {
                text.push_str("  snapshot differs (review the diff, then run with --update):\n");
                text.push_str(&indent(diff, "    "));
            }
            SnapshotStatus::Failed(error) => {
                let _ = writeln!(text, "  snapshot failed: {error}");
            }
        }
    }
    for problem in &report.problems {
        let _ = writeln!(text, "problem: {}", problem.message);
        if let Some(frame) = &problem.frame {
            text.push_str(&indent(frame, "  "));
        }
    }
    let _ = writeln!(text, "{}", report.summary());
    text
}

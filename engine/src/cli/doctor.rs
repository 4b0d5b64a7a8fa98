//! `pi-native-hooks doctor`: print the health of the config root — trust, rule files, each
//! policy's status — and the registry digest.

use super::{ExitStatus, Output};
use crate::policy::doctor::{PolicyHealth, doctor};
use std::path::{Path, PathBuf};

/// Arguments of `doctor`.
#[derive(Debug, clap::Args)]
pub struct DoctorArgs {
    /// Examine this config root instead of the personal one.
    #[arg(long, value_name = "DIR")]
    pub config: Option<PathBuf>,
}

/// Runs `doctor` from `cwd`.
pub fn run(args: &DoctorArgs, cwd: &Path, out: &mut Output<'_>) -> ExitStatus {
    let root = match super::policy_root(args.config.as_deref(), cwd) {
        Ok(root) => root,
        Err(message) => return out.fail(&message),
    };
    let report = doctor(&root);
    let mut text = format!("config root: {}\n", report.root.display());
    match &report.root_status {
        Ok(()) => text.push_str("  ok: exists, owned by you, not writable by others\n"),
        Err(problem) => text.push_str(&format!("  problem: {problem}\n")),
    }
    text.push_str(&format!("rules: {} file(s) read\n", report.rule_files));
    for problem in &report.rule_problems {
        text.push_str(&format!("  problem: {problem}\n"));
    }
    text.push_str(&format!("policies: {}\n", report.policies.len()));
    for (path, health) in &report.policies {
        match health {
            PolicyHealth::Loaded { id, kind } => {
                text.push_str(&format!("  ok: {id} ({kind}) {}\n", path.display()));
            }
            PolicyHealth::Failed(reason) => text.push_str(&format!("  failed: {reason}\n")),
        }
    }
    text.push_str(&format!("registry digest: {}\n", report.digest));
    let _ = out.stdout.write_all(text.as_bytes());
    if report.healthy() {
        ExitStatus::Clean
    } else {
        ExitStatus::Findings
    }
}

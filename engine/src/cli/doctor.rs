//! `pi-native-hooks doctor`: print the health of the config root — trust, rule files, each
//! policy's status — and the registry digest.

use super::{ExitStatus, Output};
use crate::policy::doctor::doctor;
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
    let _ = write!(out.stdout, "{report}");
    if report.healthy() {
        ExitStatus::Clean
    } else {
        ExitStatus::Findings
    }
}

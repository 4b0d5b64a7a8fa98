//! `pi-native-hooks doctor`: print the health of the config root — trust, rule files, each
//! policy's status — and the registry digest.

use super::{ExitStatus, Output};
use crate::setup::doctor::doctor;
use crate::text::escape_lines;
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
        Err(error) => return out.fail(&error.to_string()),
    };
    let report = doctor(&root);
    // The report embeds file names and messages from the root: escaped line by line.
    let _ = write!(out.stdout, "{}", escape_lines(&report.to_string()));
    if report.healthy() {
        ExitStatus::Clean
    } else {
        ExitStatus::Findings
    }
}

//! `pi-native-hooks doctor [-C DIR]`: print the doctor's report — the config root's health
//! (trust, rule files, each policy's status, the registry digest, the settings), the analyzers it
//! runs for the current directory (or `DIR`), then the projects each verification policy
//! matches in the repository around it. Pi's `/hooks-doctor` prints the same report.

use super::{ExitStatus, Output};
use pi_native_hooks_base::escape_lines;
use pi_native_hooks_doctor::doctor;
use pi_native_hooks_typescript::TsserverBridge;
use std::path::{Path, PathBuf};

/// Arguments of `doctor`.
#[derive(Debug, clap::Args)]
#[command(after_help = DOCTOR_HELP)]
pub(crate) struct DoctorArgs {
    /// Examine this config root instead of the personal one.
    #[arg(long, value_name = "DIR")]
    pub config: Option<PathBuf>,
    /// Match the verification policies against the repository around DIR and name its
    /// TypeScript project (like `git -C`).
    #[arg(short = 'C', value_name = "DIR")]
    pub directory: Option<PathBuf>,
    /// The host's typescript-language-server, which serves a TypeScript before 7 (set by the npm
    /// package's command, never by a flag).
    #[arg(skip)]
    pub tsserver_bridge: Option<TsserverBridge>,
}

/// Exit statuses, below `doctor --help`.
const DOCTOR_HELP: &str = "Exit status:
  0  the config root is healthy and every verification policy's projects were matched without
     a problem (outside a git repository nothing is matched, which is not a problem)
  1  the root has a problem (trust, a rule, a policy, the settings), or a project problem: a
     `PROJECT.manifests` glob that matched nothing, a match its walk named and left out, a bound
     it hit, or a manifest that could not be read; the last line says which
  2  a usage error, or the personal root could not be located
The analyzers section never changes it: a directory in no TypeScript project, or a project
whose TypeScript the type check cannot run, is named there and is not a problem of the config.";

/// Runs `doctor` from `cwd`.
pub(crate) fn run(args: &DoctorArgs, cwd: &Path, out: &mut Output<'_>) -> ExitStatus {
    let root = match super::policy_root(args.config.as_deref(), cwd) {
        Ok(root) => root,
        Err(error) => return out.fail(&error.to_string()),
    };
    let dir = args
        .directory
        .as_ref()
        .map_or_else(|| cwd.to_path_buf(), |dir| cwd.join(dir));
    let report = doctor(&root, &dir, args.tsserver_bridge.clone());
    // The report embeds names and messages from the root and the repository: escaped line by
    // line.
    let _ = write!(out.stdout, "{}", escape_lines(&report.to_string()));
    if report.healthy() {
        ExitStatus::Clean
    } else {
        ExitStatus::Findings
    }
}

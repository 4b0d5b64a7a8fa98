//! `pi-native-hooks init [--dry-run] [-C DIR]`: create the personal config root with the built-in
//! pack and a verification policy proposed for the project around the current directory (or
//! `DIR`), listing every entry; only missing entries are created and nothing is overwritten.

use super::{ExitStatus, Output};
use pi_native_hooks_verification::init_plan;
use std::path::{Path, PathBuf};

/// Arguments of `init`.
#[derive(Debug, clap::Args)]
pub(crate) struct InitArgs {
    /// List what would be created without creating anything.
    #[arg(long)]
    pub dry_run: bool,
    /// Create this config root instead of the personal one.
    #[arg(long, value_name = "DIR")]
    pub config: Option<PathBuf>,
    /// Propose the verification policy for the project around DIR (like `git -C`).
    #[arg(short = 'C', value_name = "DIR")]
    pub directory: Option<PathBuf>,
}

/// Runs `init` from `cwd`.
pub(crate) fn run(args: &InitArgs, cwd: &Path, out: &mut Output<'_>) -> ExitStatus {
    let root = match super::policy_root(args.config.as_deref(), cwd) {
        Ok(root) => root,
        Err(error) => return out.fail(&error.to_string()),
    };
    let project = args
        .directory
        .as_ref()
        .map_or_else(|| cwd.to_path_buf(), |dir| cwd.join(dir));
    let plan = init_plan(&root, &project);
    for line in plan.describe(args.dry_run) {
        let _ = writeln!(out.stdout, "{}", pi_native_hooks_base::text::escape(&line));
    }
    for note in &plan.notes {
        let _ = writeln!(out.stdout, "{}", pi_native_hooks_base::text::escape(note));
    }
    if args.dry_run {
        return ExitStatus::Clean;
    }
    match plan.apply() {
        Ok(created) => {
            let _ = writeln!(
                out.stdout,
                "created {} entries under {}",
                created.len(),
                root.display()
            );
            ExitStatus::Clean
        }
        Err(error) => out.fail(&error.to_string()),
    }
}

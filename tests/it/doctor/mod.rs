//! The doctor (`pi_native_hooks_doctor`): its analyzers section — the type check off, a
//! directory in no TypeScript project, a project with each pinned TypeScript installed, names
//! from the file system escaped — and the one report both front ends print:
//! `pi-native-hooks doctor` and Pi's `/hooks-doctor`, which adds only what the running session
//! knows.

#![expect(clippy::unwrap_used, reason = "test helpers: a panic is a failed test")]

mod analyzers;
mod front_ends;

use clap::Parser;
use pi_native_hooks_cli::{Cli, ExitStatus, Output, run};
use pi_native_hooks_typescript::TsserverBridge;
use std::path::Path;

/// `pi-native-hooks doctor --config <root> -C <dir>` run in process, as the npm package's command
/// runs it when `bridge` is its typescript-language-server: the status, stdout and stderr.
fn doctor_cli(
    root: &Path,
    dir: &Path,
    bridge: Option<TsserverBridge>,
) -> (ExitStatus, String, String) {
    let args = [
        "pi-native-hooks",
        "doctor",
        "--config",
        root.to_str().unwrap(),
        "-C",
        dir.to_str().unwrap(),
    ];
    let cli = Cli::try_parse_from(args)
        .unwrap()
        .with_tsserver_bridge(bridge);
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let status = run(
        cli,
        dir,
        &mut Output {
            stdout: &mut stdout,
            stderr: &mut stderr,
        },
    );
    (
        status,
        String::from_utf8(stdout).unwrap(),
        String::from_utf8(stderr).unwrap(),
    )
}

/// The analyzers section of a report: from its `analyzers` line to the projects section.
fn analyzers_section(report: &str) -> &str {
    let start = report
        .find("\nanalyzers:")
        .unwrap_or_else(|| panic!("no analyzers section:\n{report}"));
    let end = report
        .find("\nprojects: ")
        .unwrap_or_else(|| panic!("no projects section:\n{report}"));
    &report[start + 1..=end]
}

//! The `pi-native-hooks` command line: argument parsing and output over the engine's library API.
//! Each subcommand lives in its own file and owns no logic beyond presenting results.
//!
//! Files: `check/` (`check`: its targets — git's changed files, or named files and directories
//! walked with the `ignore` crate —, `--staged` files, `--new-since`, `--types` and `--fix`, fixes
//! written in ast-grep's order, skipping overlaps, each file atomically and only while it holds
//! the analyzed bytes), `format/` (one neutral `Diagnostic` per result written as `human`,
//! `concise`, `json`, `github` or `sarif`, one file per form, code frames read through a
//! replaceable source lookup), `test` and `fixtures/` (`test`: the policy fixture runner),
//! `init`, `doctor` (the doctor crate's report), `completions`.

// What is not re-exported from this root is `pub(crate)`: the curated list below is the API.
#![warn(unreachable_pub)]

mod check;
mod completions;
mod doctor;
pub mod fixtures;
pub mod format;
mod init;
mod test;

// How `check --fix` plans and rewrites a file's fixes, for tests that show the fixed text.
pub use check::fix;

use clap::{Parser, Subcommand};
use pi_native_hooks_config::{ConfigSource, ConfigSourceError};
use pi_native_hooks_typescript::TsserverBridge;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// Lint-and-verify hooks for the Pi coding agent.
#[derive(Debug, Parser)]
#[command(name = "pi-native-hooks", version, about, after_help = TOP_LEVEL_HELP)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

impl Cli {
    /// Serves `check --types` on projects with a TypeScript before 7 with the host's
    /// typescript-language-server (the npm package's command passes the one it brings), and
    /// names it in `doctor`'s analyzers section.
    #[must_use]
    pub fn with_tsserver_bridge(mut self, bridge: Option<TsserverBridge>) -> Self {
        match &mut self.command {
            Command::Check(args) => args.tsserver_bridge = bridge,
            Command::Doctor(args) => args.tsserver_bridge = bridge,
            Command::Test(_) | Command::Init(_) | Command::Completions(_) => {}
        }
        self
    }
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Scan changed TypeScript/TSX files with the ast-grep rules and report findings.
    Check(check::CheckArgs),
    /// Run every policy's fixtures and report pass, noisy or missing per case.
    Test(test::TestArgs),
    /// Create the personal config root with the built-in rules and policies.
    Init(init::InitArgs),
    /// Check the config root's trust, rules and policies, print the registry digest, name the
    /// analyzers it runs here, and list the projects each verification policy matches in this
    /// repository.
    Doctor(doctor::DoctorArgs),
    /// Print the shell completion script for bash, zsh, fish, elvish or PowerShell.
    Completions(completions::CompletionsArgs),
}

/// Examples and exit statuses, below the top-level `--help`.
const TOP_LEVEL_HELP: &str = "Examples:
  pi-native-hooks check                     the changed TS/TSX files of this repository
  pi-native-hooks check --format sarif src  every file under src/, as SARIF 2.1.0
  pi-native-hooks init && pi-native-hooks doctor
  pi-native-hooks completions bash

Exit status: 0 success, 1 findings (check) or failed cases (test), 2 usage, configuration or
run error (explained on stderr). `pi-native-hooks check --help` details check's.";

/// How a command ended; maps to the process exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// Nothing to report (exit 0).
    Clean,
    /// Findings were reported (exit 1).
    Findings,
    /// Usage or configuration error (exit 2), explained on stderr.
    Error,
}

impl From<ExitStatus> for ExitCode {
    fn from(status: ExitStatus) -> Self {
        match status {
            ExitStatus::Clean => ExitCode::SUCCESS,
            ExitStatus::Findings => ExitCode::from(1),
            ExitStatus::Error => ExitCode::from(2),
        }
    }
}

/// Where a command writes: findings to `stdout`, warnings and errors to `stderr`.
pub struct Output<'a> {
    /// Results.
    pub stdout: &'a mut dyn Write,
    /// Warnings and errors.
    pub stderr: &'a mut dyn Write,
}

impl Output<'_> {
    /// Prints `pi-native-hooks: note: <message>` on stderr, controls escaped within each line.
    pub fn note(&mut self, message: &str) {
        let message = pi_native_hooks_base::escape_lines(message);
        // A closed stderr leaves nothing better to report to.
        let _ = writeln!(self.stderr, "pi-native-hooks: note: {message}");
    }

    /// Prints `pi-native-hooks: warning: <message>` on stderr, controls escaped within each line.
    pub fn warn(&mut self, message: &str) {
        let message = pi_native_hooks_base::escape_lines(message);
        // A closed stderr leaves nothing better to report to.
        let _ = writeln!(self.stderr, "pi-native-hooks: warning: {message}");
    }

    /// Prints `pi-native-hooks: error: <message>` on stderr, controls escaped within each line,
    /// and returns [`ExitStatus::Error`].
    pub fn fail(&mut self, message: &str) -> ExitStatus {
        let message = pi_native_hooks_base::escape_lines(message);
        let _ = writeln!(self.stderr, "pi-native-hooks: error: {message}");
        ExitStatus::Error
    }
}

/// The config for this run: `--config DIR`, else the personal root if it exists, else the
/// built-in default pack.
fn config_source(explicit: Option<&Path>) -> Result<ConfigSource, ConfigSourceError> {
    let personal = pi_native_hooks_config::personal_root().ok();
    ConfigSource::select(explicit, personal)
}

/// The config root a policy command works on: `--config DIR` (relative to `cwd`), else the
/// personal root.
fn policy_root(
    explicit: Option<&Path>,
    cwd: &Path,
) -> Result<std::path::PathBuf, ConfigSourceError> {
    match explicit {
        Some(dir) => Ok(cwd.join(dir)),
        None => Ok(pi_native_hooks_config::personal_root()?),
    }
}

/// Parses `args` and runs the command from `cwd`.
pub fn run(cli: Cli, cwd: &Path, out: &mut Output<'_>) -> ExitStatus {
    match cli.command {
        Command::Check(args) => check::run(&args, cwd, out),
        Command::Test(args) => test::run(&args, cwd, out),
        Command::Init(args) => init::run(&args, cwd, out),
        Command::Doctor(args) => doctor::run(&args, cwd, out),
        Command::Completions(args) => completions::run(&args, out),
    }
}

/// The binary's entry point.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let (mut stdout, mut stderr) = (std::io::stdout().lock(), std::io::stderr().lock());
    let mut out = Output {
        stdout: &mut stdout,
        stderr: &mut stderr,
    };
    let cwd = match std::env::current_dir() {
        Ok(cwd) => cwd,
        Err(error) => {
            return out
                .fail(&format!("cannot read the current directory: {error}"))
                .into();
        }
    };
    run(cli, &cwd, &mut out).into()
}

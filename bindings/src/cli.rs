//! The `pi-native-hooks` command line run inside Node: the npm package's `bin` calls [`run_cli`],
//! so `check`, `test`, `init` and `doctor` work from the prebuilt addon, without Rust or a second
//! executable. Same parsing and output as the cargo-built binary (`pi_native_hooks_cli`).

use crate::contain::{contain, test_seam};
use crate::types::{BindingError, CliOptions, EntryPoint, ErrorCode};
use clap::Parser;
use napi::Either;
use napi_derive::napi;
use pi_native_hooks_cli::{Cli, ExitStatus, Output, run};
use pi_native_hooks_session::TsserverBridge;
use std::io::Write;

/// Runs `pi-native-hooks <argv>` (the arguments after the command name) from the process's current
/// directory, writing to its stdout and stderr, and returns the exit code: 0 clean, 1 findings,
/// 2 usage or configuration error (also 0 for `--help` and `--version`, as the binary does).
/// A panic is returned as a [`BindingError`] (`PNH_PANIC`) once what was written is flushed.
#[napi]
pub fn run_cli(argv: Vec<String>, options: Option<CliOptions>) -> Either<i32, BindingError> {
    let (panic_in, bridge) = options.map_or((None, None), |options| {
        (options.panic_in, options.tsserver_bridge.map(Into::into))
    });
    let ran = contain(EntryPoint::RunCli, || {
        let code = run_cli_contained(argv, bridge);
        test_seam(EntryPoint::RunCli, panic_in);
        code
    });
    match ran {
        Ok(code) => Either::A(code),
        Err(panicked) => {
            // What the command printed before the panic stays in std's buffers otherwise: Node
            // exits without flushing them.
            let _ = std::io::stdout().flush();
            let _ = std::io::stderr().flush();
            Either::B(BindingError::new(ErrorCode::Panic, panicked))
        }
    }
}

fn run_cli_contained(argv: Vec<String>, bridge: Option<TsserverBridge>) -> i32 {
    let cli = match Cli::try_parse_from(std::iter::once("pi-native-hooks".to_owned()).chain(argv)) {
        Ok(cli) => cli.with_tsserver_bridge(bridge),
        Err(error) => {
            // `--help`, `--version` and usage errors, printed and coded exactly as `Cli::parse`
            // would before exiting the process (which an addon must not do).
            let _ = error.print();
            return error.exit_code();
        }
    };
    let (mut stdout, mut stderr) = (std::io::stdout().lock(), std::io::stderr().lock());
    let status = {
        let mut out = Output {
            stdout: &mut stdout,
            stderr: &mut stderr,
        };
        match std::env::current_dir() {
            Ok(cwd) => run(cli, &cwd, &mut out),
            Err(error) => out.fail(&format!("cannot read the current directory: {error}")),
        }
    };
    // Rust flushes stdout at the exit of its own `main` only; Node exits without it.
    let _ = stdout.flush();
    let _ = stderr.flush();
    code(status)
}

/// The process exit code of a command's status: the binary's `From<ExitStatus> for ExitCode`.
fn code(status: ExitStatus) -> i32 {
    match status {
        ExitStatus::Clean => 0,
        ExitStatus::Findings => 1,
        ExitStatus::Error => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_is_answered_as_pnh_panic() {
        let options = CliOptions {
            tsserver_bridge: None,
            panic_in: Some(EntryPoint::RunCli),
        };
        let Either::B(error) = run_cli(vec!["--version".to_owned()], Some(options)) else {
            panic!("ran despite the panic");
        };
        assert_eq!(error.code, ErrorCode::Panic);
        assert!(
            error.message.starts_with(
                "engine panicked in runCli: panicked on purpose (the panicIn test option) (at bindings/src/contain.rs:"
            ),
            "{}",
            error.message
        );
        assert!(matches!(
            run_cli(vec!["--version".to_owned()], None),
            Either::A(0)
        ));
    }
}

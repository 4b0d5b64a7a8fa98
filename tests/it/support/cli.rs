//! Running the command line: in process through `cli::run` (what `main` calls), or as the real
//! `pi-native-hooks` binary under a deadline.

use clap::Parser;
use pi_native_hooks_cli::{Cli, ExitStatus, Output, run};
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Far longer than any run of the binary takes; reaching it means something blocked.
pub const DEADLINE: Duration = Duration::from_secs(60);

/// `pi-native-hooks <args>` run in process from `cwd`: the exit status, stdout and stderr.
pub fn cli(cwd: &Path, args: &[&str]) -> (ExitStatus, String, String) {
    let cli = Cli::try_parse_from(std::iter::once("pi-native-hooks").chain(args.iter().copied()))
        .expect("the arguments parse");
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let status = run(
        cli,
        cwd,
        &mut Output {
            stdout: &mut stdout,
            stderr: &mut stderr,
        },
    );
    (
        status,
        String::from_utf8(stdout).expect("utf-8 stdout"),
        String::from_utf8(stderr).expect("utf-8 stderr"),
    )
}

/// The `pi-native-hooks` binary `cargo test` built (from the CLI crate's `main.rs`, under the
/// tests package's name for it).
pub fn binary() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pi-native-hooks-under-test"))
}

/// `pi-native-hooks check <args>` run as the real binary in `dir`, killed (and the test failed)
/// if it runs past [`DEADLINE`]. Returns the exit code, stdout and stderr.
pub fn check(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let mut child = binary()
        .arg("check")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary starts");
    // Read both pipes while the child runs, so a full pipe cannot stall it.
    let mut out = child.stdout.take().expect("stdout is piped");
    let mut err = child.stderr.take().expect("stderr is piped");
    let stdout = std::thread::spawn(move || {
        let mut text = String::new();
        out.read_to_string(&mut text).map(|_| text)
    });
    let stderr = std::thread::spawn(move || {
        let mut text = String::new();
        err.read_to_string(&mut text).map(|_| text)
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            panic!("check {args:?} was still running after {DEADLINE:?}: it blocked");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let read = |reader: std::thread::JoinHandle<std::io::Result<String>>| {
        reader
            .join()
            .expect("the reader thread ends")
            .expect("utf-8 output")
    };
    (
        status.code().expect("exit code"),
        read(stdout),
        read(stderr),
    )
}

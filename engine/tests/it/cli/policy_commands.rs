//! The `init`, `doctor` and `test` subcommands on a temporary config root.

#![allow(clippy::unwrap_used, reason = "test helpers: a panic is a failed test")]

use crate::support::cli::cli;
use crate::support::config_root::write_private;
use crate::support::snapshot::{assert_snapshot, redact};
use pi_native_hooks::cli::ExitStatus;

#[test]
fn init_doctor_and_test_work_together() {
    let home = tempfile::tempdir().unwrap();
    let (status, stdout, _) = cli(home.path(), &["init", "--dry-run", "--config", "root"]);
    assert_eq!(status, ExitStatus::Clean);
    assert!(
        stdout.contains("would create: ")
            && stdout.contains("root/policies/typescript-no-dynamic-import.rhai"),
        "{stdout}"
    );
    assert!(!home.path().join("root").exists());

    let (status, stdout, _) = cli(home.path(), &["test", "--config", "root"]);
    assert_eq!(
        status,
        ExitStatus::Error,
        "an absent root cannot be tested: {stdout}"
    );

    let (status, stdout, stderr) = cli(home.path(), &["init", "--config", "root"]);
    assert_eq!(status, ExitStatus::Clean, "{stderr}");
    assert!(stdout.contains("created "), "{stdout}");
    let (_, again, _) = cli(home.path(), &["init", "--config", "root"]);
    assert!(
        again.contains("created 0 entries") && again.contains("exists (kept)"),
        "{again}"
    );

    let (status, stdout, stderr) = cli(home.path(), &["doctor", "--config", "root"]);
    assert_eq!(status, ExitStatus::Clean, "{stdout}{stderr}");
    let paths = [(home.path(), "[home]")];
    assert_snapshot!("doctor_healthy", redact(&stdout, &paths));

    let (status, stdout, stderr) = cli(home.path(), &["test", "--config", "root"]);
    assert_eq!(status, ExitStatus::Clean, "{stdout}{stderr}");
    assert_snapshot!("test_passing", redact(&stdout, &paths));

    // Breaking a policy shows up in doctor and test.
    std::fs::write(
        home.path()
            .join("root/policies/typescript-no-dynamic-import.rhai"),
        "const ID = 1;",
    )
    .unwrap();
    let (status, stdout, _) = cli(home.path(), &["doctor", "--config", "root"]);
    assert_eq!(status, ExitStatus::Findings);
    assert_snapshot!("doctor_broken_policy", redact(&stdout, &paths));
    let (status, stdout, _) = cli(home.path(), &["test", "--config", "root"]);
    assert_eq!(status, ExitStatus::Findings);
    assert_snapshot!("test_broken_policy", redact(&stdout, &paths));
}

#[test]
fn doctor_and_test_print_names_from_the_root_escaped() {
    let home = tempfile::tempdir().unwrap();
    let (status, _, stderr) = cli(home.path(), &["init", "--config", "root"]);
    assert_eq!(status, ExitStatus::Clean, "{stderr}");
    // A policy whose file name carries an ANSI escape and which fails to load.
    let name = "bad\u{1b}[2Jname.rhai";
    write_private(&home.path().join("root/policies"), name, "const ID = ;\n");

    for command in ["doctor", "test"] {
        let (_, stdout, stderr) = cli(home.path(), &[command, "--config", "root"]);
        let all = format!("{stdout}{stderr}");
        assert!(
            !all.contains('\u{1b}'),
            "{command}: a raw escape reached the terminal: {all:?}"
        );
        assert_snapshot!(
            format!("{command}_escaped_name"),
            redact(&all, &[(home.path(), "[home]")])
        );
    }
}

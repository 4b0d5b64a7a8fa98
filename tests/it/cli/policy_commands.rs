//! The `init`, `doctor` and `test` subcommands on a temporary config root.

#![expect(clippy::unwrap_used, reason = "test helpers: a panic is a failed test")]

use crate::support::cli::cli;
use crate::support::config_root::write_private;
use crate::support::snapshot::assert_snapshot;
use pi_native_hooks_cli::ExitStatus;

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
    assert_snapshot!("doctor_healthy", stdout, redact = &paths);

    let (status, stdout, stderr) = cli(home.path(), &["test", "--config", "root"]);
    assert_eq!(status, ExitStatus::Clean, "{stdout}{stderr}");
    assert_snapshot!("test_passing", stdout, redact = &paths);

    // Breaking a policy shows up in doctor and test.
    std::fs::write(
        home.path()
            .join("root/policies/typescript-no-dynamic-import.rhai"),
        "const ID = 1;",
    )
    .unwrap();
    let (status, stdout, _) = cli(home.path(), &["doctor", "--config", "root"]);
    assert_eq!(status, ExitStatus::Findings);
    assert_snapshot!("doctor_broken_policy", stdout, redact = &paths);
    let (status, stdout, _) = cli(home.path(), &["test", "--config", "root"]);
    assert_eq!(status, ExitStatus::Findings);
    assert_snapshot!("test_broken_policy", stdout, redact = &paths);
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
            all,
            redact = &[(home.path(), "[home]")]
        );
    }
}

/// `init --dry-run`, `init` and a second `init` from `project` (a git repository), with the root
/// in `home`: returns the dry run's output and the proposed policy's text.
fn init_in_project(home: &std::path::Path, project: &crate::support::TestRepo) -> (String, String) {
    let root = home.join("root");
    let root_arg = root.to_str().unwrap();
    let (status, dry, stderr) = cli(project.path(), &["init", "--dry-run", "--config", root_arg]);
    assert_eq!(status, ExitStatus::Clean, "{stderr}");
    assert!(!root.exists(), "the dry run writes nothing");
    let (status, stdout, stderr) = cli(project.path(), &["init", "--config", root_arg]);
    assert_eq!(status, ExitStatus::Clean, "{stderr}");
    assert!(stdout.contains("created "), "{stdout}");
    let written: Vec<_> = std::fs::read_dir(root.join("policies"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.ends_with("-verification.rhai"))
        .collect();
    assert_eq!(written.len(), 1, "one proposed policy: {written:?}");
    let policy = root.join("policies").join(&written[0]);
    let text = std::fs::read_to_string(&policy).unwrap();
    // The user edits the proposal; a second init keeps the edit.
    std::fs::write(&policy, format!("{text}// edited\n")).unwrap();
    let (_, again, _) = cli(project.path(), &["init", "--config", root_arg]);
    assert!(again.contains("created 0 entries"), "{again}");
    assert!(
        again.contains(&format!("exists (kept): {}", policy.display())),
        "{again}"
    );
    assert!(
        std::fs::read_to_string(&policy)
            .unwrap()
            .ends_with("// edited\n")
    );
    // The proposal loads: doctor is healthy and lists it as a verification policy.
    let (status, doctor, _) = cli(project.path(), &["doctor", "--config", root_arg]);
    assert_eq!(status, ExitStatus::Clean, "{doctor}");
    assert!(doctor.contains("-verification (verification)"), "{doctor}");
    (dry, text)
}

#[test]
fn init_proposes_a_verification_policy_for_a_node_project() {
    let home = tempfile::tempdir().unwrap();
    let project = crate::support::TestRepo::with_commit(&[(
        "package.json",
        r#"{ "name": "shop", "scripts": { "test": "vitest", "typecheck": "tsc", "build": "tsc -b" } }"#,
    )]);
    let (dry, text) = init_in_project(home.path(), &project);
    let root = home.path().join("root");
    assert!(
        dry.contains(&format!(
            "would create: {}",
            root.join("policies/shop-verification.rhai").display()
        )),
        "{dry}"
    );
    assert!(
        dry.contains(
            "proposed verification policy shop-verification.rhai for the project \"shop\" (package.json): npm test, npm run typecheck"
        ),
        "{dry}"
    );
    assert!(text.contains("const PROJECT = #{ manifest: \"package.json\", name: \"shop\" };"));
    // Neither this repository's own policy nor the placeholder example is copied.
    for name in [
        "pi-native-hooks-verification.rhai",
        "node-project-verification.rhai",
    ] {
        assert!(!root.join("policies").join(name).exists(), "{name}");
    }
}

#[test]
fn init_proposes_cargo_test_for_a_cargo_project_given_with_dash_c() {
    let home = tempfile::tempdir().unwrap();
    let project = crate::support::TestRepo::with_commit(&[(
        "Cargo.toml",
        "[package]\nname = \"tool\"\nversion = \"0.1.0\"\n",
    )]);
    let root = home.path().join("root");
    let project_arg = project.path().to_str().unwrap();
    let (status, dry, _) = cli(
        home.path(),
        &[
            "init",
            "--dry-run",
            "-C",
            project_arg,
            "--config",
            root.to_str().unwrap(),
        ],
    );
    assert_eq!(status, ExitStatus::Clean);
    assert!(
        dry.contains("proposed verification policy tool-verification.rhai for the project \"tool\" (Cargo.toml): cargo test"),
        "{dry}"
    );
    let (_, text) = init_in_project(home.path(), &project);
    assert!(text.contains("command: \"cargo test\""), "{text}");
}

#[test]
fn init_outside_a_project_or_with_a_broken_manifest_names_why_nothing_is_proposed() {
    let home = tempfile::tempdir().unwrap();
    let (status, dry, _) = cli(home.path(), &["init", "--dry-run", "--config", "root"]);
    assert_eq!(status, ExitStatus::Clean);
    assert!(
        dry.contains("no verification policy proposed: ")
            && dry.contains("not inside a git repository"),
        "{dry}"
    );
    let broken = crate::support::TestRepo::with_commit(&[("package.json", "{ \"name\": ")]);
    let (status, dry, _) = cli(broken.path(), &["init", "--dry-run", "--config", "root"]);
    assert_eq!(status, ExitStatus::Clean);
    assert!(dry.contains("package.json: is not valid JSON"), "{dry}");
    assert!(!dry.contains("-verification.rhai"), "{dry}");
}

//! Project matching: the git root plus the manifest a verification policy names.

use crate::support::{ConfigRoot, TestRepo};
use pi_native_hooks_verification::{
    GateConfig, ManifestError, ProjectProblem, VerificationGate, manifest_name, match_projects,
};

fn policy(id: &str, manifest: &str, name: &str) -> String {
    format!(
        r#"
const ID = "{id}";
const KIND = "verification";
const PROJECT = #{{ manifest: "{manifest}", name: "{name}" }};
const REQUIREMENTS = [ #{{ id: "check", command: "make check", affects: "any" }} ];
fn any(path) {{ true }}
"#
    )
}

#[test]
fn package_json_name_matches() {
    let repo = TestRepo::with_commit(&[("package.json", r#"{"name": "web", "version": "1.0.0"}"#)]);
    let config = ConfigRoot::with_policies(&[("web.rhai", &policy("web", "package.json", "web"))]);
    let matched = match_projects(repo.path(), &config.registry());
    assert_eq!(matched.root.as_deref(), Some(repo.path()));
    assert_eq!(matched.matched.len(), 1);
    assert_eq!(matched.matched[0].identity.name, "web");
    assert!(matched.problems.is_empty());
}

#[test]
fn cargo_package_name_matches() {
    let repo = TestRepo::with_commit(&[(
        "Cargo.toml",
        "[package]\nname = \"tool\"\nversion = \"0.1.0\"\n",
    )]);
    assert_eq!(
        manifest_name(repo.path(), "Cargo.toml"),
        Ok(Some("tool".to_owned()))
    );
}

#[test]
fn cargo_workspace_package_name_matches() {
    let repo = TestRepo::with_commit(&[(
        "Cargo.toml",
        "[workspace]\nmembers = [\"a\"]\n\n[workspace.package]\nname = \"suite\"\nversion = \"0.1.0\"\n",
    )]);
    let config =
        ConfigRoot::with_policies(&[("suite.rhai", &policy("suite", "Cargo.toml", "suite"))]);
    let matched = match_projects(repo.path(), &config.registry());
    assert_eq!(matched.matched.len(), 1);
}

#[test]
fn several_policies_may_match_one_project() {
    let repo = TestRepo::with_commit(&[
        ("package.json", r#"{"name": "mixed"}"#),
        ("Cargo.toml", "[package]\nname = \"mixed-core\"\n"),
    ]);
    let config = ConfigRoot::with_policies(&[
        ("a.rhai", &policy("node", "package.json", "mixed")),
        ("b.rhai", &policy("rust", "Cargo.toml", "mixed-core")),
        ("c.rhai", &policy("other", "package.json", "someone-else")),
    ]);
    let gate = VerificationGate::new(GateConfig::new(repo.path()), &config.registry());
    let policies: Vec<&str> = gate
        .requirements()
        .iter()
        .map(|requirement| requirement.key.policy.as_str())
        .collect();
    assert_eq!(policies, ["node", "rust"]);
}

#[test]
fn different_name_matches_nothing() {
    let repo = TestRepo::with_commit(&[("package.json", r#"{"name": "not-demo"}"#)]);
    let gate = VerificationGate::new(GateConfig::new(repo.path()), &ConfigRoot::demo().registry());
    assert!(gate.requirements().is_empty());
}

#[test]
fn project_root_is_the_git_root_from_a_subdirectory() {
    let repo = TestRepo::demo();
    let gate = VerificationGate::new(
        GateConfig::new(repo.path().join("src")),
        &ConfigRoot::demo().registry(),
    );
    assert_eq!(gate.requirements().len(), 2);
    assert_eq!(gate.requirements()[0].project.root, repo.path());
}

#[test]
fn malformed_manifest_is_reported_not_matched() {
    let repo = TestRepo::with_commit(&[("package.json", "{ not json")]);
    let matched = match_projects(repo.path(), &ConfigRoot::demo().registry());
    assert!(matched.matched.is_empty());
    assert!(matches!(
        matched.problems.as_slice(),
        [ProjectProblem::Manifest {
            error: ManifestError::Parse { .. },
            ..
        }]
    ));
}

#[test]
fn manifest_without_a_name_is_reported() {
    let repo = TestRepo::with_commit(&[("Cargo.toml", "[workspace]\nmembers = []\n")]);
    assert!(matches!(
        manifest_name(repo.path(), "Cargo.toml"),
        Err(ManifestError::NoName { .. })
    ));
}

#[test]
fn unsupported_manifest_is_reported() {
    let repo = TestRepo::with_commit(&[("pyproject.toml", "[project]\nname = \"py\"\n")]);
    let config = ConfigRoot::with_policies(&[("py.rhai", &policy("py", "pyproject.toml", "py"))]);
    let matched = match_projects(repo.path(), &config.registry());
    assert!(matched.matched.is_empty());
    assert!(matches!(
        matched.problems.as_slice(),
        [ProjectProblem::Manifest {
            error: ManifestError::Unsupported { .. },
            ..
        }]
    ));
}

#[test]
fn a_manifest_that_is_not_a_regular_file_is_reported_without_being_opened() {
    let repo = TestRepo::with_commit(&[("README.md", "# r\n")]);
    // A FIFO named `package.json` would block a plain read forever; a symlink to a device would
    // be read endlessly.
    nix::unistd::mkfifo(
        &repo.path().join("package.json"),
        nix::sys::stat::Mode::from_bits_truncate(0o600),
    )
    .unwrap();
    std::os::unix::fs::symlink("/dev/zero", repo.path().join("Cargo.toml")).unwrap();
    for manifest in ["package.json", "Cargo.toml"] {
        match manifest_name(repo.path(), manifest) {
            Err(ManifestError::Read { message, .. }) => {
                assert!(
                    message.contains("not a regular file"),
                    "{manifest}: {message}"
                );
            }
            other => panic!("{manifest}: expected a read error, got {other:?}"),
        }
    }
}

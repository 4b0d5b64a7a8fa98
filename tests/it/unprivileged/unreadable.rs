//! Files and directories the user cannot read are named, never silently dropped: a config file
//! (policy, rule, settings) or config directory, a file or directory `check` was asked about, and
//! a worktree file a capture fingerprints. Root reads all of them whatever their mode.

use super::unprivileged;
use crate::support::cli::cli;
use crate::support::{ConfigRoot, TestRepo};
use pi_native_hooks_analysis::load_source;
use pi_native_hooks_cli::ExitStatus;
use pi_native_hooks_config::ConfigSource;
use pi_native_hooks_config::settings::{Settings, SettingsProblem, load_settings_at};
use pi_native_hooks_config::trust::TrustError;
use pi_native_hooks_doctor::root_report;
use pi_native_hooks_policy::PolicyRegistry;
use pi_native_hooks_workspace::Content;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

const DENIED: &str = "Permission denied";

const RULE: &str = "id: no-bang\nlanguage: TypeScript\nseverity: warning\nmessage: no bang\nrule:\n  kind: non_null_expression\n";

const POLICY: &str = "const ID = \"p\";\nconst KIND = \"diagnostic\";\nconst ANALYZER = \"ast-grep\";\nconst RULES = [\"no-bang\"];\nfn evaluate(snapshot) { [] }\n";

/// Sets `path`'s mode to `mode` for the rest of the scope, then back to `restore`, so the
/// temporary directory around it can still be removed when a test fails half-way.
struct Mode<'a> {
    path: &'a Path,
    restore: u32,
}

impl<'a> Mode<'a> {
    fn set(path: &'a Path, mode: u32, restore: u32) -> Self {
        fs::set_permissions(path, fs::Permissions::from_mode(mode)).expect("chmod");
        Self { path, restore }
    }
}

impl Drop for Mode<'_> {
    fn drop(&mut self) {
        // Nothing to report from a drop: a failure leaves a directory the runner removes.
        let _ = fs::set_permissions(self.path, fs::Permissions::from_mode(self.restore));
    }
}

fn config_root() -> ConfigRoot {
    ConfigRoot::builder()
        .file("sgconfig.yml", "ruleDirs:\n  - rules\n")
        .file("rules/no-bang.yml", RULE)
        .policy("p.rhai", POLICY)
        .file("settings.toml", "[verification]\ncontinuation_cap = 2\n")
        .build()
}

/// `error` is the operating system's refusal to open `path`.
fn is_denied(error: &TrustError, path: &Path) -> bool {
    matches!(error, TrustError::Io { path: p, error } if p == path && error.contains(DENIED))
}

#[test]
#[ignore = "runs as an unprivileged user from scripts/test-unprivileged"]
fn an_unreadable_policy_is_a_named_problem_and_doctor_reports_it() {
    if !unprivileged() {
        return;
    }
    let root = config_root();
    let policy = root.path().join("policies/p.rhai");
    {
        let _locked = Mode::set(&policy, 0o000, 0o600);
        let registry = PolicyRegistry::load(root.path());
        assert!(registry.policies().is_empty());
        let problems: Vec<String> = registry
            .problems()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].contains(&policy.display().to_string()) && problems[0].contains(DENIED),
            "{problems:?}"
        );
        let report = root_report(root.path());
        assert!(!report.healthy());
        let (status, stdout, stderr) = cli(
            root.path(),
            &["doctor", "--config", root.path().to_str().expect("utf-8")],
        );
        assert_eq!(
            status,
            ExitStatus::Findings,
            "a root problem\n{stdout}{stderr}"
        );
        assert!(
            stdout.lines().any(|line| line.contains("failed:")
                && line.contains(&policy.display().to_string())
                && line.contains(DENIED)),
            "{stdout}{stderr}"
        );
    }
    assert_eq!(PolicyRegistry::load(root.path()).policies().len(), 1);
}

#[test]
#[ignore = "runs as an unprivileged user from scripts/test-unprivileged"]
fn an_unreadable_policies_directory_is_named() {
    if !unprivileged() {
        return;
    }
    let root = config_root();
    let policies = root.path().join("policies");
    let _locked = Mode::set(&policies, 0o000, 0o700);
    let registry = PolicyRegistry::load(root.path());
    assert!(registry.policies().is_empty());
    let said = format!("{:?} {:?}", registry.source(), registry.problems());
    assert!(
        said.contains(&policies.display().to_string()) && said.contains(DENIED),
        "{said}"
    );
}

#[test]
#[ignore = "runs as an unprivileged user from scripts/test-unprivileged"]
fn an_unreadable_rule_file_or_rule_directory_is_named() {
    if !unprivileged() {
        return;
    }
    let root = config_root();
    let source = ConfigSource::Root(root.path().to_path_buf());
    for (path, mode) in [
        (root.path().join("rules/no-bang.yml"), 0o600),
        (root.path().join("rules"), 0o700),
        (root.path().join("sgconfig.yml"), 0o600),
    ] {
        let _locked = Mode::set(&path, 0o000, mode);
        let (rules, errors) = load_source(&source);
        assert!(
            rules.ids().is_empty(),
            "{}: {:?}",
            path.display(),
            rules.ids()
        );
        assert_eq!(errors.len(), 1, "{}: {errors:?}", path.display());
        let message = errors[0].to_string();
        assert!(
            message.contains(&path.display().to_string()) && message.contains(DENIED),
            "{message}"
        );
    }
    let (rules, errors) = load_source(&source);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(rules.ids(), ["no-bang"]);
}

#[test]
#[ignore = "runs as an unprivileged user from scripts/test-unprivileged"]
fn an_unreadable_settings_file_is_a_named_problem_and_the_defaults_hold() {
    if !unprivileged() {
        return;
    }
    let root = config_root();
    let file = root.path().join("settings.toml");
    let _locked = Mode::set(&file, 0o000, 0o600);
    let loaded = load_settings_at(root.path()).expect("the root exists");
    assert_eq!(loaded.settings, Settings::default());
    assert!(
        matches!(loaded.problems.as_slice(), [SettingsProblem::Trust(error)] if is_denied(error, &file)),
        "{:?}",
        loaded.problems
    );
}

#[test]
#[ignore = "runs as an unprivileged user from scripts/test-unprivileged"]
fn check_names_the_files_and_directories_it_cannot_read() {
    if !unprivileged() {
        return;
    }
    let repo = TestRepo::with_commit(&[("src/ok.ts", "export const a = 1;\n")]);
    repo.write(
        "src/locked.ts",
        "declare const u: { n?: string };\nexport const b = u!.n;\n",
    );
    repo.write("src/closed/inner.ts", "export const c = 1;\n");
    let locked = repo.abs("src/locked.ts");
    let _file = Mode::set(&locked, 0o000, 0o644);

    // As a changed file since HEAD, as a file below a given directory, and given by name.
    for args in [
        &["check", "--builtin"][..],
        &["check", "--builtin", "src"],
        &["check", "--builtin", "src/locked.ts"],
    ] {
        let (status, stdout, stderr) = cli(repo.path(), args);
        assert_eq!(
            status,
            ExitStatus::Error,
            "{args:?}: what was not analyzed fails the check\n{stdout}{stderr}"
        );
        let line = stderr
            .lines()
            .find(|line| line.contains("src/locked.ts"))
            .unwrap_or_else(|| panic!("{args:?}: src/locked.ts is not named\n{stderr}"));
        assert!(line.contains(DENIED), "{args:?}: {line}");
    }

    // A directory that cannot be listed is named too, whether walked or met by the status.
    let closed = repo.abs("src/closed");
    let _dir = Mode::set(&closed, 0o000, 0o755);
    for args in [&["check", "--builtin", "src"][..], &["check", "--builtin"]] {
        let (status, stdout, stderr) = cli(repo.path(), args);
        assert_eq!(status, ExitStatus::Error, "{args:?}\n{stdout}{stderr}");
        assert!(
            stderr.lines().any(|line| line.contains("src/closed")),
            "{args:?}: src/closed is not named\n{stderr}"
        );
    }
}

#[test]
#[ignore = "runs as an unprivileged user from scripts/test-unprivileged"]
fn a_capture_records_an_unreadable_file_and_sees_it_change_once_readable() {
    if !unprivileged() {
        return;
    }
    let repo = TestRepo::with_commit(&[("a.txt", "a\n")]);
    repo.write("locked.txt", "secret\n");
    let locked = repo.abs("locked.txt");
    let before = {
        let _locked = Mode::set(&locked, 0o000, 0o644);
        let snapshot = repo.assert_matches_git();
        assert_eq!(
            snapshot.entry("locked.txt").map(|entry| &entry.content),
            Some(&Content::Other),
            "an unreadable file is recorded, not read and not a failure"
        );
        snapshot
    };
    let after = repo.assert_matches_git();
    assert!(matches!(
        after.entry("locked.txt").map(|entry| &entry.content),
        Some(Content::File { .. })
    ));
    assert!(
        pi_native_hooks_workspace::WorkspaceSnapshot::changed_paths(&before, &after)
            .expect("changed paths")
            .contains("locked.txt")
    );
}

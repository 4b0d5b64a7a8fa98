//! `init` lays down a working, trusted config root without ever overwriting, and `doctor`
//! reports its health.

#![expect(clippy::unwrap_used, reason = "test helpers: a panic is a failed test")]

use pi_native_hooks_analysis::load_source;
use pi_native_hooks_analysis::{Analyzer, ScanLimits};
use pi_native_hooks_cli::fixtures::run_fixtures;
use pi_native_hooks_config::ConfigSource;
use pi_native_hooks_doctor::{PolicyHealth, root_report};
use pi_native_hooks_policy::PolicyRegistry;
use pi_native_hooks_policy::{InitContent, InitEntry, InitPlan};
use std::fs;
use std::os::unix::fs::PermissionsExt;

fn mode(path: &std::path::Path) -> u32 {
    fs::symlink_metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn dry_run_lists_everything_and_creates_nothing() {
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join(".config/pi-native-hooks");
    let plan = InitPlan::new(&root);
    let listed: Vec<_> = plan
        .to_create()
        .map(|e| e.path.strip_prefix(home.path()).unwrap().to_owned())
        .collect();
    assert_eq!(
        listed[0],
        std::path::Path::new(".config"),
        "missing ancestors come first"
    );
    for expected in [
        ".config/pi-native-hooks/sgconfig.yml",
        ".config/pi-native-hooks/ast-grep/rules/typescript-no-dynamic-import-ts.yml",
        ".config/pi-native-hooks/policies/typescript-no-non-null-assertion.rhai",
        ".config/pi-native-hooks/policies/tests/typescript-no-non-null-assertion.yml",
    ] {
        assert!(
            listed.iter().any(|p| p == std::path::Path::new(expected)),
            "{expected} in {listed:?}"
        );
    }
    assert!(
        !home.path().join(".config").exists(),
        "planning creates nothing"
    );
}

#[test]
fn init_creates_a_working_private_root_and_never_overwrites() {
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join(".config/pi-native-hooks");
    let created = InitPlan::new(&root).apply().unwrap();
    assert_eq!(
        created.len(),
        InitPlan::new(&home.path().join("other"))
            .to_create()
            .count()
            + 1
    );
    assert_eq!(mode(&root), 0o700);
    assert_eq!(mode(&root.join("policies")), 0o700);
    assert_eq!(mode(&root.join("sgconfig.yml")), 0o600);
    assert_eq!(
        mode(&root.join("policies/typescript-no-dynamic-import.rhai")),
        0o600
    );

    // The new root works end to end: rules load, policies load, fixtures pass, doctor is happy.
    let (rules, errors) = load_source(&ConfigSource::Root(root.clone()));
    assert!(errors.is_empty(), "{errors:?}");
    let registry = PolicyRegistry::load(&root);
    assert!(registry.problems().is_empty(), "{:?}", registry.problems());
    let mut analyzer = Analyzer::new("ast-grep:personal", rules, ScanLimits::default(), 1).unwrap();
    let report = run_fixtures(&root, &registry, &mut analyzer, false);
    assert!(report.passed(), "{report:#?}");
    let health = root_report(&root);
    assert!(health.healthy(), "{health:#?}");
    assert_eq!(health.rule_files, 24);
    assert_eq!(health.digest.len(), 64);

    // A second run creates nothing and keeps the user's edits.
    fs::write(
        root.join("sgconfig.yml"),
        "ruleDirs: [ast-grep/rules]\n# mine\n",
    )
    .unwrap();
    let plan = InitPlan::new(&root);
    assert_eq!(plan.to_create().count(), 0);
    assert!(plan.apply().unwrap().is_empty());
    assert!(
        fs::read_to_string(root.join("sgconfig.yml"))
            .unwrap()
            .contains("# mine")
    );
}

#[test]
fn a_failing_step_removes_what_was_created() {
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join("pi-native-hooks");
    let mut plan = InitPlan::new(&root);
    plan.entries.push(InitEntry {
        path: root.join("no-such-dir/file"),
        content: InitContent::File("x".to_owned()),
        exists: false,
    });
    let error = plan.apply().unwrap_err();
    assert!(error.to_string().contains("no-such-dir/file"), "{error}");
    assert!(!root.exists(), "everything created was removed");

    // Pre-existing entries survive a rollback.
    fs::create_dir(&root).unwrap();
    fs::write(root.join("sgconfig.yml"), "mine").unwrap();
    let mut plan = InitPlan::new(&root);
    plan.entries.push(InitEntry {
        path: root.join("no-such-dir/file"),
        content: InitContent::File("x".to_owned()),
        exists: false,
    });
    assert!(plan.apply().is_err());
    assert_eq!(
        fs::read_to_string(root.join("sgconfig.yml")).unwrap(),
        "mine"
    );
    assert!(!root.join("policies").exists());
}

#[test]
fn doctor_reports_absent_roots_and_untrusted_files() {
    let home = tempfile::tempdir().unwrap();
    let absent = root_report(&home.path().join("missing"));
    assert!(!absent.healthy());
    assert!(
        absent
            .root_status
            .unwrap_err()
            .to_string()
            .contains("pi-native-hooks init")
    );

    let root = home.path().join("root");
    InitPlan::new(&root).apply().unwrap();
    let policy = root.join("policies/typescript-no-dynamic-import.rhai");
    fs::set_permissions(&policy, fs::Permissions::from_mode(0o666)).unwrap();
    let rule = root.join("ast-grep/rules/typescript-no-dynamic-import-ts.yml");
    fs::set_permissions(&rule, fs::Permissions::from_mode(0o622)).unwrap();
    let report = root_report(&root);
    assert!(!report.healthy());
    assert!(
        report
            .rule_problems
            .iter()
            .any(|p| p.contains("typescript-no-dynamic-import-ts.yml") && p.contains("0622")),
        "{report:#?}"
    );
    let failed: Vec<_> = report
        .policies
        .iter()
        .filter(|(_, h)| matches!(h, PolicyHealth::Failed(_)))
        .collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0].0, policy);
    assert_eq!(report.policies.len(), 13);
}

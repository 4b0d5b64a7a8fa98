//! The status model behind `/hooks-status`: config health, policies with digests and load
//! errors, the project, the workspace revision and each requirement's state.

use crate::support::gate::{DEMO_POLICY, Session, exit, success};
use crate::support::{ConfigRoot, TestRepo};
use pi_native_hooks_config::settings::{LoadedSettings, Settings};
use pi_native_hooks_session::{
    ConfigHealth, ConfigStatus, HooksStatus, SettingsStatus, VerificationStatus,
};
use pi_native_hooks_verification::{RequirementState, SettleDecision};

#[test]
fn config_status_lists_policies_with_digests_and_load_errors() {
    let config =
        ConfigRoot::with_policies(&[("demo.rhai", DEMO_POLICY), ("broken.rhai", "const ID = ;")]);
    let registry = config.registry();
    let status = ConfigStatus::of(&registry);

    assert!(matches!(status.health, ConfigHealth::Active { .. }));
    assert_eq!(status.guidance, None);
    assert_eq!(status.policies.len(), 1);
    assert_eq!(status.policies[0].id, "demo-verification");
    assert_eq!(status.policies[0].digest.len(), 64);
    assert_ne!(status.policies[0].digest, status.registry_digest);
    assert_eq!(status.load_errors.len(), 1);
    assert!(status.load_errors[0].path.ends_with("broken.rhai"));
}

#[test]
fn verification_status_reports_project_revision_and_requirements() {
    let mut session = Session::demo();
    session.edit("src/a.ts", "export const a = 2;\n");
    session.run("npm test", exit(2));
    session.run("npm test", success());
    assert_eq!(session.settle(), SettleDecision::Settle);

    let status = VerificationStatus::of(&session.gate);
    assert_eq!(status.project_root.as_deref(), Some(session.repo.path()));
    assert_eq!(status.projects.len(), 1);
    assert_eq!(status.projects[0].project.name, "demo");
    assert_eq!(status.workspace.revision, 1);
    assert!(status.workspace.fingerprint.is_some());
    assert_eq!(status.workspace.unknown, None);
    let test = &status.requirements[0];
    assert_eq!(test.state, RequirementState::Passed);
    assert_eq!(test.required_revision, Some(1));
    assert!(test.last_success.is_some());
    assert_eq!(
        test.last_failure.as_ref().and_then(|f| f.exit_code),
        Some(2)
    );
    assert_eq!(status.requirements[1].state, RequirementState::Inactive);
    assert!(!status.gate.exhausted);
}

#[test]
fn hooks_status_serializes_for_the_binding() {
    let session = Session::start(TestRepo::demo(), ConfigRoot::demo(), Vec::new());
    let status = HooksStatus {
        config: ConfigStatus::of(&session.config.registry()),
        settings: SettingsStatus::of(&LoadedSettings::builtin(), &Settings::default()),
        verification: VerificationStatus::of(&session.gate),
        analyzers: Vec::new(),
        coordinator_failures: vec!["wave 3: timed out".to_owned()],
        state_warnings: Vec::new(),
    };
    let json = serde_json::to_value(&status).expect("serializes");
    assert_eq!(json["config"]["health"]["kind"], "active");
    assert_eq!(json["verification"]["requirements"][0]["state"], "inactive");
    assert_eq!(json["coordinator_failures"][0], "wave 3: timed out");
    assert_eq!(json["settings"]["continuation_cap"], 8);
    assert_eq!(json["settings"]["wave_timeout_ms"], 10_000);
}

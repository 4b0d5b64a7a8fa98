//! Projects below the repository root: `PROJECT.dir`, a requirement's `dir`, `affects` paths
//! relative to the project directory, evidence only from the requirement's directory (or its
//! `cd <dir> && <command>` form), and two packages that arm and pass independently.

use crate::support::ConfigRoot;
use crate::support::gate::{continuation_text, exit, success};
use crate::support::monorepo::{Mono, workspace};
use pi_native_hooks_verification::{
    RejectionReason, RequirementState, SettleDecision, TrackedRequirement, cd_form,
};
use std::path::{Path, PathBuf};

/// A package policy: `command` for `.ts` files of `packages/<pkg>`; `extra` adds fields to the
/// requirement. Its predicate accepts only paths relative to the package (`src/…`).
fn package_policy(pkg: &str, command: &str, extra: &str) -> String {
    format!(
        r#"
const ID = "{pkg}-tests";
const KIND = "verification";
const PROJECT = #{{ dir: "packages/{pkg}", manifest: "package.json", name: "{pkg}" }};
const REQUIREMENTS = [ #{{ id: "test", command: "{command}", affects: "code"{extra} }} ];
fn code(path) {{ path.starts_with("src/") && path.ends_with(".ts") }}
"#
    )
}

/// Lookups by policy: each project here has a policy of its own with one requirement.
trait ByPolicy {
    fn requirement(&self, policy: &str) -> &TrackedRequirement;

    fn state(&self, policy: &str) -> RequirementState {
        self.requirement(policy).state()
    }
}

impl ByPolicy for Mono {
    fn requirement(&self, policy: &str) -> &TrackedRequirement {
        self.gate
            .requirements()
            .iter()
            .find(|requirement| requirement.key.policy == policy)
            .expect("tracked requirement")
    }
}

/// Policies `a-tests` (`npm test`) and `b-tests` (`npm run test:b`) for packages `a` and `b`.
fn two_packages() -> ConfigRoot {
    ConfigRoot::with_policies(&[
        ("a.rhai", &package_policy("a", "npm test", "")),
        ("b.rhai", &package_policy("b", "npm run test:b", "")),
    ])
}

#[test]
fn a_project_directory_matches_its_own_manifest_from_anywhere_in_the_repository() {
    let config = ConfigRoot::with_policies(&[
        ("a.rhai", &package_policy("a", "npm test", "")),
        ("b.rhai", &package_policy("b", "npm test", "")),
        // The manifest in packages/b declares `b`, not `c`: no match.
        (
            "c.rhai",
            &package_policy("b", "npm test", "").replace(r#"name: "b""#, r#"name: "c""#),
        ),
    ]);
    let mono = Mono::start(workspace(), &config, "packages/a");
    let matched: Vec<(String, PathBuf)> = mono
        .gate
        .projects()
        .matched
        .iter()
        .map(|m| (m.identity.name.clone(), m.identity.root.clone()))
        .collect();
    assert_eq!(
        matched,
        [
            ("a".to_owned(), mono.dir("packages/a")),
            ("b".to_owned(), mono.dir("packages/b")),
        ]
    );
    assert_eq!(
        mono.requirement("a-tests").run_dir(),
        mono.dir("packages/a")
    );
}

#[test]
fn affects_sees_paths_relative_to_the_project_directory_and_nothing_outside_it() {
    let mut mono = Mono::start(workspace(), &two_packages(), "");
    // Root `src/root.ts` would match `src/*.ts` as a root-relative path: it is outside both
    // packages, so it arms neither.
    mono.edit("src/root.ts", "export const r = 2;\n");
    assert_eq!(mono.state("a-tests"), RequirementState::Inactive);
    assert_eq!(mono.state("b-tests"), RequirementState::Inactive);
    // `packages/b/src/b.ts` is `src/b.ts` to b's predicate (which requires the `src/` prefix).
    mono.edit("packages/b/src/b.ts", "export const b = 2;\n");
    assert_eq!(mono.state("a-tests"), RequirementState::Inactive);
    assert_eq!(mono.state("b-tests"), RequirementState::NotRun);
}

#[test]
fn a_change_in_b_arms_only_b_and_the_continuation_names_its_directory_and_cd_form() {
    let mut mono = Mono::start(workspace(), &two_packages(), "packages/a");
    mono.edit("packages/b/src/b.ts", "export const b = 2;\n");
    assert_eq!(mono.state("a-tests"), RequirementState::Inactive);
    assert_eq!(mono.state("b-tests"), RequirementState::NotRun);

    let b = mono.dir("packages/b");
    let expected = format!("cd {} && npm run test:b", b.display());
    assert_eq!(
        cd_form(&b, "npm run test:b").as_deref(),
        Some(expected.as_str())
    );
    let decision = mono.settle();
    let text = continuation_text(&decision);
    assert!(
        text.contains(&format!(
            "- `npm run test:b` in `packages/b`: run `{expected}` — not run"
        )),
        "{text}"
    );
    assert!(text.contains("`cd` beyond the form shown"), "{text}");
    // Only b's check is listed: no `from <dir>` for plain commands.
    assert!(!text.contains(", from "), "{text}");
}

#[test]
fn the_plain_command_in_another_directory_is_rejected_as_the_wrong_directory() {
    let mut mono = Mono::start(workspace(), &two_packages(), "packages/a");
    mono.edit("packages/b/src/b.ts", "export const b = 2;\n");
    mono.run("npm run test:b", success());
    assert_eq!(mono.state("b-tests"), RequirementState::NotRun);
    assert_eq!(
        mono.requirement("b-tests")
            .last_rejection
            .as_ref()
            .map(|rejection| &rejection.reason),
        Some(&RejectionReason::WrongDirectory {
            cwd: mono.dir("packages/a")
        })
    );
}

#[test]
fn the_cd_form_counts_from_another_directory_and_other_shell_forms_do_not() {
    let mut mono = Mono::start(workspace(), &two_packages(), "packages/a");
    mono.edit("packages/b/src/b.ts", "export const b = 2;\n");
    let b = mono.dir("packages/b");
    for command in [
        "cd ../b && npm run test:b".to_owned(),
        format!("cd {}/ && npm run test:b", b.display()),
        format!("cd {} ; npm run test:b", b.display()),
        format!("cd {}  && npm run test:b", b.display()),
        format!("cd {} && npm run test:b -- --watch", b.display()),
        format!("(cd {} && npm run test:b)", b.display()),
    ] {
        mono.run(&command, success());
        assert_eq!(mono.state("b-tests"), RequirementState::NotRun, "{command}");
        assert_eq!(
            mono.requirement("b-tests")
                .last_rejection
                .as_ref()
                .map(|rejection| &rejection.reason),
            Some(&RejectionReason::NotExactCommand {
                expected: "npm run test:b".to_owned(),
                dir: b.clone(),
            }),
            "{command} is a near miss: the status names the command that counts"
        );
    }
    // A failing run in the cd form is a counted failure.
    mono.run(&format!("cd {} && npm run test:b", b.display()), exit(1));
    assert_eq!(mono.state("b-tests"), RequirementState::Failed);
    mono.run(&format!("cd {} && npm run test:b", b.display()), success());
    assert_eq!(mono.state("b-tests"), RequirementState::Passed);
    assert_eq!(mono.settle(), SettleDecision::Settle);
}

#[test]
fn the_cd_form_does_not_count_when_the_session_is_already_in_the_directory() {
    let mut mono = Mono::start(workspace(), &two_packages(), "packages/b");
    mono.edit("packages/b/src/b.ts", "export const b = 2;\n");
    let b = mono.dir("packages/b");
    mono.run(&format!("cd {} && npm run test:b", b.display()), success());
    assert_eq!(mono.state("b-tests"), RequirementState::NotRun);
    mono.run("npm run test:b", success());
    assert_eq!(mono.state("b-tests"), RequirementState::Passed);
}

#[test]
fn two_packages_with_different_commands_arm_and_pass_independently() {
    let mut mono = Mono::start(workspace(), &two_packages(), "");
    mono.edit("packages/a/src/a.ts", "export const a = 2;\n");
    mono.edit("packages/b/src/b.ts", "export const b = 2;\n");
    assert_eq!(mono.state("a-tests"), RequirementState::NotRun);
    assert_eq!(mono.state("b-tests"), RequirementState::NotRun);

    let (a, b) = (mono.dir("packages/a"), mono.dir("packages/b"));
    mono.run(&format!("cd {} && npm test", a.display()), success());
    assert_eq!(mono.state("a-tests"), RequirementState::Passed);
    assert_eq!(mono.state("b-tests"), RequirementState::NotRun);
    // a's command does not count for b, nor b's for a.
    mono.run(&format!("cd {} && npm test", b.display()), success());
    assert_eq!(mono.state("b-tests"), RequirementState::NotRun);
    mono.run(&format!("cd {} && npm run test:b", b.display()), success());
    assert_eq!(mono.state("b-tests"), RequirementState::Passed);
    // A later change in a stales a only.
    mono.edit("packages/a/src/a.ts", "export const a = 3;\n");
    assert_eq!(mono.state("a-tests"), RequirementState::Stale);
    assert_eq!(mono.state("b-tests"), RequirementState::Passed);
}

#[test]
fn a_requirement_dir_is_relative_to_the_project_directory() {
    let config = ConfigRoot::with_policies(&[(
        "a.rhai",
        &package_policy("a", "npm run e2e", r#", dir: "e2e""#),
    )]);
    let repo = workspace();
    repo.write("packages/a/e2e/.keep", "");
    let mut mono = Mono::start(repo, &config, "packages/a/e2e");
    assert_eq!(
        mono.requirement("a-tests").run_dir(),
        mono.dir("packages/a/e2e")
    );
    mono.edit("packages/a/src/a.ts", "export const a = 2;\n");
    assert_eq!(mono.state("a-tests"), RequirementState::NotRun);
    mono.run("npm run e2e", success());
    assert_eq!(mono.state("a-tests"), RequirementState::Passed);
}

#[test]
fn a_directory_that_leaves_the_root_or_is_not_normal_does_not_load() {
    for dir in ["../x", "/abs", "a//b", "a/", "./a", "a/../b", "a\\b", ""] {
        let script = package_policy("a", "npm test", "")
            .replace(r#"dir: "packages/a""#, &format!("dir: {dir:?}"));
        let config = ConfigRoot::with_policies(&[("a.rhai", &script)]);
        let registry = config.registry();
        assert_eq!(registry.verification_policies().count(), 0, "{dir:?}");
        let problems: Vec<String> = registry
            .problems()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert!(
            problems.iter().any(|p| p.contains("`PROJECT.dir`")),
            "{dir:?}: {problems:?}"
        );
    }
}

#[test]
fn a_root_project_still_matches_and_sees_root_relative_paths() {
    let policy = r#"
const ID = "root-tests";
const KIND = "verification";
const PROJECT = #{ manifest: "package.json", name: "root" };
const REQUIREMENTS = [ #{ id: "test", command: "npm test", affects: "code" } ];
fn code(path) { path == "packages/b/src/b.ts" }
"#;
    let config = ConfigRoot::with_policies(&[("root.rhai", policy)]);
    let mut mono = Mono::start(workspace(), &config, "packages/a");
    assert_eq!(mono.requirement("root-tests").run_dir(), mono.repo.path());
    mono.edit("packages/b/src/b.ts", "export const b = 2;\n");
    assert_eq!(mono.state("root-tests"), RequirementState::NotRun);
    let root: &Path = mono.repo.path();
    let command = format!("cd {} && npm test", root.display());
    mono.run(&command, success());
    assert_eq!(mono.state("root-tests"), RequirementState::Passed);
}

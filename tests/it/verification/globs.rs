//! `PROJECT.manifests`: a glob of manifest paths makes one project per match, each with its own
//! requirements keyed by its directory; a package added later joins at the wave that adds its
//! manifest; a glob that matches nothing, a symlinked package and a package whose directory name
//! cannot be written exactly are named in the status, never followed or skipped silently.

use crate::support::gate::{continuation_text, success, write_call};
use crate::support::monorepo::{Mono, workspace};
use crate::support::{ConfigRoot, TestRepo};
use pi_native_hooks_base::RepoPath;
use pi_native_hooks_verification::{
    ProjectProblem, RejectionReason, RequirementKey, RequirementState, SettleDecision,
    TrackedRequirement, cd_form,
};

/// One policy for every `packages/*/package.json`: `npm test` for `.ts` files under `src/` of
/// each package (paths relative to the package).
const GLOB_POLICY: &str = r#"
const ID = "pkg-tests";
const KIND = "verification";
const PROJECT = #{ manifests: "packages/*/package.json" };
const REQUIREMENTS = [ #{ id: "test", command: "npm test", affects: "code" } ];
fn code(path) { path.starts_with("src/") && path.ends_with(".ts") }
"#;

/// The gate over `repo` with `policy` as its only policy, for a session started in `cwd`.
fn start(repo: TestRepo, policy: &str, cwd: &str) -> Mono {
    let config = ConfigRoot::with_policies(&[("pkg.rhai", policy)]);
    Mono::start(repo, &config, cwd)
}

/// Lookups by package: every requirement here is the one policy's, in its `packages/<pkg>`.
trait ByPackage {
    /// The requirement of the package in `packages/<pkg>`.
    fn package(&self, pkg: &str) -> &TrackedRequirement;

    fn state(&self, pkg: &str) -> RequirementState {
        self.package(pkg).state()
    }

    /// The directories of the tracked requirements, sorted.
    fn instances(&self) -> Vec<String>;

    fn problems(&self) -> Vec<String>;
}

impl ByPackage for Mono {
    fn package(&self, pkg: &str) -> &TrackedRequirement {
        let dir = RepoPath::new(format!("packages/{pkg}")).expect("a repository path");
        self.gate
            .requirements()
            .iter()
            .find(|requirement| requirement.key.instance.as_ref() == Some(&dir))
            .unwrap_or_else(|| panic!("no requirement for packages/{pkg}"))
    }

    fn instances(&self) -> Vec<String> {
        let mut dirs: Vec<String> = self
            .gate
            .requirements()
            .iter()
            .map(|requirement| {
                requirement
                    .key
                    .instance
                    .as_ref()
                    .map_or_else(String::new, ToString::to_string)
            })
            .collect();
        dirs.sort();
        dirs
    }

    fn problems(&self) -> Vec<String> {
        self.gate
            .projects()
            .problems
            .iter()
            .map(ToString::to_string)
            .collect()
    }
}

#[test]
fn two_packages_of_one_glob_arm_and_pass_independently() {
    let mut mono = start(workspace(), GLOB_POLICY, "packages/a");
    assert_eq!(mono.instances(), ["packages/a", "packages/b"]);
    assert_eq!(mono.problems(), Vec::<String>::new());
    let b = mono.dir("packages/b");
    assert_eq!(mono.package("b").project.root, b);
    assert_eq!(mono.package("b").project.name, "b");

    mono.edit("packages/b/src/b.ts", "export const b = 2;\n");
    assert_eq!(mono.state("b"), RequirementState::NotRun);
    assert_eq!(mono.state("a"), RequirementState::Inactive);
    let decision = mono.settle();
    let text = continuation_text(&decision);
    let run_as = cd_form(&b, "npm test").expect("a cd form");
    assert!(
        text.contains(&format!("- `npm test` in `packages/b`: run `{run_as}`")),
        "{text}"
    );
    assert!(text.contains("Outstanding for project `b`"), "{text}");

    // `npm test` in packages/a is a's command, not b's: b names the directory.
    mono.run("npm test", success());
    assert_eq!(mono.state("b"), RequirementState::NotRun);
    assert_eq!(
        mono.package("b")
            .last_rejection
            .as_ref()
            .map(|rejection| &rejection.reason),
        Some(&RejectionReason::WrongDirectory {
            cwd: mono.cwd.clone()
        })
    );
    mono.run(&run_as, success());
    assert_eq!(mono.state("b"), RequirementState::Passed);
    assert_eq!(mono.state("a"), RequirementState::Inactive);
    assert_eq!(mono.settle(), SettleDecision::Settle);

    mono.edit("packages/a/src/a.ts", "export const a = 2;\n");
    assert_eq!(mono.state("a"), RequirementState::NotRun);
    assert_eq!(
        mono.state("b"),
        RequirementState::Passed,
        "a's change is not b's"
    );
    mono.run("npm test", success());
    assert_eq!(mono.state("a"), RequirementState::Passed);
    assert_eq!(mono.settle(), SettleDecision::Settle);
}

#[test]
fn a_package_added_by_a_wave_joins_and_is_armed_by_it_and_the_others_keep_their_state() {
    let mut mono = start(workspace(), GLOB_POLICY, "");
    mono.edit("packages/a/src/a.ts", "export const a = 2;\n");
    mono.run("cd packages/a && npm test", success());
    let a = mono.dir("packages/a");
    mono.run(&cd_form(&a, "npm test").expect("a cd form"), success());
    assert_eq!(mono.state("a"), RequirementState::Passed);
    let digest = mono.package("a").digest.clone();
    assert!(digest.is_some());

    mono.edit_files(&[
        ("packages/c/package.json", r#"{"name": "c"}"#),
        ("packages/c/src/c.ts", "export const c = 1;\n"),
    ]);
    assert_eq!(mono.instances(), ["packages/a", "packages/b", "packages/c"]);
    assert_eq!(
        mono.state("c"),
        RequirementState::NotRun,
        "armed by the wave that added it"
    );
    assert_eq!(
        mono.state("a"),
        RequirementState::Passed,
        "another package's arrival is no change to a"
    );
    assert_eq!(
        mono.package("a").digest,
        digest,
        "a's digest does not cover c"
    );
    assert_eq!(mono.state("b"), RequirementState::Inactive);

    // The package goes away while armed: kept, detached and unknown, until waived.
    mono.wave(
        vec![write_call(
            "rm",
            "packages/c/package.json",
            &mono.cwd.clone(),
        )],
        |repo| {
            std::fs::remove_dir_all(repo.path().join("packages/c")).expect("remove");
        },
    );
    let c = mono.package("c");
    assert_eq!(c.state(), RequirementState::Unknown);
    assert!(
        c.detached
            .as_deref()
            .is_some_and(|d| d.contains("no longer matches a project in packages/c")),
        "{c:?}"
    );
}

#[test]
fn a_glob_that_matches_nothing_loads_requires_nothing_and_says_so() {
    let policy = GLOB_POLICY.replace("packages/*/package.json", "apps/*/package.json");
    let mut mono = start(workspace(), &policy, "");
    assert_eq!(mono.instances(), Vec::<String>::new());
    assert_eq!(
        mono.problems(),
        [
            "policy `pkg-tests`: `PROJECT.manifests` \"apps/*/package.json\" matched no manifest, so it requires nothing"
        ]
    );
    mono.edit("packages/a/src/a.ts", "export const a = 2;\n");
    assert_eq!(mono.settle(), SettleDecision::Settle);
    // A name filter that no manifest declares matches nothing either.
    let named = GLOB_POLICY.replace(
        "manifests: \"packages/*/package.json\"",
        "manifests: \"packages/*/package.json\", name: \"zzz\"",
    );
    let mono = start(workspace(), &named, "");
    assert_eq!(mono.instances(), Vec::<String>::new());
    assert!(
        mono.problems()[0].contains("declaring the name \"zzz\""),
        "{:?}",
        mono.problems()
    );
}

#[test]
fn a_symlinked_package_is_not_followed_and_bad_directory_names_are_named() {
    use std::os::unix::ffi::OsStrExt;
    let repo = workspace();
    let outside = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir_all(outside.path().join("src")).expect("mkdir");
    std::fs::write(outside.path().join("package.json"), r#"{"name": "evil"}"#).expect("write");
    std::os::unix::fs::symlink(outside.path(), repo.path().join("packages/evil")).expect("symlink");
    let control = repo.path().join("packages/x\u{1b}[31m");
    std::fs::create_dir_all(&control).expect("mkdir");
    std::fs::write(control.join("package.json"), r#"{"name": "x"}"#).expect("write");
    let raw = repo
        .path()
        .join("packages")
        .join(std::ffi::OsStr::from_bytes(b"bad\xff"));
    std::fs::create_dir_all(&raw).expect("mkdir");
    std::fs::write(raw.join("package.json"), r#"{"name": "bad"}"#).expect("write");

    let mut mono = start(repo, GLOB_POLICY, "");
    assert_eq!(mono.instances(), ["packages/a", "packages/b"]);
    let problems = mono.problems();
    let glob = "policy `pkg-tests`: `PROJECT.manifests` \"packages/*/package.json\": ";
    assert_eq!(
        problems,
        [
            format!(
                "{glob}packages/bad\u{fffd}/package.json: the path is not valid UTF-8; rename the directory to make it a project"
            ),
            format!("{glob}packages/evil: a symbolic link, not followed"),
            format!(
                "{glob}packages/x\u{1b}[31m/package.json: the directory name holds a control, Unicode space or invisible character; rename the directory to make it a project"
            ),
        ]
    );
    assert!(matches!(
        &mono.gate.projects().problems[1],
        ProjectProblem::Glob { .. }
    ));
    // A change through the link's target is outside the repository: nothing is armed.
    std::fs::write(outside.path().join("src/e.ts"), "export const e = 1;\n").expect("write");
    mono.edit("src/root.ts", "export const r = 2;\n");
    assert_eq!(mono.settle(), SettleDecision::Settle);
}

#[test]
fn a_one_project_key_serializes_as_before_and_an_instance_key_adds_its_directory() {
    let root = RequirementKey::new("p".into(), "test", None);
    assert_eq!(
        serde_json::to_string(&root).expect("json"),
        r#"{"policy":"p","id":"test"}"#
    );
    let old: RequirementKey =
        serde_json::from_str(r#"{"policy":"p","id":"test"}"#).expect("an old key reads");
    assert_eq!(old, root);
    let instance = RequirementKey::new(
        "p".into(),
        "test",
        Some(RepoPath::new("packages/a").expect("path")),
    );
    assert_eq!(
        serde_json::to_string(&instance).expect("json"),
        r#"{"policy":"p","id":"test","instance":"packages/a"}"#
    );
    assert_eq!(instance.to_string(), "p/test@packages/a");
}

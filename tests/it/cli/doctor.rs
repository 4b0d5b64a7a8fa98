//! `pi-native-hooks doctor` in a repository: after the config root's report, the projects each
//! verification policy matches there (keys and directories as `/hooks-status` names them), every
//! project problem in the session's words, and an exit status that counts them.

#![expect(clippy::unwrap_used, reason = "test helpers: a panic is a failed test")]

use crate::support::TestRepo;
use crate::support::cli::cli;
use crate::support::config_root::ConfigRoot;
use crate::support::snapshot::{assert_snapshot, redact};
use pi_native_hooks_cli::ExitStatus;
use std::path::Path;

/// One project per `package.json` under `packages/`: `npm test` in the package, `npm run e2e` in
/// its `e2e` directory.
const PACKAGES_POLICY: &str = r#"const ID = "pkg-tests";
const KIND = "verification";
const PROJECT = #{ manifests: "packages/*/package.json" };
const REQUIREMENTS = [
    #{ id: "test", command: "npm test", affects: "code" },
    #{ id: "e2e", command: "npm run e2e", affects: "code", dir: "e2e" },
];
fn code(path) { path.ends_with(".ts") }
"#;

/// A glob that matches nothing in a repository without `apps/`.
const APPS_POLICY: &str = r#"const ID = "app-tests";
const KIND = "verification";
const PROJECT = #{ manifests: "apps/*/package.json" };
const REQUIREMENTS = [#{ id: "test", command: "npm test", affects: "code" }];
fn code(path) { path.ends_with(".ts") }
"#;

/// A one-project policy for a project that is not this repository's.
const SHOP_POLICY: &str = r#"const ID = "shop-tests";
const KIND = "verification";
const PROJECT = #{ manifest: "package.json", name: "shop" };
const REQUIREMENTS = [#{ id: "test", command: "npm test", affects: "code" }];
fn code(path) { path.ends_with(".ts") }
"#;

/// The built-in pack (a healthy root) plus `policies`.
fn root_with(policies: &[(&str, &str)]) -> ConfigRoot {
    policies
        .iter()
        .fold(ConfigRoot::builder().builtin(), |builder, (name, text)| {
            builder.policy(name, text)
        })
        .build()
}

/// A workspace with the packages `a` and `b`.
fn workspace() -> TestRepo {
    TestRepo::with_commit(&[
        (
            "package.json",
            r#"{ "name": "workspace", "private": true }"#,
        ),
        ("packages/a/package.json", r#"{ "name": "a" }"#),
        ("packages/a/src/index.ts", "export const a = 1;\n"),
        ("packages/b/package.json", r#"{ "name": "b" }"#),
    ])
}

/// `doctor --config <root> [args]` from `cwd`, with the status, stdout and stderr.
fn doctor(cwd: &Path, root: &ConfigRoot, args: &[&str]) -> (ExitStatus, String, String) {
    let root = root.path().to_str().unwrap();
    let mut all = vec!["doctor", "--config", root];
    all.extend_from_slice(args);
    cli(cwd, &all)
}

/// The report from the `projects:` line on, paths replaced by placeholders.
fn projects_section(stdout: &str, paths: &[(&Path, &str)]) -> String {
    let at = stdout
        .find("\nprojects: ")
        .unwrap_or_else(|| panic!("no projects section:\n{stdout}"));
    redact(&stdout[at + 1..], paths)
}

#[test]
fn doctor_lists_every_project_a_glob_matches_from_a_package_directory() {
    let root = root_with(&[
        ("pkg-tests.rhai", PACKAGES_POLICY),
        ("shop-tests.rhai", SHOP_POLICY),
    ]);
    let repo = workspace();
    // Run from inside a package: the repository around it is matched, not just the package.
    let (status, stdout, stderr) = doctor(&repo.abs("packages/a"), &root, &[]);
    assert_eq!(status, ExitStatus::Clean, "{stdout}{stderr}");
    let section = projects_section(&stdout, &[(repo.path(), "[repo]")]);
    for line in [
        "projects: in the git repository at [repo]\n",
        "  policy `pkg-tests`: 2 projects (`PROJECT.manifests` \"packages/*/package.json\")\n",
        "    `a` (package.json) in packages/a\n",
        "      pkg-tests/test@packages/a: `npm test` in packages/a\n",
        "      pkg-tests/e2e@packages/a: `npm run e2e` in packages/a/e2e\n",
        "    `b` (package.json) in packages/b\n",
        "      pkg-tests/test@packages/b: `npm test` in packages/b\n",
        // A one-project policy for another repository is not a problem here.
        "  policy `shop-tests`: no project here (package.json declaring the name \"shop\" at the repository root)\n",
    ] {
        assert!(section.contains(line), "{line:?} missing:\n{section}");
    }
    assert!(
        !section.contains("problem") && !section.contains("unhealthy"),
        "{section}"
    );
    assert_snapshot!("doctor_glob_projects", section);

    // `-C` names the repository from anywhere, as `check -C` and `init -C` do.
    let elsewhere = tempfile::tempdir().unwrap();
    let repo_arg = repo.path().to_str().unwrap();
    let (status, again, _) = doctor(elsewhere.path(), &root, &["-C", repo_arg]);
    assert_eq!(status, ExitStatus::Clean, "{again}");
    assert_eq!(
        projects_section(&again, &[(repo.path(), "[repo]")]),
        projects_section(&stdout, &[(repo.path(), "[repo]")])
    );
}

#[test]
fn a_one_project_policy_lists_its_project_with_the_root_as_dot() {
    let root = root_with(&[(
        "workspace-tests.rhai",
        &SHOP_POLICY
            .replace("shop-tests", "workspace-tests")
            .replace("\"shop\"", "\"workspace\""),
    )]);
    let repo = workspace();
    let (status, stdout, _) = doctor(repo.path(), &root, &[]);
    assert_eq!(status, ExitStatus::Clean, "{stdout}");
    let section = projects_section(&stdout, &[(repo.path(), "[repo]")]);
    assert!(
        section.contains(
            "  policy `workspace-tests`: 1 project (package.json declaring the name \"workspace\" at the repository root)\n    `workspace` (package.json) in .\n      workspace-tests/test: `npm test` in .\n"
        ),
        "{section}"
    );
}

#[test]
fn a_glob_that_matches_nothing_is_a_problem_and_makes_the_exit_status_findings() {
    let root = root_with(&[
        ("app-tests.rhai", APPS_POLICY),
        ("pkg-tests.rhai", PACKAGES_POLICY),
    ]);
    let repo = workspace();
    let (status, stdout, stderr) = doctor(repo.path(), &root, &[]);
    assert_eq!(status, ExitStatus::Findings, "{stdout}{stderr}");
    let section = projects_section(&stdout, &[(repo.path(), "[repo]")]);
    assert!(
        section.contains(
            "  policy `app-tests`: no project here (`PROJECT.manifests` \"apps/*/package.json\")\n"
        ),
        "{section}"
    );
    // The session's words, the same as `/hooks-doctor`'s `project problem:` line.
    assert!(
        section.contains(
            "  project problem: policy `app-tests`: `PROJECT.manifests` \"apps/*/package.json\" matched no manifest, so it requires nothing\n"
        ),
        "{section}"
    );
    // The root itself is healthy: the last line says the projects are why the status is 1.
    assert!(
        stdout.ends_with("unhealthy (1 project problem, listed above)\n"),
        "{stdout}"
    );
    // The other policy's projects are still listed.
    assert!(section.contains("pkg-tests/test@packages/b"), "{section}");
    assert_snapshot!("doctor_glob_matched_nothing", section);
}

#[test]
fn a_symlinked_package_is_named_and_not_listed_as_a_project() {
    let root = root_with(&[("pkg-tests.rhai", PACKAGES_POLICY)]);
    let repo = workspace();
    // A package directory that is a symlink: it could lead outside the repository.
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("package.json"), r#"{ "name": "c" }"#).unwrap();
    repo.symlink(outside.path(), "packages/c");
    let (status, stdout, _) = doctor(repo.path(), &root, &[]);
    assert_eq!(status, ExitStatus::Findings, "{stdout}");
    let section = projects_section(&stdout, &[(repo.path(), "[repo]")]);
    assert!(
        section.contains(
            "  project problem: policy `pkg-tests`: `PROJECT.manifests` \"packages/*/package.json\": packages/c: a symbolic link, not followed\n"
        ),
        "{section}"
    );
    assert!(section.contains("2 projects"), "a and b only: {section}");
    assert!(!section.contains("`c`"), "{section}");
    assert!(
        stdout.ends_with("unhealthy (1 project problem, listed above)\n"),
        "{stdout}"
    );
}

#[test]
fn names_from_the_repository_are_escaped() {
    let root = root_with(&[("pkg-tests.rhai", PACKAGES_POLICY)]);
    let repo = workspace();
    // A declared name and a symlink name carrying a newline and an ANSI escape.
    repo.write(
        "packages/b/package.json",
        r#"{ "name": "b\n  project problem: none\u001b[2J" }"#,
    );
    repo.symlink("a", "packages/evil\n  ok\u{1b}[31m");
    let (_, stdout, stderr) = doctor(repo.path(), &root, &[]);
    let all = format!("{stdout}{stderr}");
    assert!(!all.contains('\u{1b}'), "a raw escape: {all:?}");
    let section = projects_section(&stdout, &[(repo.path(), "[repo]")]);
    assert!(
        section
            .contains("    `b\\n  project problem: none\\u{1b}[2J` (package.json) in packages/b\n"),
        "{section}"
    );
    assert!(
        section.contains("packages/evil\\n  ok\\u{1b}[31m: a symbolic link, not followed\n"),
        "{section}"
    );
    assert_eq!(
        section
            .lines()
            .filter(|l| l.starts_with("  project problem"))
            .count(),
        1,
        "{section}"
    );
}

#[test]
fn outside_a_repository_projects_are_not_matched_and_the_root_decides_the_status() {
    let root = root_with(&[("pkg-tests.rhai", PACKAGES_POLICY)]);
    let dir = tempfile::tempdir().unwrap();
    let (status, stdout, stderr) = doctor(dir.path(), &root, &[]);
    assert_eq!(status, ExitStatus::Clean, "{stdout}{stderr}");
    let section = projects_section(&stdout, &[(dir.path(), "[dir]")]);
    assert_eq!(
        section,
        "projects: not matched: [dir] is not in a git repository (not a problem: the gate only matches projects in one)\n"
    );

    // A broken policy: the root's own problem sets the status, and the last line says so.
    root.write_policy("broken.rhai", "const ID = ;\n");
    let (status, stdout, _) = doctor(dir.path(), &root, &[]);
    assert_eq!(status, ExitStatus::Findings, "{stdout}");
    assert!(stdout.contains("  failed: "), "{stdout}");
    assert!(
        stdout.ends_with(
            "is not in a git repository (not a problem: the gate only matches projects in one)\nunhealthy (the config root has problems, listed above)\n"
        ),
        "{stdout}"
    );
}

#[test]
fn doctor_help_names_the_repository_flag_and_what_exits_1() {
    let output = crate::support::cli::binary()
        .args(["doctor", "--help"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8_lossy(&output.stdout);
    for part in [
        "-C <DIR>",
        "Exit status",
        "or a project problem",
        "the last line says which",
    ] {
        assert!(text.contains(part), "{part:?} missing: {text}");
    }
}

#[test]
fn a_manifest_that_cannot_be_read_or_parsed_is_a_problem_and_its_siblings_still_match() {
    let root = root_with(&[("pkg-tests.rhai", PACKAGES_POLICY)]);
    let repo = workspace();
    repo.write("packages/b/package.json", "{ \"name\": ");
    // A FIFO where a manifest should be: named, never opened (opening it would block).
    std::fs::create_dir(repo.abs("packages/c")).unwrap();
    nix::unistd::mkfifo(
        &repo.abs("packages/c/package.json"),
        nix::sys::stat::Mode::from_bits_truncate(0o600),
    )
    .unwrap();
    let (status, stdout, _) = doctor(repo.path(), &root, &[]);
    assert_eq!(status, ExitStatus::Findings, "{stdout}");
    let section = projects_section(&stdout, &[(repo.path(), "[repo]")]);
    assert!(
        section.contains("  policy `pkg-tests`: 1 project (")
            && section.contains("pkg-tests/test@packages/a"),
        "{section}"
    );
    let problems: Vec<&str> = section
        .lines()
        .filter(|line| line.starts_with("  project problem: "))
        .collect();
    assert_eq!(problems.len(), 2, "{section}");
    assert!(
        problems[0].contains("[repo]/packages/b/package.json: is not valid JSON"),
        "{section}"
    );
    assert!(
        problems[1].contains("[repo]/packages/c/package.json: cannot be read: ")
            && problems[1].contains("not a regular file"),
        "{section}"
    );
    assert!(
        stdout.ends_with("unhealthy (2 project problems, listed above)\n"),
        "{stdout}"
    );
}

#[test]
fn a_glob_past_its_project_bound_names_the_first_match_left_out() {
    let root = root_with(&[("pkg-tests.rhai", PACKAGES_POLICY)]);
    let repo = TestRepo::init();
    for n in 0..=pi_native_hooks_verification::MAX_GLOB_PROJECTS {
        repo.write(
            &format!("packages/p{n:03}/package.json"),
            format!("{{ \"name\": \"p{n:03}\" }}"),
        );
    }
    let (status, stdout, _) = doctor(repo.path(), &root, &[]);
    assert_eq!(status, ExitStatus::Findings, "{stdout}");
    let section = projects_section(&stdout, &[(repo.path(), "[repo]")]);
    assert!(
        section.contains(&format!(
            "  policy `pkg-tests`: {} projects (",
            pi_native_hooks_verification::MAX_GLOB_PROJECTS
        )),
        "{section}"
    );
    assert!(
        section.contains(
            "  project problem: policy `pkg-tests`: `PROJECT.manifests` \"packages/*/package.json\": more than 64 manifests match; from packages/p064/package.json on they are not projects\n"
        ),
        "{section}"
    );
    assert!(!section.contains("@packages/p064"), "{section}");
}

#[test]
fn a_repository_that_cannot_be_read_is_a_problem_not_an_absent_repository() {
    let root = root_with(&[("pkg-tests.rhai", PACKAGES_POLICY)]);
    let dir = tempfile::tempdir().unwrap();
    crate::support::repo::git(dir.path(), &["init", "-q", "--bare", "bare.git"]);
    let (status, stdout, _) = doctor(dir.path(), &root, &["-C", "bare.git"]);
    assert_eq!(status, ExitStatus::Findings, "{stdout}");
    let section = projects_section(&stdout, &[(dir.path(), "[dir]")]);
    assert!(
        section.starts_with(
            "projects: not matched: the repository around [dir]/bare.git could not be read\n  project problem: the git repository at [dir]/bare.git is bare and has no worktree"
        ),
        "{section}"
    );
    assert!(
        stdout.ends_with("unhealthy (1 project problem, listed above)\n"),
        "{stdout}"
    );
}

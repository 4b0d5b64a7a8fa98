//! The analyzers section: which analyzers the config runs, and the type check for the directory
//! examined — off, no project there, or the project with the TypeScript it has installed and
//! the language server that runs it, or why it has none. It never makes the report unhealthy.

use super::{analyzers_section, doctor_cli};
use crate::support::snapshot::redact;
use crate::support::typescript::{Ts, ts_modules, ts_project, tsserver_bridge, write};
use crate::support::{ConfigRoot, TestRepo};
use pi_native_hooks_cli::ExitStatus;
use pi_native_hooks_doctor::{AnalyzerReport, TypeCheckReport, doctor};

/// The `version` of a pinned TypeScript.
fn version(ts: Ts) -> String {
    let package = std::fs::read_to_string(ts_modules(ts).join("typescript/package.json"))
        .expect("the pinned TypeScript's package.json");
    let package: serde_json::Value = serde_json::from_str(&package).expect("JSON");
    package["version"].as_str().expect("a version").to_owned()
}

/// A repository whose root is a strict TypeScript project with the pinned `ts` installed.
fn ts_repo(ts: Ts) -> TestRepo {
    let repo = TestRepo::with_commit(&[("src/a.ts", "export const a = 1;\n")]);
    ts_project(repo.path(), ts);
    repo
}

#[test]
fn the_type_check_turned_off_in_the_settings_is_named_with_the_file() {
    let root = ConfigRoot::builder()
        .builtin()
        .file("settings.toml", "[typescript]\nenabled = false\n")
        .build();
    let repo = ts_repo(Ts::V7);
    let (status, stdout, stderr) = doctor_cli(root.path(), repo.path(), None);
    assert_eq!(status, ExitStatus::Clean, "{stdout}{stderr}");
    let paths = [(repo.path(), "[repo]"), (root.path(), "[root]")];
    assert_eq!(
        redact(analyzers_section(&stdout), &paths),
        "analyzers:\n  ast-grep:personal: 24 rule(s)\n  typescript:project: off ([typescript] enabled = false in [root]/settings.toml)\n"
    );
    let report = doctor(root.path(), repo.path(), None);
    assert!(
        matches!(
            &report.analyzers,
            AnalyzerReport::Run {
                type_check: TypeCheckReport::Disabled { .. },
                ..
            }
        ),
        "{report:?}"
    );
}

#[test]
fn a_repository_without_a_typescript_project_is_named_and_stays_healthy() {
    let root = ConfigRoot::builtin();
    let repo = TestRepo::with_commit(&[
        ("package.json", "{ \"name\": \"plain\" }\n"),
        ("src/a.ts", "export const a = 1;\n"),
    ]);
    let paths = [(repo.path(), "[repo]")];
    let (status, stdout, _) = doctor_cli(root.path(), repo.path(), None);
    assert_eq!(status, ExitStatus::Clean, "{stdout}");
    assert_eq!(
        redact(analyzers_section(&stdout), &paths),
        "analyzers:\n  ast-grep:personal: 24 rule(s)\n  typescript:project: on; no project at [repo] (no tsconfig.json or jsconfig.json in it): only the files of a project below it are type-checked\n"
    );
    // From a folder below the root the search goes up to the repository root.
    let (status, stdout, _) = doctor_cli(root.path(), &repo.abs("src"), None);
    assert_eq!(status, ExitStatus::Clean, "{stdout}");
    assert!(
        redact(analyzers_section(&stdout), &paths).contains(
            "  typescript:project: on; no project at [repo]/src (no tsconfig.json or jsconfig.json at or above it, up to [repo]): only the files of a project below it are type-checked\n"
        ),
        "{stdout}"
    );
}

#[test]
fn a_project_with_typescript_7_runs_its_native_compiler() {
    let root = ConfigRoot::builtin();
    let repo = ts_repo(Ts::V7);
    // From a folder inside the project: its config is the nearest one above.
    let (status, stdout, _) = doctor_cli(root.path(), &repo.abs("src"), None);
    assert_eq!(status, ExitStatus::Clean, "{stdout}");
    assert_eq!(
        redact(analyzers_section(&stdout), &[(repo.path(), "[repo]")]),
        format!(
            "analyzers:\n  ast-grep:personal: 24 rule(s)\n  typescript:project: on; the project of [repo]/src is [repo]/tsconfig.json: TypeScript {} in [repo]/node_modules/typescript, its native compiler as the language server (`tsc --lsp --stdio`)\n",
            version(Ts::V7)
        )
    );
}

#[test]
fn a_project_with_typescript_5_runs_its_tsserver_through_the_hosts_bridge_or_says_what_is_missing()
{
    let root = ConfigRoot::builtin();
    let repo = ts_repo(Ts::V5);
    let bridge = tsserver_bridge();
    let ts5 = ts_modules(Ts::V5);
    let paths = [(repo.path(), "[repo]"), (ts5.as_path(), "[ts5]")];
    // The npm package's command passes the typescript-language-server it brings, as Pi does.
    let (status, stdout, _) = doctor_cli(root.path(), repo.path(), Some(bridge));
    assert_eq!(status, ExitStatus::Clean, "{stdout}");
    assert!(
        redact(analyzers_section(&stdout), &paths).contains(&format!(
            "  typescript:project: on; the project of [repo] is [repo]/tsconfig.json: TypeScript {} in [repo]/node_modules/typescript, its tsserver through typescript-language-server ([ts5]/typescript-language-server/lib/cli.mjs)\n",
            version(Ts::V5)
        )),
        "{stdout}"
    );
    // Without one, and none installed beside the project, the type check cannot run it: named,
    // and still not a problem of the config.
    let (status, stdout, _) = doctor_cli(root.path(), repo.path(), None);
    assert_eq!(status, ExitStatus::Clean, "{stdout}");
    let section = redact(analyzers_section(&stdout), &paths);
    assert!(
        section.contains(&format!(
            "  typescript:project: on; the project of [repo] is [repo]/tsconfig.json: not type-checked: TypeScript {} is installed; before TypeScript 7 its type errors need typescript-language-server, and none is installed (no node_modules/typescript-language-server/lib/cli.mjs at or above [repo])",
            version(Ts::V5)
        )),
        "{section}"
    );
}

#[test]
fn a_project_without_typescript_installed_says_so() {
    let root = ConfigRoot::builtin();
    let repo = TestRepo::with_commit(&[("src/a.ts", "export const a = 1;\n")]);
    write(repo.path(), "tsconfig.json", "{}\n");
    let (status, stdout, _) = doctor_cli(root.path(), repo.path(), None);
    assert_eq!(status, ExitStatus::Clean, "{stdout}");
    assert!(
        redact(analyzers_section(&stdout), &[(repo.path(), "[repo]")]).contains(
            "  typescript:project: on; the project of [repo] is [repo]/tsconfig.json: not type-checked: no TypeScript installed (no node_modules/typescript at or above [repo])\n"
        ),
        "{stdout}"
    );
}

#[test]
fn the_built_in_pack_and_an_untrusted_root_say_what_runs() {
    let home = tempfile::tempdir().expect("tempdir");
    let repo = TestRepo::with_commit(&[("src/a.ts", "export const a = 1;\n")]);
    // No root: a session runs the built-in pack, and the report starts by saying so.
    let absent = home.path().join("pi-native-hooks");
    let (status, stdout, _) = doctor_cli(&absent, repo.path(), None);
    assert_eq!(
        status,
        ExitStatus::Findings,
        "an absent root is the root's problem"
    );
    assert!(
        stdout.starts_with(
            "in use: the built-in pack (no config root exists; verification is off)\nconfig root: "
        ),
        "{stdout}"
    );
    assert!(
        analyzers_section(&stdout).starts_with("analyzers:\n  ast-grep:builtin: 24 rule(s)\n"),
        "{stdout}"
    );
    // A root that is not trusted runs nothing.
    let root = ConfigRoot::builtin();
    std::fs::set_permissions(
        root.path(),
        <std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(0o777),
    )
    .expect("chmod the root");
    let (status, stdout, _) = doctor_cli(root.path(), repo.path(), None);
    assert_eq!(status, ExitStatus::Findings, "{stdout}");
    assert!(!stdout.starts_with("in use:"), "{stdout}");
    assert_eq!(
        analyzers_section(&stdout),
        "analyzers: none (the config root is not trusted, so nothing runs)\n"
    );
}

#[test]
fn names_from_the_file_system_are_escaped_in_the_analyzers_section() {
    let root = ConfigRoot::builtin();
    let repo = ts_repo(Ts::V7);
    // A project folder whose name carries a newline and an ANSI escape, with its own config.
    let hostile = "pkg\n  typescript:project: off\u{1b}[2J";
    write(repo.path(), &format!("{hostile}/tsconfig.json"), "{}\n");
    write(
        repo.path(),
        &format!("{hostile}/src/b.ts"),
        "export const b = 2;\n",
    );
    let (_, stdout, stderr) = doctor_cli(root.path(), &repo.abs(&format!("{hostile}/src")), None);
    let all = format!("{stdout}{stderr}");
    assert!(!all.contains('\u{1b}'), "a raw escape: {all:?}");
    let section = redact(analyzers_section(&stdout), &[(repo.path(), "[repo]")]);
    let lines: Vec<&str> = section.lines().collect();
    assert_eq!(lines.len(), 3, "one line per analyzer: {section}");
    assert!(
        lines[2].starts_with(
            "  typescript:project: on; the project of [repo]/pkg\\n  typescript:project: off\\u{1b}[2J/src is [repo]/pkg\\n  typescript:project: off\\u{1b}[2J/tsconfig.json: TypeScript "
        ),
        "{section}"
    );
    // The same directory without a project: its name is escaped there too.
    std::fs::remove_file(repo.abs(&format!("{hostile}/tsconfig.json"))).expect("remove");
    std::fs::remove_file(repo.abs("tsconfig.json")).expect("remove");
    let (_, stdout, _) = doctor_cli(root.path(), &repo.abs(&format!("{hostile}/src")), None);
    assert!(!stdout.contains('\u{1b}'), "{stdout:?}");
    assert!(
        redact(analyzers_section(&stdout), &[(repo.path(), "[repo]")]).contains(
            "  typescript:project: on; no project at [repo]/pkg\\n  typescript:project: off\\u{1b}[2J/src (no tsconfig.json or jsconfig.json at or above it, up to [repo]): "
        ),
        "{stdout}"
    );
}

#[test]
fn a_repository_path_with_control_characters_is_escaped() {
    let parent = tempfile::tempdir().expect("tempdir");
    let repo = parent
        .path()
        .join("repo\n  ast-grep:builtin: 0 rule(s)\u{1b}[2J");
    std::fs::create_dir(&repo).expect("mkdir");
    crate::support::git(&repo, &["init", "-q"]);
    write(&repo, "src/a.ts", "export const a = 1;\n");
    let root = ConfigRoot::builtin();
    let (_, stdout, stderr) = doctor_cli(root.path(), &repo.join("src"), None);
    let all = format!("{stdout}{stderr}");
    assert!(!all.contains('\u{1b}'), "a raw escape: {all:?}");
    let section = analyzers_section(&stdout);
    assert_eq!(
        section.lines().count(),
        3,
        "one line per analyzer: {section}"
    );
    assert!(
        section.contains(
            "repo\\n  ast-grep:builtin: 0 rule(s)\\u{1b}[2J/src (no tsconfig.json or jsconfig.json at or above it, up to "
        ) && section.ends_with("repo\\n  ast-grep:builtin: 0 rule(s)\\u{1b}[2J): only the files of a project below it are type-checked\n"),
        "{section}"
    );
}

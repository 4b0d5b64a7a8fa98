//! One report for both front ends: `/hooks-doctor` starts with exactly what
//! `pi-native-hooks doctor` prints for the session's config root and working directory (the
//! config root, the analyzers, the projects, and the `unhealthy` line when there is one), and
//! adds only lines about what the running session knows.

use super::doctor_cli;
use crate::session::NODE_VERIFICATION;
use crate::support::typescript::{Ts, ts_project, tsserver_bridge};
use crate::support::{ConfigRoot, TestRepo};
use pi_native_hooks_session::{Session, SessionOptions};
use pi_native_hooks_typescript::TsserverBridge;
use std::path::Path;

/// How each line `/hooks-doctor` adds after the report starts: what only the session knows.
const LIVE: [&str; 8] = [
    "in use by this session until /reload: ",
    "tool waves: not observed (",
    "analyzer ",
    "  not analyzed: ",
    "degraded since the last /reload ",
    "rule problem: ",
    "policy failure: ",
    "coordinator failure: ",
];

/// `/hooks-doctor` of a session opened in `repo` over `root` (with `bridge`, as Pi passes its
/// own), checked to be the CLI's report followed by live lines only. Returns the CLI's report.
async fn same_report(repo: &Path, root: &Path, bridge: Option<TsserverBridge>) -> String {
    let mut options = SessionOptions::new(repo, root);
    options.tsserver_bridge = bridge.clone();
    let session = Session::open(options);
    let pi = session.doctor_text().await;
    session.shutdown();
    let (_, cli, stderr) = doctor_cli(root, repo, bridge);
    assert_eq!(stderr, "");
    assert!(
        pi.starts_with(&cli),
        "/hooks-doctor does not start with the CLI's report\n--- /hooks-doctor:\n{pi}\n--- doctor:\n{cli}"
    );
    let live = &pi[cli.len()..];
    for line in live.lines() {
        assert!(
            LIVE.iter().any(|start| line.starts_with(start)),
            "{line:?} is neither the report's nor a live line:\n{pi}"
        );
    }
    cli
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_root_with_a_verification_policy_in_a_typescript_project() {
    let root = ConfigRoot::builder()
        .builtin()
        .policy("node-project-verification.rhai", NODE_VERIFICATION)
        .build();
    let repo = TestRepo::with_commit(&[
        ("package.json", "{ \"name\": \"my-node-project\" }\n"),
        ("src/app.ts", "export const app = 1;\n"),
    ]);
    ts_project(repo.path(), Ts::V7);
    // `ts_project` writes its own `package.json`: name the project again.
    repo.write("package.json", "{ \"name\": \"my-node-project\" }\n");
    let report = same_report(repo.path(), root.path(), None).await;
    for part in [
        "\nanalyzers:\n  ast-grep:personal: 24 rule(s)\n  typescript:project: on; the project of ",
        "\nprojects: in the git repository at ",
        "    `my-node-project` (package.json) in .\n      node-project-verification/test: `npm test` in .\n",
    ] {
        assert!(report.contains(part), "{part:?} missing:\n{report}");
    }
    assert!(!report.contains("unhealthy"), "{report}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_built_in_pack_without_a_root() {
    let home = tempfile::tempdir().expect("tempdir");
    let repo = TestRepo::with_commit(&[("src/a.ts", "export const a = 1;\n")]);
    let report = same_report(repo.path(), &home.path().join("pi-native-hooks"), None).await;
    assert!(
        report.starts_with(
            "in use: the built-in pack (no config root exists; verification is off)\n"
        ),
        "{report}"
    );
    assert!(
        report.ends_with("unhealthy (the config root has problems, listed above)\n"),
        "{report}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_project_problem_and_typescript_5_served_by_the_hosts_bridge() {
    let glob = "const ID = \"app-tests\";\nconst KIND = \"verification\";\nconst PROJECT = #{ manifests: \"apps/*/package.json\" };\nconst REQUIREMENTS = [#{ id: \"test\", command: \"npm test\", affects: \"code\" }];\nfn code(path) { path.ends_with(\".ts\") }\n";
    let root = ConfigRoot::builder()
        .builtin()
        .policy("app-tests.rhai", glob)
        .build();
    let repo = TestRepo::with_commit(&[("src/a.ts", "export const a = 1;\n")]);
    ts_project(repo.path(), Ts::V5);
    let report = same_report(repo.path(), root.path(), Some(tsserver_bridge())).await;
    assert!(
        report.contains(", its tsserver through typescript-language-server ("),
        "{report}"
    );
    assert!(
        report.ends_with("unhealthy (1 project problem, listed above)\n"),
        "{report}"
    );
}

//! What only TypeScript before 7 has: typescript-language-server between the analyzer and the
//! project's tsserver — found beside the project when the host brings none, named when there is
//! none, one tsserver under it whose memory counts, and nothing left running after it.

use super::analyzer::{Harness, assert_complete, codes, patient};
use crate::support::typescript::{Ts, ts_project, tsserver_bridge, write};
use pi_native_hooks_typescript::ProjectState;
use std::path::Path;
use std::time::{Duration, Instant};

/// The processes below `pid`, as `/proc` lists them.
fn children_of(pid: u32) -> Vec<u32> {
    std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect()
}

fn alive(pid: u32) -> bool {
    // A killed child that is not yet reaped is a zombie: gone for this purpose.
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit(')')
            .next()
            .is_some_and(|s| !s.trim_start().starts_with('Z'))
    })
}

fn introduce_an_error(h: &mut Harness, root: &Path) -> pi_native_hooks_analysis::AnalysisSnapshot {
    h.commit(root, "src/a.ts", "export const a = 1;\n");
    write(root, "src/a.ts", "export const a: number = \"s\";\n");
    let snapshot = h.analyzer.scan(root, &["src/a.ts".to_owned()]);
    assert_complete(&snapshot);
    assert_eq!(
        codes(&snapshot.findings, "src/a.ts"),
        vec![("TS2322".to_owned(), 1)]
    );
    (*snapshot).clone()
}

#[test]
fn one_tsserver_runs_under_the_bridge_counts_in_its_memory_and_stops_with_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    ts_project(root, Ts::V5);
    let mut h = Harness::new(root, patient());
    introduce_an_error(&mut h, root);

    let bridge = h.analyzer.server_pids();
    assert_eq!(bridge.len(), 1, "one server for the project");
    let tsservers = children_of(bridge[0]);
    assert_eq!(
        tsservers.len(),
        1,
        "one tsserver (no separate syntax server) under the bridge"
    );
    let status = h.analyzer.status().get();
    let ProjectState::Running {
        memory_bytes: Some(memory),
        ..
    } = status.projects[0].state
    else {
        panic!("running with its memory: {:?}", status.projects[0].state);
    };
    let bridge_alone = std::fs::read_to_string(format!("/proc/{}/status", bridge[0]))
        .expect("status")
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        .expect("VmRSS")
        * 1024;
    assert!(
        memory > bridge_alone,
        "the tsserver's memory counts too: {memory} > {bridge_alone}"
    );

    drop(h);
    let deadline = Instant::now() + Duration::from_secs(10);
    while (alive(bridge[0]) || alive(tsservers[0])) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!alive(bridge[0]), "the bridge stopped with the analyzer");
    assert!(!alive(tsservers[0]), "its tsserver stopped with it");
}

#[test]
fn a_typescript_language_server_installed_beside_the_project_serves_it_without_the_host() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    ts_project(root, Ts::V5);
    let package = tsserver_bridge()
        .cli
        .parent()
        .and_then(Path::parent)
        .expect("package folder")
        .to_path_buf();
    std::os::unix::fs::symlink(
        package,
        root.join("node_modules/typescript-language-server"),
    )
    .expect("link typescript-language-server");
    let mut h = Harness::with_bridge(root, patient(), None);
    introduce_an_error(&mut h, root);
}

#[test]
fn typescript_5_with_no_bridge_anywhere_is_off_and_says_what_to_install() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    ts_project(root, Ts::V5);
    let mut h = Harness::with_bridge(root, patient(), None);
    write(root, "src/a.ts", "export const a: number = \"s\";\n");
    assert!(!h.analyzer.handles("src/a.ts"));
    let snapshot = h.analyzer.scan(root, &["src/a.ts".to_owned()]);
    assert!(snapshot.findings.is_empty(), "never a clean result");
    let status = h.analyzer.status().get();
    let ProjectState::Off { reason } = &status.projects[0].state else {
        panic!("off: {:?}", status.projects[0].state);
    };
    assert!(
        reason.contains("TypeScript 5.9.3 is installed")
            && reason.contains("npm install --save-dev typescript-language-server"),
        "{reason}"
    );
    assert_eq!(status.projects[0].version, None);
}

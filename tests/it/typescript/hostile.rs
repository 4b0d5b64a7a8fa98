//! Servers that crash, never answer or flood, and configs that lead where they should not: each
//! bounded, named, and never read as "no type errors".

use super::analyzer::{Harness, assert_complete, codes, on_both_servers, patient};
use crate::support::typescript::{Ts, ts_project, ts7_project, write};
use pi_native_hooks_analysis::SkipReason;
use pi_native_hooks_typescript::{ProjectState, TypeScriptLimits};
use std::path::Path;
use std::time::Duration;

fn reasons(snapshot: &pi_native_hooks_analysis::AnalysisSnapshot) -> Vec<String> {
    snapshot
        .skipped
        .iter()
        .map(|s| s.reason.to_string())
        .collect()
}

on_both_servers!(a_killed_server_restarts_once_then_the_project_is_degraded_and_named);

fn a_killed_server_restarts_once_then_the_project_is_degraded_and_named(ts: Ts) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    ts_project(root, ts);
    let mut h = Harness::new(root, patient());
    h.commit(root, "src/a.ts", "export const a = 1;\n");
    write(root, "src/a.ts", "export const a: number = \"s\";\n");
    let first = h.analyzer.scan(root, &["src/a.ts".to_owned()]);
    assert_complete(&first);
    let config = root.join("tsconfig.json");

    assert!(h.analyzer.kill_server(&config), "a server was running");
    std::thread::sleep(Duration::from_millis(200));
    write(root, "src/a.ts", "export const a: number = \"t\";\n");
    let restarted = h.analyzer.scan(root, &["src/a.ts".to_owned()]);
    assert_complete(&restarted);
    assert_eq!(
        codes(&restarted.findings, "src/a.ts"),
        vec![("TS2322".to_owned(), 1)]
    );
    let status = h.analyzer.status().get();
    assert_eq!(status.projects[0].restarts, 1);

    assert!(
        h.analyzer.kill_server(&config),
        "the restarted server was running"
    );
    std::thread::sleep(Duration::from_millis(200));
    write(root, "src/a.ts", "export const a: number = \"u\";\n");
    let degraded = h.analyzer.scan(root, &["src/a.ts".to_owned()]);
    assert!(degraded.findings.is_empty());
    assert!(matches!(
        degraded.skipped[0].reason,
        SkipReason::TypeCheckUnavailable { .. }
    ));
    let reason = reasons(&degraded).join("\n");
    assert!(reason.contains("stopped twice"), "{reason}");
    let status = h.analyzer.status().get();
    assert!(status.is_degraded());
    assert!(matches!(
        status.projects[0].state,
        ProjectState::Degraded { .. }
    ));
}

/// A project whose installed TypeScript 7 "compiler" is the shell script `body`.
fn fake_server(root: &Path, body: &str) {
    write(root, "tsconfig.json", "{}\n");
    write(
        root,
        "node_modules/typescript/package.json",
        "{ \"version\": \"7.0.2\" }\n",
    );
    let exe = root.join("node_modules/@typescript/typescript-linux-x64/lib/tsc");
    write(
        root,
        "node_modules/@typescript/typescript-linux-x64/lib/tsc",
        body,
    );
    let mut permissions = std::fs::metadata(&exe).expect("exe").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&exe, permissions).expect("chmod");
}

fn short(wait_ms: u64, start_ms: u64) -> TypeScriptLimits {
    TypeScriptLimits {
        wait: Duration::from_millis(wait_ms),
        start_timeout: Duration::from_millis(start_ms),
        ..TypeScriptLimits::default()
    }
}

#[test]
fn a_server_that_never_answers_leaves_its_files_pending_then_unavailable() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    fake_server(root, "#!/bin/sh\nexec sleep 600\n");
    let mut h = Harness::new(root, short(200, 400));
    write(root, "a.ts", "export const a = 1;\n");
    let first = h.analyzer.scan(root, &["a.ts".to_owned()]);
    assert!(first.findings.is_empty());
    assert_eq!(
        first.skipped[0].reason,
        SkipReason::TypeCheckPending { waited_ms: 200 }
    );
    assert_eq!(h.analyzer.status().get().pending, 1);
    // Past the start deadline: the start failed, so it is tried once more, then given up.
    std::thread::sleep(Duration::from_millis(500));
    let second = h.analyzer.scan(root, &[]);
    assert!(matches!(
        second.skipped[0].reason,
        SkipReason::TypeCheckUnavailable { .. }
    ));
    std::thread::sleep(Duration::from_millis(700));
    let third = h.analyzer.scan(root, &["a.ts".to_owned()]);
    let reason = reasons(&third).join("\n");
    assert!(third.findings.is_empty());
    assert!(
        reason.contains("did not start within 400 ms")
            || reason.contains("pending")
            || reason.contains("not answered"),
        "{reason}"
    );
}

#[test]
fn a_server_that_floods_its_output_is_cut_off_and_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    // Endless output with no valid frame: the reader gives up at the output budget (or at the
    // malformed header, whichever comes first); either way the server is named, not trusted.
    fake_server(root, "#!/bin/sh\nexec yes 'Content-Length: 5'\n");
    let mut h = Harness::new(root, short(2_000, 2_000));
    write(root, "a.ts", "export const a = 1;\n");
    let snapshot = h.analyzer.scan(root, &["a.ts".to_owned()]);
    assert!(snapshot.findings.is_empty());
    assert_eq!(snapshot.skipped.len(), 1);
    assert!(
        snapshot.skipped[0].reason.is_type_check(),
        "{:?}",
        snapshot.skipped
    );
}

#[test]
fn a_tsconfig_that_extends_into_a_fifo_is_bounded_by_the_wait() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    ts7_project(root);
    nix::unistd::mkfifo(&root.join("base.json"), nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
    write(
        root,
        "tsconfig.json",
        "{ \"extends\": \"./base.json\", \"include\": [\"src\"] }\n",
    );
    let mut h = Harness::new(root, short(1_500, 1_500));
    write(root, "src/a.ts", "export const a: number = \"s\";\n");
    let snapshot = h.analyzer.scan(root, &["src/a.ts".to_owned()]);
    // Whatever the server makes of the FIFO, the wave ends within its wait and never claims a
    // clean file it did not check.
    if snapshot.skipped.is_empty() {
        assert_eq!(
            codes(&snapshot.findings, "src/a.ts"),
            vec![("TS2322".to_owned(), 1)]
        );
    } else {
        assert!(
            snapshot.skipped[0].reason.is_type_check(),
            "{:?}",
            snapshot.skipped
        );
    }
}

#[test]
fn a_file_with_a_megabyte_of_type_errors_is_bounded_by_the_findings_limit_and_says_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    ts7_project(root);
    let limits = TypeScriptLimits {
        max_findings: 500,
        max_file_bytes: 4 * 1024 * 1024,
        ..patient()
    };
    let mut h = Harness::new(root, limits);
    // About 1 MiB: 30,000 lines, each a type error.
    let text: String = (0..30_000)
        .map(|i| format!("export const v{i}: number = \"s{i}\";\n"))
        .collect();
    assert!(text.len() > 1_000_000);
    write(root, "src/big.ts", &text);
    let snapshot = h.analyzer.scan(root, &["src/big.ts".to_owned()]);
    assert_complete(&snapshot);
    assert_eq!(snapshot.findings.len(), 500);
    assert_eq!(snapshot.omitted_findings, 29_500);
    assert!(
        !snapshot.is_complete(),
        "a truncated snapshot is never read as complete"
    );
}

#[test]
fn the_import_index_bound_is_shown_in_the_status() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    ts7_project(root);
    for i in 0..30 {
        write(
            root,
            &format!("src/m{i}.ts"),
            format!("export const m{i} = {i};\n"),
        );
    }
    let limits = TypeScriptLimits {
        max_index_files: 10,
        ..patient()
    };
    let mut h = Harness::new(root, limits);
    write(root, "src/m0.ts", "export const m0 = 100;\n");
    let snapshot = h.analyzer.scan(root, &["src/m0.ts".to_owned()]);
    assert_complete(&snapshot);
    let status = h.analyzer.status().get();
    assert_eq!(status.projects[0].import_index_cut_at, Some(10));
}

#[test]
fn past_its_remembered_files_the_analyzer_starts_over_and_still_finds_what_a_wave_introduces() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    ts7_project(root);
    let limits = TypeScriptLimits {
        max_remembered_files: 2,
        ..patient()
    };
    let mut h = Harness::new(root, limits);
    let files = ["src/a.ts", "src/b.ts", "src/c.ts"];
    for (i, path) in files.iter().enumerate() {
        h.commit(root, path, &format!("export const v{i} = {i};\n"));
    }
    for (i, path) in files.iter().enumerate() {
        write(root, path, format!("export const v{i} = {};\n", i + 10));
    }
    let paths: Vec<String> = files.iter().map(|p| (*p).to_owned()).collect();
    let first = h.analyzer.scan(root, &paths);
    assert_complete(&first);
    assert!(first.findings.is_empty(), "{:?}", first.findings);
    let answers = h.analyzer.status().get().answers;
    assert_eq!(answers.capacity, 2);
    assert!(answers.held <= 2, "{answers:?}");
    assert!(
        answers.dropped >= 1,
        "three answers past a bound of two: {answers:?}"
    );

    // Whatever was forgotten, a file's next wave is judged afresh: the error it introduces is
    // reported as new, never taken for one that was there before.
    for path in files {
        write(root, path, "export const bad: number = \"s\";\n");
        let wave = h.analyzer.scan(root, &[path.to_owned()]);
        assert_complete(&wave);
        assert_eq!(
            codes(&wave.findings, path),
            vec![("TS2322".to_owned(), 1)],
            "{path}"
        );
        assert_eq!(h.analyzer.findings_in(path), Some(Vec::new()), "{path}");
        write(root, path, "export const fine = 1;\n");
        assert_complete(&h.analyzer.scan(root, &[path.to_owned()]));
    }
    assert!(h.analyzer.status().get().answers.held <= 2);
}

//! Scanning real files on disk: every bound is visible in the snapshot, a vanished file is
//! reported rather than fatal, and unchanged content is served from the cache without a parse.

use crate::support::write;
use pi_native_hooks_analysis::{AnalysisSnapshot, Analyzer, RuleSet, ScanLimits, SkipReason};
use pi_native_hooks_config::builtin;
use std::sync::Arc;

const BANG: &str = "declare const u: { n?: string } | undefined;\nexport const a = u!.n;\n";

fn analyzer(limits: ScanLimits, threads: usize) -> Analyzer {
    let load = RuleSet::load(&builtin::rule_files(), &[]);
    Analyzer::new("ast-grep:builtin", Arc::new(load.rules), limits, threads).expect("analyzer")
}

fn paths(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| (*n).to_owned()).collect()
}

fn reasons(snapshot: &AnalysisSnapshot) -> Vec<(String, SkipReason)> {
    snapshot
        .skipped
        .iter()
        .map(|s| (s.path.clone(), s.reason.clone()))
        .collect()
}

#[test]
fn only_ts_tsx_mts_cts_are_scanned() {
    let dir = tempfile::tempdir().expect("temp dir");
    for name in [
        "a.ts", "b.tsx", "c.mts", "d.cts", "e.js", "f.d.json", "g.md",
    ] {
        write(dir.path(), name, BANG.as_bytes());
    }
    let snapshot = analyzer(ScanLimits::default(), 1).scan(
        dir.path(),
        &paths(&[
            "g.md", "e.js", "a.ts", "b.tsx", "c.mts", "d.cts", "f.d.json", "a.ts",
        ]),
    );
    assert_eq!(snapshot.paths, ["a.ts", "b.tsx", "c.mts", "d.cts"]);
    assert_eq!(snapshot.parsed_files, 4);
    let rules: Vec<&str> = snapshot.findings.iter().map(|f| f.rule.as_str()).collect();
    assert_eq!(
        rules,
        [
            "typescript-no-non-null-assertion-ts",
            "typescript-no-non-null-assertion-tsx",
            "typescript-no-non-null-assertion-ts",
            "typescript-no-non-null-assertion-ts",
        ]
    );
    assert!(snapshot.is_complete());
}

#[test]
fn oversized_binary_and_non_utf8_files_are_skipped_visibly() {
    let dir = tempfile::tempdir().expect("temp dir");
    write(dir.path(), "big.ts", vec![b'x'; 2048]);
    write(dir.path(), "bin.ts", b"export const a = 1;\0\x01\x02");
    write(dir.path(), "latin1.ts", b"export const s = \"caf\xe9\";\n");
    write(dir.path(), "ok.ts", BANG.as_bytes());
    let limits = ScanLimits {
        max_file_bytes: 1024,
        ..ScanLimits::default()
    };
    let snapshot = analyzer(limits, 1).scan(
        dir.path(),
        &paths(&["big.ts", "bin.ts", "latin1.ts", "ok.ts"]),
    );
    assert_eq!(
        reasons(&snapshot),
        [
            (
                "big.ts".to_owned(),
                SkipReason::TooLarge {
                    bytes: 2048,
                    limit: 1024
                }
            ),
            ("bin.ts".to_owned(), SkipReason::Binary),
            ("latin1.ts".to_owned(), SkipReason::NotUtf8),
        ]
    );
    assert_eq!(snapshot.findings.len(), 1);
    assert!(!snapshot.is_complete());
}

#[test]
fn a_vanished_file_is_reported_and_the_rest_still_scanned() {
    let dir = tempfile::tempdir().expect("temp dir");
    write(dir.path(), "here.ts", BANG.as_bytes());
    let snapshot =
        analyzer(ScanLimits::default(), 1).scan(dir.path(), &paths(&["gone.ts", "here.ts"]));
    assert_eq!(
        reasons(&snapshot),
        [("gone.ts".to_owned(), SkipReason::Vanished)]
    );
    assert_eq!(snapshot.findings.len(), 1);
    assert!(snapshot.failure.is_none());
}

#[test]
fn the_file_and_finding_bounds_count_what_they_cut() {
    let dir = tempfile::tempdir().expect("temp dir");
    let many_bangs: String = (0..10)
        .map(|i| format!("export const a{i} = u!.n;\n"))
        .collect();
    for name in ["a.ts", "b.ts", "c.ts"] {
        write(
            dir.path(),
            name,
            format!("declare const u: {{ n?: string }};\n{many_bangs}").as_bytes(),
        );
    }
    let limits = ScanLimits {
        max_files: 2,
        max_findings: 15,
        ..ScanLimits::default()
    };
    let snapshot = analyzer(limits, 1).scan(dir.path(), &paths(&["c.ts", "b.ts", "a.ts"]));
    assert_eq!(
        reasons(&snapshot),
        [("c.ts".to_owned(), SkipReason::TooManyFiles { limit: 2 })]
    );
    assert_eq!(snapshot.parsed_files, 2);
    assert_eq!(snapshot.findings.len(), 15);
    assert_eq!(snapshot.omitted_findings, 5);
    // The kept findings are the first in the deterministic order.
    assert!(snapshot.findings.iter().take(10).all(|f| f.path == "a.ts"));
}

#[test]
fn unchanged_content_is_not_parsed_again_and_changed_content_is() {
    let dir = tempfile::tempdir().expect("temp dir");
    write(dir.path(), "a.ts", BANG.as_bytes());
    write(dir.path(), "b.ts", b"export const clean = 1;\n");
    let mut analyzer = analyzer(ScanLimits::default(), 1);
    let wave = paths(&["a.ts", "b.ts"]);
    let first = analyzer.scan(dir.path(), &wave);
    assert_eq!((first.parsed_files, first.cached_files), (2, 0));

    let second = analyzer.scan(dir.path(), &wave);
    assert_eq!((second.parsed_files, second.cached_files), (0, 2));
    assert_eq!(second.findings, first.findings);

    write(dir.path(), "b.ts", b"export const now = import(\"./x\");\n");
    let third = analyzer.scan(dir.path(), &wave);
    assert_eq!((third.parsed_files, third.cached_files), (1, 1));
    let rules: Vec<&str> = third.findings.iter().map(|f| f.rule.as_str()).collect();
    assert_eq!(
        rules,
        [
            "typescript-no-non-null-assertion-ts",
            "typescript-no-dynamic-import-ts"
        ]
    );

    // Reverting to earlier bytes re-parses (the cache keeps one version per path) and agrees.
    write(dir.path(), "b.ts", b"export const clean = 1;\n");
    let fourth = analyzer.scan(dir.path(), &wave);
    assert_eq!((fourth.parsed_files, fourth.cached_files), (1, 1));
    assert_eq!(fourth.findings, first.findings);
}

#[test]
fn parallel_and_sequential_scans_agree() {
    let dir = tempfile::tempdir().expect("temp dir");
    let names: Vec<String> = (0..12)
        .map(|i| format!("f{i}.{}", if i % 3 == 0 { "tsx" } else { "ts" }))
        .collect();
    for (i, name) in names.iter().enumerate() {
        let body = format!(
            "declare const u: {{ n?: string }};\nexport const a = u!.n;\nexport const m{i} = import(\"./m{i}\");\n"
        );
        write(dir.path(), name, body.as_bytes());
    }
    let sequential = analyzer(ScanLimits::default(), 1).scan(dir.path(), &names);
    let parallel = analyzer(ScanLimits::default(), 2).scan(dir.path(), &names);
    assert_eq!(sequential.findings.len(), 24);
    assert_eq!(sequential.findings, parallel.findings);
    assert_eq!(sequential.paths, parallel.paths);
}

#[test]
fn the_snapshot_is_shared_not_copied() {
    let dir = tempfile::tempdir().expect("temp dir");
    write(dir.path(), "a.ts", BANG.as_bytes());
    let snapshot = analyzer(ScanLimits::default(), 1).scan(dir.path(), &paths(&["a.ts"]));
    let for_policy = Arc::clone(&snapshot);
    assert!(Arc::ptr_eq(&snapshot, &for_policy));
    assert_eq!(snapshot.analyzer, "ast-grep:builtin");
    assert_eq!(snapshot.findings[0].text_hash.len(), 16);
}

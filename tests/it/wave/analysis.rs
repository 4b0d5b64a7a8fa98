//! The analysis coordinator: requests built from the policies that consume an analyzer and from
//! its own rules, coalesced by key; one scan per key per wave, proven with a counting analyzer
//! around the real ast-grep analyzer and the built-in policy pack (two diagnostic policies); the
//! findings no policy reports kept as the analyzer's own diagnostics.

use crate::support::wave::{
    Counting, FakeAnalyzer, FakeFs, FakePolicies, Run, appended, real, run_batch, write_step,
};
use crate::support::{TestRepo, set};
use pi_native_hooks_analysis::{AnalysisSnapshot, AnalyzerKey, ScanRequest, WaveAnalyzer};
use pi_native_hooks_base::CancelToken;
use pi_native_hooks_wave::{AnalysisCoordinator, AnalysisSetupError, AnalyzerRequest};
use std::path::Path;
use std::sync::Arc;

#[tokio::test]
async fn two_policies_and_several_files_in_one_wave_cause_exactly_one_scan() {
    let repo = TestRepo::with_commit(&[("README.md", "# r\n")]);
    let root = repo.path();
    let (coordinator, scans) = real(root);
    let outcomes = run_batch(
        &coordinator,
        vec![
            write_step("A", root, "src/a.ts", "export const a = x!.y;\n"),
            write_step("B", root, "src/b.ts", "export const b = import(\"./a\");\n"),
            write_step("C", root, "src/c.ts", "export const c = 1;\n"),
            write_step("D", root, "README.md", "# readme\n"),
        ],
        Run::Parallel,
    )
    .await;
    coordinator
        .idle()
        .await
        .expect("every background task ends within the timeout");
    let scans = scans.lock().unwrap().clone();
    assert_eq!(
        scans,
        [(
            "ast-grep:builtin".to_owned(),
            vec![
                "src/a.ts".to_owned(),
                "src/b.ts".to_owned(),
                "src/c.ts".to_owned()
            ]
        )]
    );
    let block = appended(&outcomes, "D").expect("the last mutating call carries");
    assert!(
        block.contains("typescript-no-non-null-assertion-ts"),
        "{block}"
    );
    assert!(block.contains("typescript-no-dynamic-import-ts"), "{block}");
    let report = &coordinator.status().recent[0];
    assert_eq!((report.scans.len(), report.delivered), (1, 2));
    assert_eq!(report.scans[0].parsed, 3);
}

#[test]
fn requests_are_built_per_policy_and_coalesced_by_analyzer_key() {
    let fs = FakeFs::new();
    let analyzer = || FakeAnalyzer {
        key: "fake:analyzer".into(),
        fs: Arc::clone(&fs),
    };
    let coordinator = AnalysisCoordinator::new(
        vec![Box::new(analyzer())],
        Arc::new(FakePolicies::new(&["p1", "p2"])),
    )
    .unwrap();
    assert_eq!(
        coordinator.requests(&set(&["a.ts", "b.ts", "notes.md"])),
        [AnalyzerRequest {
            analyzer: "fake:analyzer".into(),
            paths: set(&["a.ts", "b.ts"]),
            policies: set(&["p1", "p2"]),
        }]
    );
    assert!(
        coordinator.requests(&set(&["notes.md"])).is_empty(),
        "no relevant path"
    );

    let unconsumed =
        AnalysisCoordinator::new(vec![Box::new(analyzer())], Arc::new(FakePolicies::new(&[])))
            .unwrap();
    assert_eq!(
        unconsumed.requests(&set(&["a.ts"])),
        [AnalyzerRequest {
            analyzer: "fake:analyzer".into(),
            paths: set(&["a.ts"]),
            policies: set(&[]),
        }],
        "no policy consumes the analyzer, but its rules' findings are delivered as they are"
    );
    let ruleless = AnalysisCoordinator::new(
        vec![Box::new(RuleLess(analyzer()))],
        Arc::new(FakePolicies::new(&[])),
    )
    .unwrap();
    assert!(
        ruleless.requests(&set(&["a.ts"])).is_empty(),
        "an analyzer without rules that no policy consumes is never scanned"
    );

    let duplicate = AnalysisCoordinator::new(
        vec![Box::new(analyzer()), Box::new(analyzer())],
        Arc::new(FakePolicies::new(&["p1"])),
    );
    assert!(
        matches!(duplicate, Err(AnalysisSetupError::DuplicateKey(key)) if key == "fake:analyzer")
    );
}

#[test]
fn a_run_scans_each_key_once_and_covers_only_complete_results() {
    let fs = FakeFs::new();
    fs.write("a.ts", "BAD\n");
    let (counting, scans) = Counting::new(FakeAnalyzer {
        key: "fake:analyzer".into(),
        fs: Arc::clone(&fs),
    });
    let mut policies = FakePolicies::new(&["p1", "p2"]);
    policies.failing.insert("p2".into());
    let mut coordinator =
        AnalysisCoordinator::new(vec![Box::new(counting)], Arc::new(policies)).unwrap();
    let analysis = coordinator.run(
        Path::new("/"),
        &set(&["a.ts", "gone.ts"]),
        &CancelToken::new(),
    );
    assert_eq!(scans.lock().unwrap().len(), 1);
    assert_eq!(analysis.runs.len(), 1);
    assert_eq!(analysis.policy_failures(), 1);
    assert_eq!(
        analysis.files_not_analyzed(),
        0,
        "a deleted file is analyzed as empty"
    );
    let diagnostics = analysis.diagnostics();
    assert_eq!(diagnostics.diagnostics.len(), 1, "only p1 reported");
    assert!(
        analysis.runs[0].unreported.is_empty(),
        "p1 reported the finding"
    );
    // The analyzer's own result (the findings no policy reported) is complete wherever the
    // analysis is.
    assert_eq!(
        diagnostics.coverage.policies("a.ts"),
        Some(&set(&["fake:analyzer", "p1"]))
    );
    assert_eq!(
        diagnostics.coverage.policies("gone.ts"),
        Some(&set(&["fake:analyzer", "p1"]))
    );
}

/// A [`FakeAnalyzer`] that says it has no rules of its own.
struct RuleLess(FakeAnalyzer);

impl WaveAnalyzer for RuleLess {
    fn key(&self) -> &AnalyzerKey {
        self.0.key()
    }

    fn handles(&self, path: &str) -> bool {
        self.0.handles(path)
    }

    fn scan(&mut self, request: &ScanRequest<'_>) -> Arc<AnalysisSnapshot> {
        self.0.scan(request)
    }

    fn has_rules(&self) -> bool {
        false
    }
}

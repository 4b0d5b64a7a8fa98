//! What the analyzer reports for real edits: before and after, per file, from the real server.

use crate::support::typescript::{Ts, ts_project, tsserver_bridge, write};
use pi_native_hooks_analysis::{AnalysisSnapshot, Finding, SkipReason};
use pi_native_hooks_typescript::{
    PriorTexts, TsserverBridge, TypeScriptAnalyzer, TypeScriptLimits,
};
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A runtime for the servers and an analyzer over `root`, whose "before" of a file it has never
/// seen comes from `head` (path → text), as a session's comes from `HEAD`.
pub(super) struct Harness {
    pub analyzer: TypeScriptAnalyzer,
    pub head: Arc<Mutex<HashMap<String, String>>>,
    /// The runtime the servers run on: dropped last, after the analyzer has stopped them.
    _runtime: tokio::runtime::Runtime,
}

impl Harness {
    /// With the host's typescript-language-server, as the npm package passes it: it serves the
    /// projects with TypeScript 5 and is not used for TypeScript 7.
    pub(super) fn new(root: &Path, limits: TypeScriptLimits) -> Self {
        Self::with_bridge(root, limits, Some(tsserver_bridge()))
    }

    /// With `bridge` as the host's typescript-language-server (`None`: the CLI's case, which
    /// looks for one installed beside the project).
    pub(super) fn with_bridge(
        root: &Path,
        limits: TypeScriptLimits,
        bridge: Option<TsserverBridge>,
    ) -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        let head: Arc<Mutex<HashMap<String, String>>> = Arc::default();
        let texts = Arc::clone(&head);
        let prior: PriorTexts = Box::new(move |paths: &[String]| {
            let head = texts.lock().expect("head");
            paths
                .iter()
                .map(|p| head.get(p).map(|t| t.clone().into_bytes()))
                .collect()
        });
        let analyzer = TypeScriptAnalyzer::new(root, runtime.handle().clone(), limits, prior)
            .with_tsserver_bridge(bridge);
        Self {
            _runtime: runtime,
            analyzer,
            head,
        }
    }

    /// Records `text` as the `HEAD` version of `path` and writes it.
    pub(super) fn commit(&self, root: &Path, path: &str, text: &str) {
        write(root, path, text);
        self.head
            .lock()
            .expect("head")
            .insert(path.to_owned(), text.to_owned());
    }
}

/// Generous enough for a cold server on a loaded machine: these tests are about what is found.
pub(super) fn patient() -> TypeScriptLimits {
    TypeScriptLimits {
        wait: Duration::from_secs(60),
        ..TypeScriptLimits::default()
    }
}

pub(super) fn codes(findings: &[Finding], path: &str) -> Vec<(String, usize)> {
    findings
        .iter()
        .filter(|f| f.path == path)
        .map(|f| (f.rule.as_str().to_owned(), f.range.start.line + 1))
        .collect()
}

/// Runs each case against both servers: TypeScript 7's own and TypeScript 5's tsserver served by
/// typescript-language-server.
macro_rules! on_both_servers {
    ($($case:ident),* $(,)?) => {
        mod ts7 {
            $(#[test] fn $case() { super::$case(super::Ts::V7) })*
        }
        mod ts5 {
            $(#[test] fn $case() { super::$case(super::Ts::V5) })*
        }
    };
}
pub(super) use on_both_servers;

on_both_servers!(
    a_write_that_introduces_a_type_error_is_found_and_the_older_one_was_there_before,
    changing_an_exported_parameter_type_reports_the_unchanged_caller_in_the_same_wave,
    a_line_shift_keeps_the_identity_and_a_clean_edit_is_complete_and_clean,
    a_deleted_file_is_named_vanished_and_its_importers_are_rechecked,
    turning_on_strict_reports_what_it_introduces_in_the_files_already_checked,
    an_edit_no_importer_can_see_is_checked_alone_and_a_signature_change_reaches_the_importers,
);

pub(super) fn assert_complete(snapshot: &AnalysisSnapshot) {
    assert!(
        snapshot.skipped.is_empty(),
        "every file was type-checked: {:?}",
        snapshot.skipped
    );
}

fn a_write_that_introduces_a_type_error_is_found_and_the_older_one_was_there_before(ts: Ts) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    ts_project(root, ts);
    let mut h = Harness::new(root, patient());
    h.commit(
        root,
        "src/a.ts",
        "export const old: string = 1;\nexport const ok = 2;\n",
    );
    write(
        root,
        "src/a.ts",
        "export const old: string = 1;\nexport const ok = 2;\nconst n: number = \"s\";\nexport { n };\n",
    );
    let snapshot = h.analyzer.scan(root, &["src/a.ts".to_owned()]);
    assert_complete(&snapshot);
    assert_eq!(
        codes(&snapshot.findings, "src/a.ts"),
        vec![("TS2322".to_owned(), 1), ("TS2322".to_owned(), 3)]
    );
    assert!(
        snapshot.findings[1]
            .message
            .contains("'string' is not assignable to type 'number'")
    );
    let before = h.analyzer.findings_in("src/a.ts").expect("before judged");
    assert_eq!(codes(&before, "src/a.ts"), vec![("TS2322".to_owned(), 1)]);
    assert_eq!(before[0].text_hash, snapshot.findings[0].text_hash);
}

fn changing_an_exported_parameter_type_reports_the_unchanged_caller_in_the_same_wave(ts: Ts) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    ts_project(root, ts);
    let mut h = Harness::new(root, patient());
    h.commit(
        root,
        "src/a.ts",
        "export function f(x: number): number {\n  return x;\n}\n",
    );
    h.commit(
        root,
        "src/b.ts",
        "import { f } from \"./a.js\";\n\nexport const y = f(1);\n",
    );
    h.commit(root, "src/c.ts", "export const unrelated = 1;\n");
    write(
        root,
        "src/a.ts",
        "export function f(x: string): number {\n  return x.length;\n}\n",
    );
    let snapshot = h.analyzer.scan(root, &["src/a.ts".to_owned()]);
    assert_complete(&snapshot);
    assert_eq!(snapshot.paths, vec!["src/a.ts", "src/b.ts"]);
    assert_eq!(
        codes(&snapshot.findings, "src/b.ts"),
        vec![("TS2345".to_owned(), 3)]
    );
    assert!(codes(&snapshot.findings, "src/a.ts").is_empty());
    assert_eq!(h.analyzer.findings_in("src/b.ts"), Some(Vec::new()));
}

fn a_line_shift_keeps_the_identity_and_a_clean_edit_is_complete_and_clean(ts: Ts) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    ts_project(root, ts);
    let mut h = Harness::new(root, patient());
    h.commit(root, "src/a.ts", "export const bad: number = \"s\";\n");
    write(
        root,
        "src/a.ts",
        "// a comment\n\nexport const bad: number = \"s\";\n",
    );
    let first = h.analyzer.scan(root, &["src/a.ts".to_owned()]);
    assert_complete(&first);
    let before = h.analyzer.findings_in("src/a.ts").expect("before");
    assert_eq!(codes(&before, "src/a.ts"), vec![("TS2322".to_owned(), 1)]);
    assert_eq!(
        codes(&first.findings, "src/a.ts"),
        vec![("TS2322".to_owned(), 3)]
    );
    assert_eq!(before[0].text_hash, first.findings[0].text_hash);

    // A second wave: the server's previous answer is the before, reused without asking again.
    write(root, "src/clean.ts", "export const fine = 1;\n");
    let clean = h.analyzer.scan(root, &["src/clean.ts".to_owned()]);
    assert_complete(&clean);
    assert!(clean.findings.is_empty());
    assert_eq!(h.analyzer.findings_in("src/clean.ts"), Some(Vec::new()));
}

fn a_deleted_file_is_named_vanished_and_its_importers_are_rechecked(ts: Ts) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    ts_project(root, ts);
    let mut h = Harness::new(root, patient());
    h.commit(root, "src/a.ts", "export const a = 1;\n");
    h.commit(
        root,
        "src/b.ts",
        "import { a } from \"./a.js\";\nexport const b = a;\n",
    );
    write(root, "src/a.ts", "export const a = 2;\n");
    let first = h.analyzer.scan(root, &["src/a.ts".to_owned()]);
    assert_complete(&first);
    std::fs::remove_file(root.join("src/a.ts")).expect("remove");
    let second = h.analyzer.scan(root, &["src/a.ts".to_owned()]);
    assert_eq!(
        second
            .skipped
            .iter()
            .map(|s| (s.path.as_str(), &s.reason))
            .collect::<Vec<_>>(),
        vec![("src/a.ts", &SkipReason::Vanished)]
    );
    assert_eq!(
        codes(&second.findings, "src/b.ts"),
        vec![("TS2307".to_owned(), 1)]
    );
}

/// The export surface decides who is checked: a body under a written signature and a local
/// nothing exports are checked in the edited file only (its own new error still listed); the
/// signature itself reaches the importer in the same wave.
fn an_edit_no_importer_can_see_is_checked_alone_and_a_signature_change_reaches_the_importers(
    ts: Ts,
) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    ts_project(root, ts);
    let mut h = Harness::new(root, patient());
    h.commit(
        root,
        "src/a.ts",
        "export function f(x: number): number {\n  return x;\n}\n",
    );
    h.commit(
        root,
        "src/b.ts",
        "import { f } from \"./a.js\";\n\nexport const y: number = f(1);\n",
    );
    write(
        root,
        "src/a.ts",
        "export function f(x: number): number {\n  return x + 1;\n}\nconst local: string = 1;\n",
    );
    let hidden = h.analyzer.scan(root, &["src/a.ts".to_owned()]);
    assert_complete(&hidden);
    assert_eq!(hidden.paths, vec!["src/a.ts"]);
    assert_eq!(
        codes(&hidden.findings, "src/a.ts"),
        vec![("TS2322".to_owned(), 4)]
    );

    write(
        root,
        "src/a.ts",
        "export function f(x: number): string {\n  return String(x);\n}\nconst local: string = 1;\n",
    );
    let visible = h.analyzer.scan(root, &["src/a.ts".to_owned()]);
    assert_complete(&visible);
    assert_eq!(visible.paths, vec!["src/a.ts", "src/b.ts"]);
    assert_eq!(
        codes(&visible.findings, "src/b.ts"),
        vec![("TS2322".to_owned(), 3)]
    );
}

fn turning_on_strict_reports_what_it_introduces_in_the_files_already_checked(ts: Ts) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    ts_project(root, ts);
    write(
        root,
        "tsconfig.json",
        r#"{ "compilerOptions": { "strict": false, "target": "es2022", "module": "nodenext", "noEmit": true }, "include": ["src"] }
"#,
    );
    let mut h = Harness::new(root, patient());
    h.commit(root, "src/a.ts", "export const a = 1;\n");
    write(root, "src/a.ts", "export function f(x) {\n  return x;\n}\n");
    let loose = h.analyzer.scan(root, &["src/a.ts".to_owned()]);
    assert_complete(&loose);
    assert!(loose.findings.is_empty(), "{:?}", loose.findings);
    assert!(!h.analyzer.handles("node_modules/x/package.json"));
    assert!(h.analyzer.handles("tsconfig.json"));

    write(
        root,
        "tsconfig.json",
        r#"{ "compilerOptions": { "strict": true, "target": "es2022", "module": "nodenext", "noEmit": true }, "include": ["src"] }
"#,
    );
    let strict = h.analyzer.scan(root, &["tsconfig.json".to_owned()]);
    assert_complete(&strict);
    assert_eq!(strict.paths, vec!["src/a.ts", "tsconfig.json"]);
    assert_eq!(
        codes(&strict.findings, "src/a.ts"),
        vec![("TS7006".to_owned(), 1)]
    );
    // Judged against the server's last answer, before the change: the error is new.
    assert_eq!(h.analyzer.findings_in("src/a.ts"), Some(Vec::new()));
}

//! The work of one scan of the generated corpus, for instruction counting: the scan bench's
//! `engine`, `engine-two-rules` and `parse-floor` groups without criterion, so a tool that counts
//! instructions (a noisy shared machine cannot time a 15% difference) sees only the scan.
//! `cargo run --release -p pi-native-hooks-benches --bin figures -- instructions` runs it under
//! callgrind for every pack and wave size and prints the table docs/performance.md shows.
//!
//! ```sh
//! cargo build --release -p pi-native-hooks-benches --example scan_cost
//! valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*scan_cost::measured*' \
//!     target/release/examples/scan_cost full 10
//! ```
//!
//! Arguments: the pack (`full`, `two-rules`, or `floor`: read and parse each file as the bench's
//! `parse-floor` does, no rules), the wave size in files (the first files of the
//! bench's 100-file corpus, same seed) and the number of scans (default 2). Setup (writing the
//! corpus, loading the rules, a first scan that warms the page cache) happens before `measured`;
//! each measured scan alternates between two revisions so none is served from the content cache,
//! exactly as in the bench. Prints the findings found, so two builds can be compared.

#![expect(
    clippy::print_stdout,
    reason = "an example that prints what it measured"
)]

use ast_grep_core::tree_sitter::LanguageExt;
use ast_grep_language::SupportLang;
use pi_native_hooks_analysis::{Analyzer, RuleSet, ScanLimits};
use pi_native_hooks_test_support::corpus;
use std::path::PathBuf;
use std::sync::Arc;

#[global_allocator]
static ALLOCATOR: pi_native_hooks_policy::CountingAllocator =
    pi_native_hooks_policy::CountingAllocator;

/// The bench's corpus size and seed.
const CORPUS_FILES: usize = 100;
const SEED: u64 = 0x5EED;
/// The rule files of the original two-rule pack (as in the bench).
const TWO_RULE_FILES: [&str; 4] = [
    "typescript-no-non-null-assertion-ts.yml",
    "typescript-no-non-null-assertion-tsx.yml",
    "typescript-no-dynamic-import-ts.yml",
    "typescript-no-dynamic-import-tsx.yml",
];

/// The scans whose instructions are counted; `None` parses only (the bench's `parse-floor`).
#[inline(never)]
#[expect(
    clippy::case_sensitive_file_extension_comparisons,
    reason = "the corpus generator writes lower-case extensions, as the bench assumes"
)]
fn measured(
    analyzer: Option<&mut Analyzer>,
    roots: &[PathBuf; 2],
    wave: &[String],
    scans: usize,
) -> usize {
    let Some(analyzer) = analyzer else {
        for scan in 0..scans {
            for path in wave {
                let text =
                    std::fs::read_to_string(roots[scan % 2].join(path)).expect("read a file");
                let lang = if path.ends_with(".tsx") {
                    SupportLang::Tsx
                } else {
                    SupportLang::TypeScript
                };
                std::hint::black_box(lang.ast_grep(&text));
            }
        }
        return 0;
    };
    let mut findings = 0;
    for scan in 0..scans {
        let snapshot = analyzer.scan(&roots[scan % 2], wave);
        assert_eq!(snapshot.parsed_files, wave.len(), "every file is parsed");
        findings = snapshot.findings.len() + snapshot.omitted_findings;
    }
    findings
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let pack = args.first().map_or("full", String::as_str);
    let files: usize = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(10);
    let scans: usize = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(2);
    let files = files.min(CORPUS_FILES);

    let dir = tempfile::tempdir().expect("a temporary directory");
    let roots = [dir.path().join("a"), dir.path().join("b")];
    let paths = corpus::generate(&roots[0], CORPUS_FILES, SEED);
    for path in &paths {
        let text = std::fs::read_to_string(roots[0].join(path)).expect("read a corpus file");
        let target = roots[1].join(path);
        std::fs::create_dir_all(target.parent().expect("a parent")).expect("create a directory");
        std::fs::write(target, format!("// revision B\n{text}")).expect("write revision B");
    }
    let rule_files: Vec<_> = pi_native_hooks_config::builtin::rule_files()
        .into_iter()
        .filter(|file| {
            pack == "full"
                || file
                    .path
                    .file_name()
                    .and_then(|name| name.to_str())
                    .is_some_and(|name| TWO_RULE_FILES.contains(&name))
        })
        .collect();
    let load = RuleSet::load(&rule_files, &[]);
    assert!(load.errors.is_empty(), "{:?}", load.errors);
    // No held trees, as in the bench's cold groups: revision B is revision A with one line
    // prepended, which a held tree would re-analyze incrementally.
    let mut analyzer = Analyzer::new(
        "ast-grep:cost",
        Arc::new(load.rules),
        ScanLimits::default(),
        1,
    )
    .expect("an analyzer")
    .with_tree_cache_bytes(0);
    let wave = &paths[..files];
    // Warm the page cache; the next scan reads revision B, so nothing is served from the cache.
    analyzer.scan(&roots[0], wave);
    let swapped = [roots[1].clone(), roots[0].clone()];
    let findings = measured(
        (pack != "floor").then_some(&mut analyzer),
        &swapped,
        wave,
        scans,
    );
    println!("{pack}: {files} files, {scans} scans, {findings} findings per scan");
}

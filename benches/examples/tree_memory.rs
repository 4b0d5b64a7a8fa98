//! Measures the memory the analyzer's tree cache holds per 1,000 analyzed files, and what the
//! cache charges against its budget for them, as the Markdown table docs/performance.md shows.
//!
//! ```sh
//! cargo run --release -p pi-native-hooks-benches --example tree_memory -- [FILES]
//! ```
//!
//! `FILES` (default 1,000) files of the generated corpus (`tests/support/src/corpus/`, the
//! benches' seed) are analyzed once by an analyzer holding every tree and once by one holding
//! none; the difference in the heap in use (glibc's `mallinfo2`: Rust's allocations and
//! tree-sitter's C allocations alike) is what the held trees cost. Linux with glibc only.

#![expect(
    clippy::cast_possible_truncation,
    clippy::cast_precision_loss,
    reason = "byte counts far below 2^52, printed as floats"
)]
#![expect(
    unsafe_code,
    reason = "glibc's allocator statistics are read through its C function `mallinfo2`"
)]

use pi_native_hooks_analysis::{Analyzer, RuleSet, ScanLimits};
use pi_native_hooks_config::builtin;
use pi_native_hooks_test_support::corpus;
use std::io::Write;
use std::sync::Arc;

/// glibc's `struct mallinfo2`.
#[repr(C)]
struct MallInfo2 {
    arena: usize,
    ordblks: usize,
    smblks: usize,
    hblks: usize,
    hblkhd: usize,
    usmblks: usize,
    fsmblks: usize,
    uordblks: usize,
    fordblks: usize,
    keepcost: usize,
}

unsafe extern "C" {
    fn mallinfo2() -> MallInfo2;
}

/// Bytes of heap in use: allocated arena chunks plus mmapped blocks.
fn heap_in_use() -> usize {
    // SAFETY: `mallinfo2` only reads the allocator's statistics.
    let info = unsafe { mallinfo2() };
    info.uordblks + info.hblkhd
}

fn say(line: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{line}");
}

fn main() {
    let files: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(1_000);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let paths = corpus::generate(dir.path(), files, 0x5EED);
    let source: usize = paths
        .iter()
        .map(|p| std::fs::metadata(dir.path().join(p)).map_or(0, |m| m.len() as usize))
        .sum();
    let rules = Arc::new(RuleSet::load(&builtin::rule_files(), &[]).rules);
    let measure = |budget: u64| {
        let before = heap_in_use();
        let mut analyzer = Analyzer::new(
            "ast-grep:builtin",
            Arc::clone(&rules),
            ScanLimits::unlimited(),
            1,
        )
        .expect("an analyzer")
        .with_tree_cache_bytes(budget);
        let snapshot = analyzer.scan(dir.path(), &paths);
        assert_eq!(snapshot.parsed_files, files, "every file is analyzed");
        drop(snapshot);
        let used = heap_in_use().saturating_sub(before);
        (used, analyzer.tree_cache_stats(), analyzer)
    };
    let (without, _, none) = measure(0);
    drop(none);
    let (with, stats, held) = measure(u64::MAX);
    assert_eq!(stats.held_files, files, "every tree is held");
    let held_bytes = with.saturating_sub(without);
    say(&format!(
        "| files | source | heap held, measured | × the source | charged against the budget |\n\
         | ---: | ---: | ---: | ---: | ---: |\n\
         | {} ({:.1} KiB each on average) | {:.1} MiB | {:.1} MiB | {:.1}x | {:.1} MiB |",
        pi_native_hooks_benches::thousands(files),
        source as f64 / files as f64 / 1024.0,
        source as f64 / (1024.0 * 1024.0),
        held_bytes as f64 / (1024.0 * 1024.0),
        held_bytes as f64 / source as f64,
        stats.held_bytes as f64 / (1024.0 * 1024.0),
    ));
    drop(held);
}

//! The generated corpus stays the same bytes for the same file count and seed: the CLI parity
//! test, the scan benches and the figures of `docs/performance.md` (whose sizes these are) depend
//! on it. A file of its own, outside `src/corpus/`, whose files the figures' digest covers.

use pi_native_hooks_test_support::corpus::generate;

/// Bytes and lines of the first `files` files of the corpus generated with `seed`, with how
/// many are `.tsx` and how many are test files.
fn measure(files: usize, seed: u64) -> (usize, usize, usize, usize) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let paths = generate(dir.path(), files, seed);
    assert_eq!(paths.len(), files);
    let (mut bytes, mut lines) = (0, 0);
    for path in &paths {
        let text = std::fs::read_to_string(dir.path().join(path)).expect("a generated file");
        bytes += text.len();
        lines += text.lines().count();
    }
    let tsx = paths
        .iter()
        .filter(|p| {
            std::path::Path::new(p)
                .extension()
                .is_some_and(|e| e == "tsx")
        })
        .count();
    let tests = paths.iter().filter(|p| p.contains("/__tests__/")).count();
    (bytes, lines, tsx, tests)
}

#[test]
fn the_benches_corpus_is_the_documented_one() {
    assert_eq!(measure(1, 0x5EED).0, 11_105);
    assert_eq!(measure(10, 0x5EED).0, 115_933);
    assert_eq!(measure(100, 0x5EED), (1_172_181, 31_087, 33, 20));
}

#[test]
fn another_seed_keeps_the_paths_and_changes_the_bytes() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let paths = generate(a.path(), 12, 1);
    assert_eq!(paths, generate(b.path(), 12, 2));
    let differ = paths.iter().all(|path| {
        std::fs::read(a.path().join(path)).unwrap() != std::fs::read(b.path().join(path)).unwrap()
    });
    assert!(differ, "every file's text depends on the seed");
}

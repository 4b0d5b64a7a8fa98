//! A deterministic corpus of realistic TypeScript and TSX files, shared by the integration tests
//! and the benchmarks.
//!
//! Each file is a few hundred lines of ordinary application code: imports, interfaces, type
//! aliases, enums, classes, async functions, generics, arrow functions, JSX components (in
//! `.tsx`), comments, template strings and some non-ASCII strings. Every so often a statement
//! holds a finding of one of the shipped rules (a non-null assertion `x!.y`, a dynamic
//! `import("./m")`, an explicit `any`, a `@ts-ignore` or linter suppression comment, a
//! `console.log` of a value, an empty `catch`, a `debugger`, an elision placeholder comment),
//! every file but the test files ends with unimplemented stubs, and every fifth file is a test
//! file (`__tests__/*.test.ts[x]`) holding focused and skipped tests (where `console.log` is
//! allowed). Some findings are suppressed with `// ast-grep-ignore: <rule-id> -- <reason>` or a
//! bare `// ast-grep-ignore`, some suppressions are unused, and valid look-alikes are spread
//! around (`!flag`, `typeof import("x")`, `import("x").T` in a type, `import.meta.url`, `import
//! type`, definite assignments, `unknown`, `console.info`, a `console.log` with a message, a
//! commented `catch`, prose comments, `it.each`, a conditional `test.skip`). Every file ends
//! with one unsuppressed finding, so a scan that skipped a file shows.
//!
//! The output depends only on the file count and the seed (a `SplitMix64` generator, no external
//! crate). A file's path depends only on its index, so two corpora of the same size generated with
//! different seeds have the same paths and different contents.
//!
//! The generator is split by what each part owns: `rng` the seeded numbers, `vocabulary` the
//! words and texts the code is made of, `rule` the rule families a finding belongs to and how
//! often each appears, `writer` one file being written (its lines, fresh names, a finding placed
//! with or without a suppression), `statements` the statements inside bodies (clean ones and
//! findings), `declarations` the top-level declarations of a module, and `test_suites` the
//! test files' suites. This file decides which files there are, where each goes and which
//! declarations it holds, and writes them.

mod declarations;
mod rng;
mod rule;
mod statements;
mod test_suites;
mod vocabulary;
mod writer;

use rng::Rng;
use std::fmt::Write as _;
use std::path::Path;
use vocabulary::{AREAS, NOUNS, VERBS};
use writer::Writer;

/// The share of files with suppression comments (every file is matched in the engine's single
/// traversal; in these the comments are then applied to the matches).
const SUPPRESSED_FILES_PERCENT: u64 = 30;

/// The contents of file `index` of the corpus generated with `seed`.
fn file_text(index: usize, seed: u64, tsx: bool, test: bool) -> String {
    let mut writer = Writer {
        rng: Rng(seed ^ (index as u64 + 1).wrapping_mul(0xD6E8_FEB8_6659_FD93)),
        suppressions: false,
        tsx,
        out: String::new(),
        lines: 0,
        serial: 0,
    };
    // Every other test file carries suppressions, so even a small corpus suppresses focused and
    // skipped tests.
    writer.suppressions = writer.rng.chance(SUPPRESSED_FILES_PERCENT) || (test && index % 10 == 9);
    let target = 180 + writer.rng.below(180);
    writer.header(index);
    if test {
        writer.tests();
    }
    while writer.lines < target {
        let roll = writer.rng.below(if tsx { 100 } else { 80 });
        match roll {
            0..=11 => writer.interface(),
            12..=21 => writer.types(),
            22..=29 => writer.constants(),
            30..=44 => writer.class(),
            45..=61 => writer.async_function(),
            62..=79 => writer.arrows(),
            _ => writer.component(),
        }
    }
    if writer.suppressions {
        writer.legacy();
    }
    if !test {
        writer.stubs();
    }
    // Every file holds at least this finding, so a file a scan skipped shows.
    writer.line(
        0,
        &format!("export default {{ registry, version: {index}, endpoint: settings!.endpoint }};"),
    );
    writer.out
}

/// The repository-relative path of file `index`, whether it is TSX and whether it is a test file:
/// depends only on the index. About one file in three is `.tsx`, one in five a test file.
fn file_path(index: usize) -> (String, bool, bool) {
    let area = AREAS[index % AREAS.len()];
    let noun = NOUNS[(index / AREAS.len()) % NOUNS.len()];
    let verb = VERBS[index % VERBS.len()];
    let tsx = index % 3 == 2;
    let test = index % 5 == 4;
    let ext = if tsx { "tsx" } else { "ts" };
    let path = if test {
        format!("src/{area}/__tests__/{noun}-{verb}-{index:03}.test.{ext}")
    } else {
        format!("src/{area}/{noun}-{verb}-{index:03}.{ext}")
    };
    (path, tsx, test)
}

/// Writes `files` generated TypeScript/TSX files under `dir` and returns their paths relative to
/// `dir` (with `/` separators), in index order. The same `files` and `seed` always produce the
/// same bytes.
///
/// # Panics
///
/// When a directory or file cannot be written (this is test and benchmark support).
pub fn generate(dir: &Path, files: usize, seed: u64) -> Vec<String> {
    let mut paths = Vec::with_capacity(files);
    for index in 0..files {
        let (relative, tsx, test) = file_path(index);
        let full = dir.join(&relative);
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent)
                .unwrap_or_else(|e| panic!("cannot create {}: {e}", parent.display()));
        }
        let mut text = file_text(index, seed, tsx, test);
        let _ = writeln!(text, "// end of {relative}");
        std::fs::write(&full, text)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", full.display()));
        paths.push(relative);
    }
    paths
}

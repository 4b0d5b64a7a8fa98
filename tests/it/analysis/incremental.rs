//! Incremental re-analysis: after every edit of a held file, the findings equal a full scan's by
//! ast-grep's own `CombinedScan`, byte for byte, and the incremental path is really taken. Real corpus files, the
//! shipped rules plus rules whose reach is unbounded, random edits in strings, comments, JSX,
//! suppression comments and multi-byte text, and whole-file rewrites.

use crate::support::combined_scan;
use pi_native_hooks_analysis::{Analyzer, EditHint, Finding, RuleSet, ScanLimits, SkipReason};
use pi_native_hooks_config::{ConfigFile, builtin};
use pi_native_hooks_fuzz::EDIT_SNIPPETS;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Small real files (licenses in tests/real-corpus), so that a case stays cheap: a module, a test
/// file with `test`/`expect`, and two JSX components with right-to-left (multi-byte) text.
const CORPUS: [&str; 4] = [
    "shadcn-ui/packages/shadcn/src/utils/env-loader.ts",
    "zod/packages/zod/src/v3/tests/custom.test.ts",
    "shadcn-ui/apps/v4/examples/base/separator-rtl.tsx",
    "shadcn-ui/apps/v4/examples/base/input-otp-rtl.tsx",
];

/// Rules beyond the shipped ones: one looking at any ancestor's text (its reach is unbounded,
/// so it is matched on the whole tree), one at the following sibling, one with a fix template.
const EXTRA_RULES: &str = r"
id: extra-return-in-named-function
language: TypeScript
severity: info
message: return inside $F
rule:
  kind: return_statement
  inside:
    stopBy: end
    pattern: function $F($$$) { $$$ }
---
id: extra-let-before-return
language: TypeScript
severity: hint
message: a let right before a return
rule:
  kind: lexical_declaration
  regex: ^let
  precedes:
    kind: return_statement
---
id: extra-var-to-let
language: TypeScript
severity: hint
message: var
rule:
  pattern: var $A = $B
fix: |-
  let $A =
    $B
";

fn extra_rules() -> Arc<RuleSet> {
    let mut files = builtin::rule_files();
    files.push(ConfigFile {
        path: PathBuf::from("rules/extra.yml"),
        text: EXTRA_RULES.to_owned(),
    });
    let load = RuleSet::load(&files, &[]);
    assert!(load.errors.is_empty(), "{:?}", load.errors);
    Arc::new(load.rules)
}

fn corpus(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("real-corpus")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn incremental_analyzer(rules: &Arc<RuleSet>) -> Analyzer {
    Analyzer::new(
        "ast-grep:test",
        Arc::clone(rules),
        ScanLimits::unlimited(),
        1,
    )
    .expect("analyzer")
}

/// One edit, with positions and lengths as fractions of the text so that shrinking stays valid.
#[derive(Clone, Debug)]
enum Edit {
    /// Insert a snippet at a position (near a string, comment or tag boundary when `anchored`).
    Insert {
        at: u32,
        anchored: bool,
        snippet: usize,
    },
    /// Delete up to `len` characters.
    Delete { at: u32, len: u8 },
    /// Replace up to `len` characters with a snippet.
    Replace { at: u32, len: u8, snippet: usize },
    /// Delete the line holding a position.
    DeleteLine { at: u32 },
    /// Duplicate the line holding a position.
    DuplicateLine { at: u32 },
    /// Replace the whole file with another corpus file.
    Rewrite { file: usize },
}

fn edit() -> impl Strategy<Value = Edit> {
    let snippet = 0..EDIT_SNIPPETS.len();
    prop_oneof![
        4 => (any::<u32>(), any::<bool>(), snippet.clone())
            .prop_map(|(at, anchored, snippet)| Edit::Insert { at, anchored, snippet }),
        2 => (any::<u32>(), 1..40u8).prop_map(|(at, len)| Edit::Delete { at, len }),
        2 => (any::<u32>(), 1..20u8, snippet)
            .prop_map(|(at, len, snippet)| Edit::Replace { at, len, snippet }),
        1 => any::<u32>().prop_map(|at| Edit::DeleteLine { at }),
        1 => any::<u32>().prop_map(|at| Edit::DuplicateLine { at }),
        1 => (0..CORPUS.len()).prop_map(|file| Edit::Rewrite { file }),
    ]
}

/// The character boundary `at` points to (scaled to the text), moved to the next string, comment
/// or tag delimiter when `anchored`.
fn boundary(text: &str, at: u32, anchored: bool) -> usize {
    let mut offset = (u64::from(at) * text.len() as u64 / (u64::from(u32::MAX) + 1)) as usize;
    while !text.is_char_boundary(offset) {
        offset += 1;
    }
    if anchored {
        // Just after an ASCII delimiter: still a character boundary.
        offset = text[offset..]
            .find(['"', '\'', '`', '/', '<', '>', '{'])
            .map_or(offset, |found| offset + found + 1);
    }
    offset
}

/// Applies `edit` to `text`; the `EditHint` an `edit` tool call would carry, when it is one.
fn apply(text: &str, edit: &Edit, rewrites: &[String]) -> (String, Option<EditHint>) {
    let splice = |start: usize, end: usize, with: &str| {
        let hint = EditHint {
            old_text: text[start..end].to_owned(),
            new_text: with.to_owned(),
        };
        (
            format!("{}{with}{}", &text[..start], &text[end..]),
            Some(hint),
        )
    };
    let chars_after = |start: usize, len: u8| {
        text[start..]
            .char_indices()
            .nth(usize::from(len))
            .map_or(text.len(), |(i, _)| start + i)
    };
    let line = |at: u32| {
        let offset = boundary(text, at, false);
        let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
        let end = text[offset..]
            .find('\n')
            .map_or(text.len(), |i| offset + i + 1);
        (start, end)
    };
    match *edit {
        Edit::Insert {
            at,
            anchored,
            snippet,
        } => {
            let at = boundary(text, at, anchored);
            splice(at, at, EDIT_SNIPPETS[snippet])
        }
        Edit::Delete { at, len } => {
            let at = boundary(text, at, false);
            splice(at, chars_after(at, len), "")
        }
        Edit::Replace { at, len, snippet } => {
            let at = boundary(text, at, false);
            splice(at, chars_after(at, len), EDIT_SNIPPETS[snippet])
        }
        Edit::DeleteLine { at } => {
            let (start, end) = line(at);
            splice(start, end, "")
        }
        Edit::DuplicateLine { at } => {
            let (start, end) = line(at);
            let copy = text[start..end].to_owned();
            splice(end, end, &copy)
        }
        Edit::Rewrite { file } => (rewrites[file].clone(), None),
    }
}

/// What ast-grep's `CombinedScan` finds in `text` with the rules of `reference`.
fn full_scan(reference: &Analyzer, path: &str, text: &str) -> Vec<Finding> {
    combined_scan::findings(reference.rules(), path, text)
}

/// How the analyses of a property run went, summed over its cases.
#[derive(Clone, Copy, Debug, Default)]
struct Totals {
    full: u64,
    incremental: u64,
    /// Incremental analyses of a version holding a suppression comment.
    incremental_with_suppressions: u64,
}

/// Runs `cases` random edit sequences over `file`, checking each step against a full scan;
/// returns how the analyses went.
fn run_property(file: usize, path: &str, cases: u32, hints: bool) -> Totals {
    let rules = extra_rules();
    let reference = incremental_analyzer(&rules);
    let rewrites: Vec<String> = CORPUS.iter().map(|name| corpus(name)).collect();
    let seed: [u8; 32] = std::env::var("INCREMENTAL_SEED")
        .ok()
        .and_then(|hex| u128::from_str_radix(&hex, 16).ok())
        .map_or_else(rand_seed, |s| {
            let mut seed = [0u8; 32];
            seed[..16].copy_from_slice(&s.to_le_bytes());
            seed
        });
    let cases = std::env::var("INCREMENTAL_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(cases);
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed));
    let totals = std::cell::RefCell::new(Totals::default());
    let result = runner.run(&prop::collection::vec(edit(), 1..5), |edits| {
        let mut analyzer = incremental_analyzer(&rules);
        let mut text = rewrites[file].clone();
        analyzer.scan_sources(&[(path.to_owned(), text.clone())]);
        for (step, edit) in edits.iter().enumerate() {
            let before = analyzer.tree_cache_stats().incremental_analyses;
            let (next, hint) = apply(&text, edit, &rewrites);
            text = next;
            let snapshot = match (hints, hint) {
                (true, Some(hint)) => analyzer.scan_sources_edited(
                    &[(path.to_owned(), text.clone())],
                    &[(path.to_owned(), hint)],
                ),
                _ => analyzer.scan_sources(&[(path.to_owned(), text.clone())]),
            };
            let expected = full_scan(&reference, path, &text);
            if snapshot.findings != expected {
                return Err(TestCaseError::fail(format!(
                    "step {step} ({edit:?}): incremental findings differ from a full scan\n\
                     incremental: {:#?}\nfull: {expected:#?}",
                    snapshot.findings
                )));
            }
            if text.contains("ast-grep-ignore")
                && analyzer.tree_cache_stats().incremental_analyses > before
            {
                totals.borrow_mut().incremental_with_suppressions += 1;
            }
        }
        let stats = analyzer.tree_cache_stats();
        let mut totals = totals.borrow_mut();
        totals.full += stats.full_analyses;
        totals.incremental += stats.incremental_analyses;
        Ok(())
    });
    if let Err(error) = result {
        panic!(
            "{error}\nreplay with INCREMENTAL_SEED={:032x}",
            u128::from_le_bytes(seed[..16].try_into().expect("16 bytes"))
        );
    }
    totals.into_inner()
}

fn rand_seed() -> [u8; 32] {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let mut seed = [0u8; 32];
    seed[..16].copy_from_slice(&nanos.to_le_bytes());
    seed
}

/// At least one analysis in twelve took the incremental path, so the invariant cannot hold only
/// because every edit fell back to a full scan, and some of them re-derived the suppressions of a
/// version holding suppression comments. Most random edits leave the file with a syntax error,
/// which always means a fresh parse: about one analysis in eight stays incremental here (an
/// agent's edits mostly keep the file valid; see `a_one_line_edit_takes_the_incremental_path`).
fn assert_mostly_incremental(totals: Totals) {
    assert!(totals.incremental_with_suppressions > 0, "{totals:?}");
    let edits = totals.incremental + totals.full;
    assert!(
        totals.incremental * 12 >= edits,
        "only {} of {edits} analyses were incremental",
        totals.incremental
    );
}

#[test]
fn edits_of_a_ts_file_keep_full_scan_findings() {
    let stats = run_property(0, "src/env-loader.ts", 2_500, false);
    assert_mostly_incremental(stats);
}

#[test]
fn edits_of_a_test_file_keep_full_scan_findings() {
    let stats = run_property(1, "src/custom.test.ts", 2_500, true);
    assert_mostly_incremental(stats);
}

#[test]
fn edits_of_jsx_keep_full_scan_findings() {
    let stats = run_property(2, "src/separator-rtl.tsx", 2_500, true);
    assert_mostly_incremental(stats);
}

#[test]
fn edits_of_multi_byte_text_keep_full_scan_findings() {
    let stats = run_property(3, "src/input-otp-rtl.tsx", 2_500, false);
    assert_mostly_incremental(stats);
}

/// A one-line edit of a held file is re-analyzed incrementally, through the hint and without it,
/// and finds what a full scan finds.
#[test]
fn a_one_line_edit_takes_the_incremental_path() {
    let rules = extra_rules();
    let reference = incremental_analyzer(&rules);
    let mut analyzer = incremental_analyzer(&rules);
    let path = "src/env-loader.ts".to_owned();
    let text = corpus(CORPUS[0]);
    analyzer.scan_sources(&[(path.clone(), text.clone())]);
    let line = text.find('\n').expect("a line") + 1;
    let edited = format!("{}debugger;\n{}", &text[..line], &text[line..]);
    let snapshot = analyzer.scan_sources(&[(path.clone(), edited.clone())]);
    assert_eq!(snapshot.findings, full_scan(&reference, &path, &edited));
    assert!(
        snapshot
            .findings
            .iter()
            .any(|f| f.rule.as_str() == "typescript-no-debugger-ts" && f.range.start.line == 1)
    );
    let hint = EditHint {
        old_text: "debugger;\n".to_owned(),
        new_text: "const q = a!.b;\n".to_owned(),
    };
    let again = edited.replacen("debugger;\n", "const q = a!.b;\n", 1);
    let snapshot =
        analyzer.scan_sources_edited(&[(path.clone(), again.clone())], &[(path.clone(), hint)]);
    assert_eq!(snapshot.findings, full_scan(&reference, &path, &again));
    let stats = analyzer.tree_cache_stats();
    assert_eq!((stats.full_analyses, stats.incremental_analyses), (1, 2));
    assert_eq!(stats.held_files, 1);
    assert!(stats.held_bytes > again.len() as u64);
}

/// A held file that becomes binary, oversized or unreadable drops its tree; one shrinking to
/// nothing or to one byte is analyzed like a full scan would.
#[test]
fn hostile_versions_drop_or_rebuild_the_held_tree() {
    let rules = extra_rules();
    let reference = incremental_analyzer(&rules);
    let limits = ScanLimits {
        max_file_bytes: 4096,
        ..ScanLimits::default()
    };
    let mut analyzer = Analyzer::new("ast-grep:test", Arc::clone(&rules), limits, 1).expect("a");
    let path = "a.ts".to_owned();
    let text = corpus(CORPUS[0]);
    analyzer.scan_sources(&[(path.clone(), text.clone())]);
    assert_eq!(analyzer.tree_cache_stats().held_files, 1);

    let binary = format!("{text}\0");
    let snapshot = analyzer.scan_contents(vec![(path.clone(), binary.into_bytes())]);
    assert_eq!(snapshot.skipped[0].reason, SkipReason::Binary);
    assert_eq!(analyzer.tree_cache_stats().held_files, 0);

    analyzer.scan_sources(&[(path.clone(), text.clone())]);
    let big = format!("{text}{}", " ".repeat(4096));
    let snapshot = analyzer.scan_sources(&[(path.clone(), big)]);
    assert!(matches!(
        snapshot.skipped[0].reason,
        SkipReason::TooLarge { .. }
    ));
    assert_eq!(analyzer.tree_cache_stats().held_files, 0);

    analyzer.scan_sources(&[(path.clone(), text.clone())]);
    let mut invalid = text.clone().into_bytes();
    invalid.push(0xff);
    let snapshot = analyzer.scan_contents(vec![(path.clone(), invalid)]);
    assert_eq!(snapshot.skipped[0].reason, SkipReason::NotUtf8);
    assert_eq!(analyzer.tree_cache_stats().held_files, 0);

    for version in [text.as_str(), "", "x", "", "debugger;\n", "debugger;\nx"] {
        let snapshot = analyzer.scan_sources(&[(path.clone(), version.to_owned())]);
        assert_eq!(snapshot.findings, full_scan(&reference, &path, version));
    }
    assert!(analyzer.tree_cache_stats().incremental_analyses >= 1);
}

/// The byte budget holds: least recently used files are evicted, and a budget of zero holds
/// nothing (every analysis is a full one).
#[test]
fn the_tree_cache_stays_within_its_budget() {
    let rules = extra_rules();
    let text = corpus(CORPUS[0]);
    let files: Vec<(String, String)> = (0..10)
        .map(|i| (format!("f{i}.ts"), text.clone()))
        .collect();
    let mut one_file = incremental_analyzer(&rules).with_tree_cache_bytes(u64::MAX);
    one_file.scan_sources(&files[..1]);
    let per_file = one_file.tree_cache_stats().held_bytes;
    assert!(per_file > text.len() as u64);

    let mut analyzer = incremental_analyzer(&rules).with_tree_cache_bytes(per_file * 3);
    analyzer.scan_sources(&files);
    let stats = analyzer.tree_cache_stats();
    assert_eq!(stats.held_files, 3);
    assert!(stats.held_bytes <= per_file * 3);
    assert_eq!(stats.evictions, 7);

    let mut none = incremental_analyzer(&rules).with_tree_cache_bytes(0);
    none.scan_sources(&files[..1]);
    none.scan_sources(&[(files[0].0.clone(), format!("{text}\n"))]);
    let stats = none.tree_cache_stats();
    assert_eq!((stats.held_files, stats.incremental_analyses), (0, 0));
    assert_eq!(stats.full_analyses, 2);
}

/// A text holding none of the literals its rules need, and no suppression comment, cannot match:
/// it is not parsed and nothing is held for it; the version that brings a literal is analyzed in
/// full, and the next edit incrementally.
#[test]
fn a_file_no_rule_can_match_is_not_parsed_or_held() {
    let rules = RuleSet::load(
        &[ConfigFile {
            path: PathBuf::from("rules/literal.yml"),
            text: "id: literal-only\nlanguage: TypeScript\nseverity: info\nmessage: fooBar\n\
                   rule:\n  kind: identifier\n  regex: ^fooBar$\n"
                .to_owned(),
        }],
        &[],
    );
    assert!(rules.errors.is_empty(), "{:?}", rules.errors);
    let rules = Arc::new(rules.rules);
    let reference = incremental_analyzer(&rules);
    let mut analyzer = incremental_analyzer(&rules);
    let path = "src/env-loader.ts".to_owned();
    let text = corpus(CORPUS[0]);
    assert!(!text.contains("fooBar"));
    let snapshot = analyzer.scan_sources(&[(path.clone(), text.clone())]);
    assert!(snapshot.findings.is_empty());
    let stats = analyzer.tree_cache_stats();
    assert_eq!((stats.held_files, stats.full_analyses), (0, 1));

    let line = text.find('\n').expect("a line") + 1;
    let with = format!("{}const fooBar = 1;\n{}", &text[..line], &text[line..]);
    let snapshot = analyzer.scan_sources(&[(path.clone(), with.clone())]);
    assert_eq!(snapshot.findings, full_scan(&reference, &path, &with));
    assert_eq!(snapshot.findings.len(), 1);
    let again = with.replacen("const fooBar = 1;", "const fooBar = 2;", 1);
    let snapshot = analyzer.scan_sources(&[(path.clone(), again.clone())]);
    assert_eq!(snapshot.findings, full_scan(&reference, &path, &again));
    let stats = analyzer.tree_cache_stats();
    assert_eq!(
        (
            stats.held_files,
            stats.full_analyses,
            stats.incremental_analyses
        ),
        (1, 2, 1)
    );
}

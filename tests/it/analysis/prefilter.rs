//! The rules' literal pre-filters never change a finding: the built-in pack finds byte-identical
//! findings with and without them on the generated corpus, the vendored real code, the shared
//! corpora and every rule fixture; and the conditions derived for the built-in rules are the
//! literals their patterns really need.

use crate::support::{corpora, corpus, test_data};
use pi_native_hooks_analysis::RuleNeeds;
use pi_native_hooks_analysis::{Analyzer, Finding, RuleSet, ScanLimits};
use pi_native_hooks_config::builtin;
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

fn builtin_rules() -> RuleSet {
    let load = RuleSet::load(&builtin::rule_files(), &[]);
    assert!(load.errors.is_empty(), "{:?}", load.errors);
    load.rules
}

fn analyzer(rules: RuleSet) -> Analyzer {
    Analyzer::new(
        "ast-grep:builtin",
        Arc::new(rules),
        ScanLimits::unlimited(),
        1,
    )
    .expect("an analyzer")
}

/// Every `.ts`/`.tsx`/`.mts`/`.cts` file under `dir` (hidden directories skipped), relative.
pub(super) fn sources_under(dir: &Path, prefix: &Path, out: &mut Vec<(String, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        let name = entry.file_name();
        let relative = prefix.join(&name);
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() && !name.to_string_lossy().starts_with('.') {
            sources_under(&entry.path(), &relative, out);
        } else if kind.is_file()
            && ["ts", "tsx", "mts", "cts"]
                .iter()
                .any(|ext| relative.extension().is_some_and(|e| e == *ext))
            && let (Some(path), Ok(text)) =
                (relative.to_str(), std::fs::read_to_string(entry.path()))
        {
            out.push((path.to_owned(), text));
        }
    }
}

/// The findings of both rule sets over `sources`, which must be identical; returns how many.
fn assert_same_findings(label: &str, sources: &[(String, String)]) -> usize {
    let mut with = analyzer(builtin_rules());
    let mut without = analyzer(builtin_rules().without_prefilters());
    let mut total = 0;
    // In batches, so a difference names a small set of files.
    for batch in sources.chunks(50) {
        let a = with.scan_sources(batch);
        let b = without.scan_sources(batch);
        assert!(a.is_complete() && b.is_complete(), "{label}: {a:?}");
        assert_eq!(a.omitted_findings, 0);
        if a.findings != b.findings {
            let a: BTreeSet<&Finding> = a.findings.iter().collect();
            let b: BTreeSet<&Finding> = b.findings.iter().collect();
            panic!(
                "{label}: the pre-filters changed the findings\nonly with: {:#?}\nonly without: {:#?}",
                a.difference(&b).collect::<Vec<_>>(),
                b.difference(&a).collect::<Vec<_>>()
            );
        }
        total += a.findings.len();
    }
    total
}

fn rule_ids_found(sources: &[(String, String)]) -> BTreeSet<String> {
    let snapshot = analyzer(builtin_rules()).scan_sources(sources);
    snapshot
        .findings
        .iter()
        .map(|f| f.rule.to_string())
        .collect()
}

#[test]
fn generated_corpus_findings_are_the_same_without_prefilters() {
    for seed in [1, 2, 0x5EED] {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let paths = corpus::generate(dir.path(), 60, seed);
        let sources: Vec<(String, String)> = paths
            .iter()
            .map(|path| {
                let text = std::fs::read_to_string(dir.path().join(path)).expect("a corpus file");
                (path.clone(), text)
            })
            .collect();
        let found = assert_same_findings(&format!("seed {seed}"), &sources);
        // The corpus fires every rule, so every pre-filter is on the path of a real match.
        let fired = rule_ids_found(&sources);
        for id in builtin_rules().ids() {
            assert!(fired.contains(id), "seed {seed}: the corpus must fire {id}");
        }
        assert!(found > 100, "seed {seed}: {found} findings");
    }
}

#[test]
fn real_code_findings_are_the_same_without_prefilters() {
    let mut sources = Vec::new();
    sources_under(&test_data("real-corpus"), Path::new(""), &mut sources);
    assert_eq!(sources.len(), 240, "the vendored real-code sample");
    let found = assert_same_findings("real-corpus", &sources);
    assert!(found > 100, "{found} findings in the real-code sample");
}

/// The full shared corpora (public TypeScript kept beside the checkout, `../shared/corpora`, or
/// one level further up from a worktree, or `$CORPORA`): thousands of files, so run on demand.
#[test]
#[ignore = "scans the shared corpora (about 4,300 files); run with `--ignored` where they exist"]
fn shared_corpora_findings_are_the_same_without_prefilters() {
    let shared = corpora();
    assert!(
        shared.is_dir(),
        "the shared corpora (`shared/corpora` beside the checkout or above it, or `$CORPORA`): \
         no {}",
        shared.display()
    );
    for corpus in ["zod", "shadcn-ui"] {
        let mut sources = Vec::new();
        sources_under(&shared.join(corpus), Path::new(""), &mut sources);
        assert!(sources.len() > 400, "{corpus}: {} files", sources.len());
        let found = assert_same_findings(corpus, &sources);
        eprintln!(
            "{corpus}: {} files, {found} findings identical",
            sources.len()
        );
    }
}

#[test]
fn rule_fixtures_findings_are_the_same_without_prefilters() {
    let mut sources = Vec::new();
    sources_under(&test_data("fixtures"), Path::new(""), &mut sources);
    let invalid = sources
        .iter()
        .filter(|(path, _)| path.contains("invalid"))
        .count();
    assert!(invalid >= 24, "{invalid} invalid fixtures");
    // Each fixture alone, so the file-level condition is judged on that fixture's text only.
    for source in &sources {
        assert_same_findings(&source.0, std::slice::from_ref(source));
    }
    // Every invalid fixture has a finding of each rule it is named after, so no condition cut it.
    let snapshot = analyzer(builtin_rules()).scan_sources(&sources);
    for (path, _) in sources.iter().filter(|(path, _)| path.contains("invalid")) {
        assert!(
            snapshot.findings.iter().any(|f| &f.path == path),
            "{path}: an invalid fixture must have findings"
        );
    }
}

fn literals(items: &[&str]) -> Option<BTreeSet<Vec<u8>>> {
    Some(items.iter().map(|item| item.as_bytes().to_vec()).collect())
}

#[test]
fn builtin_rules_need_the_literals_of_their_patterns() {
    let rules = builtin_rules();
    let needs = |id: &str| rules.prefilter_needs(id);
    assert_eq!(
        needs("typescript-no-lint-suppression-ts"),
        RuleNeeds {
            node: literals(&["biome-ignore", "eslint-disable", "oxlint-disable"]),
            file: literals(&["biome-ignore", "eslint-disable", "oxlint-disable"]),
        }
    );
    assert_eq!(
        needs("typescript-no-ts-suppression-tsx").node,
        literals(&["@ts-expect-error", "@ts-ignore", "@ts-nocheck"])
    );
    assert_eq!(
        needs("typescript-no-console-log-ts").node,
        literals(&["console"])
    );
    assert_eq!(
        needs("typescript-no-focused-test-ts").node,
        literals(&["fdescribe", "fit", "only"])
    );
    assert_eq!(
        needs("typescript-no-explicit-any-ts").node,
        literals(&["any"])
    );
    // `xit(...)` and friends: the literal `x` multiplied into the alternatives.
    let skipped = needs("typescript-no-skipped-test-ts")
        .node
        .expect("a condition");
    for literal in ["skip", "todo", "fixme", "xit", "xdescribe"] {
        assert!(skipped.contains(literal.as_bytes()), "{literal}");
    }
    // Needed by an ancestor, not by the node: only the file must hold it.
    let import = needs("typescript-no-dynamic-import-ts");
    assert_eq!(import.node, None);
    // Nothing to derive: a bare kind.
    assert_eq!(
        needs("typescript-no-non-null-assertion-ts"),
        RuleNeeds::default()
    );
}

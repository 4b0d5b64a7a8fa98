//! `ast-grep-ignore` comments on the analyzer's path, which re-derives them from each version of a
//! file (so that such files are re-analyzed incrementally), against ast-grep's own `CombinedScan`
//! (`support::combined_scan`): every placement ast-grep distinguishes, first as a full analysis,
//! then after an incremental edit away from the comments and after one of a comment.

use super::prefilter::sources_under;
use crate::support::{combined_scan, corpus, test_data};
use pi_native_hooks_analysis::{Analyzer, Finding, ScanLimits};
use pi_native_hooks_config::builtin;
use std::path::Path;
use std::sync::Arc;

fn analyzer() -> Analyzer {
    let load = pi_native_hooks_analysis::RuleSet::load(&builtin::rule_files(), &[]);
    assert!(load.errors.is_empty(), "{:?}", load.errors);
    Analyzer::new(
        "ast-grep:test",
        Arc::new(load.rules),
        ScanLimits::unlimited(),
        1,
    )
    .expect("analyzer")
}

/// Enough unrelated code that a one-line edit stays a small part of the file.
fn padding() -> String {
    (0..40).fold(String::new(), |mut text, i| {
        text.push_str(&format!(
            "export function pad{i}(x: number): number {{\n  return x + {i};\n}}\n"
        ));
        text
    })
}

/// One placement: the text before the padding, and what ast-grep makes of it.
struct Case {
    name: &'static str,
    path: &'static str,
    head: &'static str,
    /// Rule ids expected among the reported findings (`unused-suppression` for a comment that
    /// suppressed nothing), and rule ids expected to be absent: what makes the case the one it
    /// claims to be.
    reported: &'static [&'static str],
    suppressed: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        name: "a bare comment heading the file, then a blank line, silences the file",
        path: "a.ts",
        head: "// ast-grep-ignore\n\ndebugger;\nconsole.log(a);\n",
        reported: &[],
        suppressed: &["typescript-no-debugger-ts", "typescript-no-console-log-ts"],
    },
    Case {
        name: "a bare comment on the first line followed by code suppresses that line only",
        path: "a.ts",
        head: "// ast-grep-ignore\ndebugger;\nconsole.log(a);\n",
        reported: &["typescript-no-console-log-ts"],
        suppressed: &["typescript-no-debugger-ts"],
    },
    Case {
        name: "a file-wide comment naming one rule",
        path: "a.ts",
        head: "// ast-grep-ignore: typescript-no-debugger-ts\n\ndebugger;\nconsole.log(a);\n",
        reported: &["typescript-no-console-log-ts"],
        suppressed: &["typescript-no-debugger-ts"],
    },
    Case {
        name: "a named rule on the next line, and a comment that suppresses nothing",
        path: "a.ts",
        head: "const a = 1;\n// ast-grep-ignore: typescript-no-debugger-ts\ndebugger;\n// ast-grep-ignore: typescript-no-explicit-any-ts\nconst b = 2;\n",
        reported: &["unused-suppression"],
        suppressed: &["typescript-no-debugger-ts"],
    },
    Case {
        name: "a trailing comment after a multi-line statement applies to its first line",
        path: "a.ts",
        head: "const a = 1;\nconsole.log(\n  a,\n); // ast-grep-ignore: typescript-no-console-log-ts\n",
        reported: &[],
        suppressed: &["typescript-no-console-log-ts"],
    },
    Case {
        name: "two comments for one line: the later wins, the earlier is unused",
        path: "a.ts",
        head: "const a = 1;\n// ast-grep-ignore: typescript-no-explicit-any-ts\n/* ast-grep-ignore: typescript-no-debugger-ts */\ndebugger;\n",
        reported: &["unused-suppression"],
        suppressed: &["typescript-no-debugger-ts"],
    },
    Case {
        name: "a block comment naming rules, with tabs and a closing delimiter",
        path: "a.ts",
        head: "const a = 1;\n/* ast-grep-ignore: typescript-no-debugger-ts,\ttypescript-no-console-log-ts */\ndebugger; console.log(a);\n",
        reported: &[],
        suppressed: &["typescript-no-debugger-ts", "typescript-no-console-log-ts"],
    },
    Case {
        name: "the marker as prose, or in a string, is no comment",
        path: "a.ts",
        head: "const a = 1;\n// see ast-grep-ignore in the docs\ndebugger;\nconst s = \"ast-grep-ignore\";\ndebugger;\n",
        reported: &["typescript-no-debugger-ts"],
        suppressed: &[],
    },
    Case {
        name: "a comment without a colon suppresses every rule",
        path: "a.ts",
        head: "const a = 1;\n// ast-grep-ignore because of reasons\ndebugger;\n",
        reported: &[],
        suppressed: &["typescript-no-debugger-ts"],
    },
    Case {
        name: "a JSX comment",
        path: "a.tsx",
        head: "const a = 1;\nexport const C = () => (\n  <div>\n    {/* ast-grep-ignore */}\n    {console.log(a)}\n    {console.log(a)}\n  </div>\n);\n",
        reported: &["typescript-no-console-log-tsx"],
        suppressed: &[],
    },
];

fn rules_of(findings: &[Finding]) -> Vec<&str> {
    findings.iter().map(|f| f.rule.as_str()).collect()
}

/// Scans `text` as `path` with the held-tree analyzer and checks it against `CombinedScan`.
fn check(
    analyzer: &mut Analyzer,
    reference: &Analyzer,
    name: &str,
    path: &str,
    text: &str,
) -> Vec<Finding> {
    let snapshot = analyzer.scan_sources(&[(path.to_owned(), text.to_owned())]);
    let expected = combined_scan::findings(reference.rules(), path, text);
    assert_eq!(snapshot.findings, expected, "{name}:\n{text}");
    let at_revision = reference.findings_in(path, text.as_bytes());
    assert_eq!(at_revision.as_ref(), Ok(&expected), "{name} at a revision");
    expected
}

#[test]
fn suppressions_are_applied_as_ast_grep_applies_them() {
    let reference = analyzer();
    for case in CASES {
        let mut analyzer = analyzer();
        let text = format!("{}{}", case.head, padding());
        let findings = check(&mut analyzer, &reference, case.name, case.path, &text);
        let rules = rules_of(&findings);
        for rule in case.reported {
            assert!(
                rules.contains(rule),
                "{}: {rule} not in {rules:?}",
                case.name
            );
        }
        for rule in case.suppressed {
            let visible = findings.iter().filter(|f| f.rule.as_str() == *rule).count();
            assert_eq!(visible, 0, "{}: {rule} in {rules:?}", case.name);
        }

        // An edit far from the comments keeps what they suppress; editing a comment re-decides
        // what it suppresses (its colon dropped, which makes it name every rule, or a space
        // added when it has none; then its marker broken); a finding added where no comment
        // reaches. Each version differs from the one before, so none is served from the content
        // cache.
        let far = text.replacen("return x + 39;", "return x + 39 + 1;", 1);
        let loosened = if far.contains("ast-grep-ignore:") {
            far.replacen("ast-grep-ignore:", "ast-grep-ignore", 1)
        } else {
            far.replacen("ast-grep-ignore", "ast-grep-ignore ", 1)
        };
        let broken = loosened.replacen("ast-grep-ignore", "ast-grep-ignorx", 1);
        let added = broken.replacen("return x + 20;", "return x! + 20;", 1);
        for version in [&far, &loosened, &broken, &added] {
            check(&mut analyzer, &reference, case.name, case.path, version);
        }
        let stats = analyzer.tree_cache_stats();
        assert_eq!(
            (stats.full_analyses, stats.incremental_analyses),
            (1, 4),
            "{}: every edit is re-analyzed incrementally",
            case.name
        );
    }
}

/// Every file that mentions the marker in the generated corpus (30% of its files carry directives:
/// rule-specific, bare, trailing, two rules, the other language's rule, stale) and in the vendored
/// real code: the analyzer's findings equal `CombinedScan`'s, unused-suppression hints included.
#[test]
fn corpus_files_with_suppressions_match_combined_scan() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut sources: Vec<(String, String)> = corpus::generate(dir.path(), 100, 0x5EED)
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(dir.path().join(&path)).expect("a corpus file");
            (path, text)
        })
        .collect();
    sources_under(&test_data("real-corpus"), Path::new(""), &mut sources);
    sources.retain(|(_, text)| text.contains("ast-grep-ignore"));
    assert!(
        sources.len() >= 30,
        "{} files with directives",
        sources.len()
    );
    let reference = analyzer();
    let mut analyzer = analyzer();
    let mut unused = 0;
    for (path, text) in &sources {
        let snapshot = analyzer.scan_sources(&[(path.clone(), text.clone())]);
        let expected = combined_scan::findings(reference.rules(), path, text);
        assert_eq!(snapshot.findings, expected, "{path}");
        let at_revision = reference.findings_in(path, text.as_bytes());
        assert_eq!(at_revision.as_ref(), Ok(&expected), "{path} at a revision");
        unused += expected
            .iter()
            .filter(|f| f.rule.as_str() == "unused-suppression")
            .count();
    }
    assert!(unused > 0, "the corpus holds stale directives");
}

/// Hostile directives: thousands of them (each found by a search and a short walk up the tree,
/// never a traversal per directive), control characters and multi-byte text in them, the marker
/// glued to other words, and directives inside strings and JSX text; a full analysis and an
/// incremental edit both equal `CombinedScan`'s.
#[test]
fn thousands_of_odd_directives_match_combined_scan() {
    let mut text = String::from("const a = 1;\n");
    for i in 0..2_000 {
        match i % 5 {
            0 => text.push_str("// ast-grep-ignore: typescript-no-debugger-ts\ndebugger;\n"),
            1 => {
                text.push_str("// ast-grep-ignore: typescript-no-explicit-any-ts\u{1b}[31m\u{7}\n");
            }
            2 => text.push_str("/* ast-grep-ignoreé: ünïcode */ debugger;\n"),
            3 => text.push_str("const s = \"// ast-grep-ignore\"; debugger; // ast-grep-ignore\n"),
            _ => text.push_str("debugger; /*ast-grep-ignore*/\n"),
        }
    }
    let reference = analyzer();
    let mut analyzer = analyzer();
    let findings = check(&mut analyzer, &reference, "hostile", "a.ts", &text);
    assert!(
        findings
            .iter()
            .any(|f| f.rule.as_str() == "unused-suppression"),
        "stale directives are reported"
    );
    let edited = text.replacen("const a = 1;", "const a = 2;", 1);
    check(&mut analyzer, &reference, "hostile", "a.ts", &edited);
    let stats = analyzer.tree_cache_stats();
    assert_eq!((stats.full_analyses, stats.incremental_analyses), (1, 1));
}

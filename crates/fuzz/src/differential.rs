//! Owns the two differential targets, both judged against ast-grep's own `CombinedScan`
//! (`pi_native_hooks_test_support::reference`) with the shipped rules:
//! - `reanalysis`: a file analyzed, then edited up to four times and analyzed again from the
//!   analyzer's held tree (the incremental path a session takes); after every version the
//!   findings must equal a full scan's.
//! - `suppressions`: a text assembled from suppression comments (`ast-grep-ignore` with and
//!   without rule ids, in every comment form), code the shipped rules flag, and arbitrary text;
//!   a fresh analysis's findings, with the suppressions it derives and its unused-suppression
//!   hints, must equal ast-grep's.

use crate::listed_or_arbitrary;
use arbitrary::{Result, Unstructured};
use pi_native_hooks_analysis::{Analyzer, RuleSet, ScanLimits, load_source};
use pi_native_hooks_config::ConfigSource;
use pi_native_hooks_test_support::reference;
use std::sync::{Arc, LazyLock};

/// The shipped rules, loaded once.
static RULES: LazyLock<Arc<RuleSet>> = LazyLock::new(|| load_source(&ConfigSource::BuiltIn).0);

/// Files an edit starts from: a module, a test and a component with multi-byte text.
const BASES: [(&str, &str); 3] = [
    (
        "src/module.ts",
        "import { z } from \"zod\";\n\nexport function parse(input: unknown): number {\n  const schema = z.number();\n  // ast-grep-ignore: typescript-no-console-log-ts -- tracing\n  console.log(input);\n  return schema.parse(input)!;\n}\n\nexport const later = () => import(\"./later\");\n",
    ),
    (
        "src/module.test.ts",
        "describe(\"parse\", () => {\n  it.only(\"reads a number\", () => {\n    expect(parse(1)).toBe(1);\n  });\n  it.skip(\"rejects text\", () => {\n    try { parse(\"a\") } catch (e) {}\n  });\n});\n",
    ),
    (
        "src/Greeting.tsx",
        "export function Greeting(props: { name: string }) {\n  debugger;\n  return <p dir=\"rtl\">\u{645}\u{631}\u{62d}\u{628}\u{627} {props.name!} \u{1f600}</p>;\n}\n",
    ),
];

/// Text an edit inserts (the differential targets here, and the incremental property tests):
/// findings of every shipped rule, suppressions in every form, syntax that breaks the parse, and
/// multi-byte characters.
pub const EDIT_SNIPPETS: &[&str] = &[
    "x",
    "\u{e9}",
    "\u{1f600} ",
    "\n",
    " ",
    "\"",
    "'",
    "`",
    "{",
    "}",
    "(",
    ";",
    "/*",
    "*/",
    "<div>",
    "</div>",
    "{/* \u{2026} */}",
    "{/* ast-grep-ignore */}",
    "console.log(a);\n",
    "debugger;\n",
    "const q = a!.b;\n",
    "let v: any = 1;\n",
    "try { f() } catch (e) {}\n",
    "await import(\"./m\");\n",
    "import(\"./m\");\n",
    "// ...\n",
    "// rest of the code\n",
    "it.only(\"x\", () => {});\n",
    "throw new Error(\"Not implemented\");\n",
    "function named() { return 1 }\n",
    "var z = 2;\n",
    "let w = 1;\nreturn w;\n",
    "// @ts-ignore\n",
    "/* eslint-disable */\n",
    "// eslint-disable-next-line\n",
    "// ast-grep-ignore\n",
    "// ast-grep-ignore: typescript-no-console-log-ts\n",
    "// ast-grep-ignore: typescript-no-debugger-ts\n",
    "// ast-grep-ignore: typescript-no-console-log-ts, typescript-no-debugger-ts\n",
    "// ast-grep-ignore: typescript-no-debugger-tsx -- why\n",
    "/* ast-grep-ignore: typescript-no-non-null-assertion-ts */",
    "// ast-grep-ignore: no-such-rule\n",
    "//ast-grep-ignore:typescript-no-explicit-any-ts\n",
    "// AST-GREP-IGNORE\n",
    "\"cha\u{ee}ne \u{fc}n\u{ef}code\"",
];

/// Analyzes `text` as `path` with `analyzer` and checks the findings against ast-grep's.
fn check(analyzer: &mut Analyzer, path: &str, text: &str) {
    let snapshot = analyzer.scan_sources(&[(path.to_owned(), text.to_owned())]);
    if !snapshot.skipped.is_empty() {
        // Over a limit or a panic caught and named: not a comparison to make.
        return;
    }
    let expected = reference::findings(&RULES, path, text);
    assert_eq!(
        snapshot.findings, expected,
        "the analyzer and ast-grep's CombinedScan disagree on {path}:\n{text}"
    );
}

fn analyzer() -> Option<Analyzer> {
    Analyzer::new(
        "ast-grep:fuzz",
        Arc::clone(&RULES),
        ScanLimits::default(),
        1,
    )
    .ok()
}

/// Inserted text: a snippet, or arbitrary text.
fn inserted(u: &mut Unstructured<'_>) -> Result<String> {
    listed_or_arbitrary(u, EDIT_SNIPPETS, (3, 4), 64)
}

/// A char boundary of `text`, chosen by the input.
fn boundary(u: &mut Unstructured<'_>, text: &str) -> Result<usize> {
    let at = u.int_in_range(0..=text.len())?;
    Ok((0..=at)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0))
}

/// Edits of a file, each analyzed incrementally and compared with a full scan.
pub fn reanalysis(data: &[u8]) {
    let _ = reanalysis_checked(&mut Unstructured::new(data));
}

fn reanalysis_checked(u: &mut Unstructured<'_>) -> Result<()> {
    let (path, base) = *u.choose(&BASES)?;
    let Some(mut analyzer) = analyzer() else {
        return Ok(());
    };
    let mut text = base.to_owned();
    check(&mut analyzer, path, &text);
    for _ in 0..u.int_in_range(1..=4)? {
        let start = boundary(u, &text)?;
        let removed = u.int_in_range(0..=48)?;
        let end = (start + removed).min(text.len());
        let end = (end..=text.len())
            .find(|&i| text.is_char_boundary(i))
            .unwrap_or(text.len());
        let insert = inserted(u)?;
        text.replace_range(start..end, &insert);
        check(&mut analyzer, path, &text);
    }
    Ok(())
}

/// A text of suppression comments, flagged code and arbitrary text, analyzed fresh.
pub fn suppressions(data: &[u8]) {
    let _ = suppressions_checked(&mut Unstructured::new(data));
}

fn suppressions_checked(u: &mut Unstructured<'_>) -> Result<()> {
    let path = *u.choose(&["src/a.ts", "src/a.tsx"])?;
    let mut text = String::new();
    for _ in 0..u.int_in_range(1..=24)? {
        text.push_str(&inserted(u)?);
    }
    if let Some(mut analyzer) = analyzer() {
        check(&mut analyzer, path, &text);
    }
    Ok(())
}

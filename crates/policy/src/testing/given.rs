//! Owns the snapshot of a fixture case's given findings: the findings a case states instead of
//! having the test runner compute them, checked against the case's files (a finding must point
//! into one of them) and keyed like the analyzer's own (`text_hash` of the text at the span).

use super::fixture::{GivenFinding, SourceFile};
use crate::registry::contract::DiagnosticSpec;
use pi_native_hooks_analysis::{
    AnalysisSnapshot, AnalyzerKey, Finding, Position, Severity, SourceRange, text_hash,
};
use std::sync::Arc;

/// The variant of the key a given snapshot carries when the policy names only a family
/// (`typescript` → `typescript:fixture`), so the policy's selector accepts it.
const FIXTURE_VARIANT: &str = "fixture";

/// True when the test runner can compute the findings of the analyzer `spec` consumes: only
/// ast-grep runs in-process on in-memory files.
pub(super) fn runner_analyzes(spec: &DiagnosticSpec) -> bool {
    AnalyzerKey::personal().is_selected_by(&spec.analyzer)
        || AnalyzerKey::builtin().is_selected_by(&spec.analyzer)
}

/// The snapshot of `given` over `files`, under a key `spec` selects.
///
/// # Errors
/// Why a given finding cannot be placed: it names a path that is not among `files`, or a line or
/// column beyond its file, or it ends before it starts.
pub(super) fn given_snapshot(
    spec: &DiagnosticSpec,
    files: &[SourceFile],
    given: &[GivenFinding],
) -> Result<Arc<AnalysisSnapshot>, String> {
    let mut findings = given
        .iter()
        .enumerate()
        .map(|(index, finding)| {
            place(files, finding).map_err(|why| {
                format!(
                    "given finding {} ({} at {}:{}:{}): {why}",
                    index + 1,
                    finding.rule,
                    finding.path,
                    finding.line,
                    finding.column
                )
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    findings.sort();
    let analyzer = if spec.analyzer.contains(':') {
        AnalyzerKey::from(spec.analyzer.as_str())
    } else {
        AnalyzerKey::from(format!("{}:{FIXTURE_VARIANT}", spec.analyzer))
    };
    Ok(Arc::new(AnalysisSnapshot {
        analyzer,
        paths: files.iter().map(|f| f.path.clone()).collect(),
        findings,
        ..AnalysisSnapshot::default()
    }))
}

/// `given` as a finding in its file, its 1-based positions made 0-based and checked.
fn place(files: &[SourceFile], given: &GivenFinding) -> Result<Finding, String> {
    let file = files
        .iter()
        .find(|f| f.path == given.path)
        .ok_or_else(|| "its path is not among the case's `files`".to_owned())?;
    let lines: Vec<&str> = file.source.split('\n').collect();
    let line_of = |line: usize| {
        line.checked_sub(1)
            .and_then(|index| lines.get(index))
            .map(|text| text.strip_suffix('\r').unwrap_or(text))
            .ok_or_else(|| format!("{} has no line {line}", given.path))
    };
    let start_text = line_of(given.line)?;
    let end_line = given.end_line.unwrap_or(given.line);
    let end_text = line_of(end_line)?;
    let width = |text: &str| text.chars().count() + 1;
    let end_column = given.end_column.unwrap_or_else(|| width(end_text));
    for (line, column, text) in [
        (given.line, given.column, start_text),
        (end_line, end_column, end_text),
    ] {
        if column == 0 || column > width(text) {
            return Err(format!(
                "line {line} of {} has no column {column}",
                given.path
            ));
        }
    }
    if (end_line, end_column) < (given.line, given.column) {
        return Err("it ends before it starts".to_owned());
    }
    let span = span_text(&lines[given.line - 1..end_line], given.column, end_column);
    Ok(Finding {
        rule: given.rule.clone(),
        severity: Severity::Warning,
        message: given.message.as_str().into(),
        note: None,
        path: given.path.clone().into(),
        range: SourceRange {
            start: Position {
                line: given.line - 1,
                column: given.column - 1,
            },
            end: Position {
                line: end_line - 1,
                column: end_column - 1,
            },
        },
        text_hash: text_hash(&span),
        fix: None,
    })
}

/// The text from 1-based character `start` of the first of `lines` to before `end` of the last.
fn span_text(lines: &[&str], start: usize, end: usize) -> String {
    let last = lines.len() - 1;
    lines
        .iter()
        .enumerate()
        .map(|(index, line)| {
            let from = if index == 0 { start - 1 } else { 0 };
            let to = if index == last { end - 1 } else { usize::MAX };
            line.chars()
                .skip(from)
                .take(to.saturating_sub(from))
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::{given_snapshot, runner_analyzes};
    use crate::registry::contract::DiagnosticSpec;
    use crate::testing::fixture::{GivenFinding, SourceFile};
    use pi_native_hooks_analysis::text_hash;

    fn spec(analyzer: &str) -> DiagnosticSpec {
        DiagnosticSpec {
            analyzer: analyzer.to_owned(),
            rules: vec!["TS*".into()],
        }
    }

    fn files() -> Vec<SourceFile> {
        vec![SourceFile {
            path: "src/a.ts".to_owned(),
            source: "const n: number = \"s\";\nconst é = 1;\n".to_owned(),
        }]
    }

    fn given(line: usize, column: usize, end: Option<(usize, usize)>) -> GivenFinding {
        GivenFinding {
            rule: "TS2322".into(),
            path: "src/a.ts".to_owned(),
            line,
            column,
            end_line: end.map(|e| e.0),
            end_column: end.map(|e| e.1),
            message: "Type 'string' is not assignable to type 'number'.".to_owned(),
        }
    }

    #[test]
    fn a_given_finding_is_placed_in_its_file_under_a_key_the_policy_selects() {
        let snapshot = given_snapshot(
            &spec("typescript"),
            &files(),
            &[given(1, 7, Some((1, 8))), given(2, 7, None)],
        )
        .expect("placed");
        assert_eq!(snapshot.analyzer.as_str(), "typescript:fixture");
        assert!(snapshot.analyzer.is_selected_by("typescript"));
        assert_eq!(snapshot.paths, ["src/a.ts"]);
        let first = &snapshot.findings[0];
        assert_eq!((first.range.start.line, first.range.start.column), (0, 6));
        assert_eq!(first.text_hash, text_hash("n"));
        // Without an end, the finding runs to the end of its line, counted in characters.
        assert_eq!(snapshot.findings[1].text_hash, text_hash("é = 1;"));
        assert_eq!(snapshot.findings[1].range.end.column, 12);

        let qualified = given_snapshot(&spec("typescript:project"), &files(), &[]).expect("empty");
        assert_eq!(qualified.analyzer.as_str(), "typescript:project");
    }

    #[test]
    fn a_given_finding_outside_the_case_s_files_is_named() {
        let mut elsewhere = given(1, 1, None);
        elsewhere.path = "src/b.ts".to_owned();
        let cases = [
            (
                elsewhere,
                "given finding 1 (TS2322 at src/b.ts:1:1): its path is not among the case's `files`",
            ),
            (
                given(9, 1, None),
                "given finding 1 (TS2322 at src/a.ts:9:1): src/a.ts has no line 9",
            ),
            (
                given(1, 40, None),
                "given finding 1 (TS2322 at src/a.ts:1:40): line 1 of src/a.ts has no column 40",
            ),
            (
                given(1, 0, None),
                "given finding 1 (TS2322 at src/a.ts:1:0): line 1 of src/a.ts has no column 0",
            ),
            (
                given(2, 5, Some((1, 1))),
                "given finding 1 (TS2322 at src/a.ts:2:5): it ends before it starts",
            ),
        ];
        for (finding, expected) in cases {
            let error = given_snapshot(&spec("typescript"), &files(), &[finding]).unwrap_err();
            assert_eq!(error, expected);
        }
    }

    #[test]
    fn only_ast_grep_policies_are_analyzed_by_the_runner() {
        assert!(runner_analyzes(&spec("ast-grep")));
        assert!(runner_analyzes(&spec("ast-grep:personal")));
        assert!(!runner_analyzes(&spec("typescript")));
        assert!(!runner_analyzes(&spec("ast-grepx")));
    }
}

//! Owns turning the server's diagnostics for one file into findings of the `typescript` analyzer:
//! the rule is the error's code (`TS2322`), the position is converted from the protocol's UTF-16
//! columns to the characters findings count, and the identity that decides whether the wave
//! introduced it is the code, the whitespace-normalised message and the whitespace-normalised text
//! at the span — never the line.
//!
//! Severity: TypeScript's errors and warnings become `warning` findings (the engine's loudest:
//! steering never blocks); its suggestions and hints (`information`, `hint`: unused names without
//! `noUnused*`, "could be async") are editor hints, not type errors, and are left out.

use pi_native_hooks_analysis::{Finding, Position, Severity, SourceRange};
use pi_native_hooks_base::{RuleId, SharedText};
use pi_native_hooks_lsp::lsp_types::{self, Diagnostic, DiagnosticSeverity, NumberOrString};

/// What the model is told to do about a type error.
pub const TYPE_ERROR_GUIDANCE: &str = "Fix the types so the code is correct; do not cast to `any`, add `@ts-ignore` or `@ts-expect-error`, or loosen the tsconfig to silence it.";

/// The findings of `diagnostics`, reported by the server for `path` whose text it judged is
/// `text`.
pub(crate) fn findings(path: &str, text: &str, diagnostics: &[Diagnostic]) -> Vec<Finding> {
    let lines = LineIndex::new(text);
    let mut findings: Vec<Finding> = diagnostics
        .iter()
        .filter(|d| is_type_error(d))
        .map(|d| finding(path, &lines, d))
        .collect();
    findings.sort();
    findings
}

fn is_type_error(diagnostic: &Diagnostic) -> bool {
    matches!(
        diagnostic.severity,
        None | Some(DiagnosticSeverity::ERROR | DiagnosticSeverity::WARNING)
    )
}

/// [`TYPE_ERROR_GUIDANCE`], made once: every type error carries it.
static TYPE_ERROR_NOTE: std::sync::LazyLock<SharedText> =
    std::sync::LazyLock::new(|| SharedText::from(TYPE_ERROR_GUIDANCE));

fn finding(path: &str, lines: &LineIndex<'_>, diagnostic: &Diagnostic) -> Finding {
    let rule = match &diagnostic.code {
        Some(NumberOrString::Number(code)) => format!("TS{code}"),
        Some(NumberOrString::String(code)) if code.starts_with("TS") => code.clone(),
        Some(NumberOrString::String(code)) => format!("TS{code}"),
        None => "TS".to_owned(),
    };
    let start = lines.position(diagnostic.range.start);
    let end = lines.position(diagnostic.range.end);
    let message = normalise(&diagnostic.message);
    let span = lines.text(start.1, end.1);
    Finding {
        rule: RuleId::from(rule.as_str()),
        severity: Severity::Warning,
        text_hash: identity(span, &message),
        message: message.into(),
        note: Some(TYPE_ERROR_NOTE.clone()),
        path: path.into(),
        range: SourceRange {
            start: start.0,
            end: end.0,
        },
        fix: None,
    }
}

/// Runs of whitespace (a chained message's line breaks and indents) as one space, trimmed.
fn normalise(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The hash the introduced-findings comparison keys on: the normalised text at the span and the
/// normalised message (two different type errors on the same expression are two findings).
fn identity(span: &str, message: &str) -> String {
    let key = format!("{}\u{0}{message}", normalise(span));
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(key.as_bytes()))
}

/// The lines of a text, for converting protocol positions.
struct LineIndex<'t> {
    text: &'t str,
    /// Byte offset of each line's start.
    starts: Vec<usize>,
}

impl<'t> LineIndex<'t> {
    fn new(text: &'t str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Self { text, starts }
    }

    /// A protocol position (line, UTF-16 column) as a finding position (line, character column)
    /// and a byte offset; a position past a line's end or the text's end is clamped to it.
    fn position(&self, at: lsp_types::Position) -> (Position, usize) {
        let line = (at.line as usize).min(self.starts.len() - 1);
        let start = self.starts[line];
        let end = self
            .starts
            .get(line + 1)
            .map_or(self.text.len(), |next| next - 1);
        let content = self.text.get(start..end).unwrap_or("");
        let content = content.strip_suffix('\r').unwrap_or(content);
        let mut units = 0usize;
        let mut column = 0usize;
        let mut offset = start;
        for c in content.chars() {
            if units >= at.character as usize {
                break;
            }
            units += c.len_utf16();
            column += 1;
            offset += c.len_utf8();
        }
        (Position { line, column }, offset)
    }

    fn text(&self, start: usize, end: usize) -> &str {
        self.text.get(start..end.max(start)).unwrap_or("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pi_native_hooks_lsp::lsp_types::Range;

    fn diagnostic(
        range: ((u32, u32), (u32, u32)),
        code: i32,
        message: &str,
        severity: DiagnosticSeverity,
    ) -> Diagnostic {
        Diagnostic {
            range: Range::new(
                lsp_types::Position::new(range.0.0, range.0.1),
                lsp_types::Position::new(range.1.0, range.1.1),
            ),
            severity: Some(severity),
            code: Some(NumberOrString::Number(code)),
            message: message.to_owned(),
            ..Diagnostic::default()
        }
    }

    #[test]
    fn utf16_columns_become_character_columns_and_the_code_the_rule() {
        let text = "const s = \"😀\"; const n: number = \"s\";\n";
        // `n` starts at UTF-16 column 22 (the emoji is two units, one character).
        let found = findings(
            "src/a.ts",
            text,
            &[diagnostic(
                ((0, 22), (0, 23)),
                2322,
                "Type 'string' is not\n  assignable to type 'number'.",
                DiagnosticSeverity::ERROR,
            )],
        );
        assert_eq!(found.len(), 1);
        let f = &found[0];
        assert_eq!(f.rule.as_str(), "TS2322");
        assert_eq!(
            f.range.start,
            Position {
                line: 0,
                column: 21
            }
        );
        assert_eq!(
            f.message,
            "Type 'string' is not assignable to type 'number'."
        );
        assert_eq!(f.severity, Severity::Warning);
    }

    #[test]
    fn the_identity_ignores_the_line_and_whitespace_but_not_the_message() {
        let before = "const n: number = \"s\";\n";
        let after = "\n\n  const n: number =   \"s\";\n";
        let message = "Type 'string' is not assignable to type 'number'.";
        let a = findings(
            "a.ts",
            before,
            &[diagnostic(
                ((0, 6), (0, 7)),
                2322,
                message,
                DiagnosticSeverity::ERROR,
            )],
        );
        let b = findings(
            "a.ts",
            after,
            &[diagnostic(
                ((2, 8), (2, 9)),
                2322,
                message,
                DiagnosticSeverity::ERROR,
            )],
        );
        assert_eq!(a[0].text_hash, b[0].text_hash);
        assert_ne!(a[0].range.start.line, b[0].range.start.line);
        let other = findings(
            "a.ts",
            before,
            &[diagnostic(
                ((0, 6), (0, 7)),
                2322,
                "Type 'boolean' is not assignable to type 'number'.",
                DiagnosticSeverity::ERROR,
            )],
        );
        assert_ne!(a[0].text_hash, other[0].text_hash);
    }

    #[test]
    fn suggestions_are_left_out_and_positions_past_the_end_are_clamped() {
        let found = findings(
            "a.ts",
            "let x = 1;",
            &[
                diagnostic(((0, 4), (0, 5)), 6133, "unused", DiagnosticSeverity::HINT),
                diagnostic(
                    ((9, 99), (12, 0)),
                    1005,
                    "';' expected.",
                    DiagnosticSeverity::ERROR,
                ),
            ],
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rule.as_str(), "TS1005");
        assert_eq!(
            found[0].range.start,
            Position {
                line: 0,
                column: 10
            }
        );
    }
}

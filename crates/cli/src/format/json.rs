//! `--format json` (and `--json`): one JSON object per result and line, with the original text
//! (serde escapes it as JSON), 1-based lines and columns, columns in characters.

use super::{Diagnostic, Report};
use pi_native_hooks_analysis::FindingFix;
use serde::Serialize;
use std::io::{self, Write};

/// One result as printed: the field order is the documented one.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JsonFinding<'a> {
    rule: &'a str,
    severity: &'a str,
    path: &'a str,
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    message: &'a str,
    note: Option<&'a str>,
    policy: Option<&'a str>,
    guidance: Option<&'a str>,
    /// Null when the rule carries no fix.
    replacement: Option<JsonReplacement<'a>>,
}

/// A finding's fix: the replaced range (1-based lines and columns in characters, and 0-based
/// byte offsets, end exclusive) and the text that replaces it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JsonReplacement<'a> {
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    byte_start: usize,
    byte_end: usize,
    text: &'a str,
}

impl<'a> From<&'a FindingFix> for JsonReplacement<'a> {
    fn from(fix: &'a FindingFix) -> Self {
        Self {
            line: fix.range.start.line + 1,
            column: fix.range.start.column + 1,
            end_line: fix.range.end.line + 1,
            end_column: fix.range.end.column + 1,
            byte_start: fix.bytes.start,
            byte_end: fix.bytes.end,
            text: &fix.text,
        }
    }
}

impl<'a> From<&'a Diagnostic<'a>> for JsonFinding<'a> {
    fn from(d: &'a Diagnostic<'a>) -> Self {
        Self {
            rule: d.rule,
            severity: d.severity.as_str(),
            path: d.path,
            line: d.line,
            column: d.column,
            end_line: d.end_line,
            end_column: d.end_column,
            message: d.message,
            note: d.note,
            policy: d.policy,
            guidance: d.guidance,
            replacement: d.replacement.map(JsonReplacement::from),
        }
    }
}

/// Writes one line per result.
pub(super) fn write(report: &Report<'_>, out: &mut dyn Write) -> io::Result<()> {
    for diagnostic in report.diagnostics {
        let line =
            serde_json::to_string(&JsonFinding::from(diagnostic)).map_err(io::Error::other)?;
        writeln!(out, "{line}")?;
    }
    Ok(())
}

//! `--format json` (and `--json`): one JSON object per result and line, with the original text
//! (serde escapes it as JSON), 1-based lines and columns, columns in characters.

use super::{Diagnostic, Report};
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
    /// Only present when the rule carries a fix.
    #[serde(skip_serializing_if = "Option::is_none")]
    replacement: Option<&'a str>,
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
            replacement: d.replacement,
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

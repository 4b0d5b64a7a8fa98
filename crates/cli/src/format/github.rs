//! `--format github`: one GitHub Actions workflow command per result,
//! `::warning file=…,line=…,col=…,endLine=…,endColumn=…,title=<rule>::<message>`, which the
//! runner turns into an annotation on the file and line.
//!
//! Paths are relative to the repository root: GitHub matches an annotation's `file` against the
//! repository's files, so it must be the path inside the checkout (`GITHUB_WORKSPACE`), whatever
//! directory `check` ran from. Severities map to commands as `warning` → `warning`, `info` and
//! `hint` → `notice`. The end column is exclusive, as everywhere in `check`.
//!
//! Escaping is the runner's own (`@actions/core`): in the message, `%`, `\r` and `\n` become
//! `%25`, `%0D` and `%0A`; in a property (`file`, `title`) `:` and `,` too (`%3A`, `%2C`), so
//! nothing in a file name or message can end the command or start another one. The other
//! control, separator and bidirectional characters are written as [`pi_native_hooks_base::text`] writes them
//! (`\u{1b}`), so they cannot drive the terminal showing the log either.

use super::{Diagnostic, Report};
use pi_native_hooks_analysis::Severity;
use pi_native_hooks_base::is_escaped;
use std::fmt::Write as _;
use std::io::{self, Write};

/// Writes one command per result.
pub(super) fn write(report: &Report<'_>, out: &mut dyn Write) -> io::Result<()> {
    for diagnostic in report.diagnostics {
        writeln!(out, "{}", command(diagnostic))?;
    }
    Ok(())
}

/// The workflow command for one result.
fn command(d: &Diagnostic<'_>) -> String {
    let kind = match d.severity {
        Severity::Warning => "warning",
        Severity::Info | Severity::Hint => "notice",
    };
    let mut message = d.message.to_owned();
    if let Some(guidance) = d.guidance.filter(|g| !g.is_empty()) {
        message.push('\n');
        message.push_str(guidance);
    }
    format!(
        "::{kind} file={},line={},col={},endLine={},endColumn={},title={}::{}",
        escape(d.path, true),
        d.line,
        d.column,
        d.end_line,
        d.end_column,
        escape(d.rule, true),
        escape(&message, false)
    )
}

/// `text` escaped for a workflow command: as a property value when `property`, else as its data.
pub(crate) fn escape(text: &str, property: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            ':' if property => out.push_str("%3A"),
            ',' if property => out.push_str("%2C"),
            c if is_escaped(c) => {
                // Same form as `text::Escaped`; a tab is harmless but kept out of properties.
                let _ = match c {
                    '\t' => write!(out, "\\t"),
                    other => write!(out, "\\u{{{:x}}}", u32::from(other)),
                };
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn data_and_properties_are_escaped_as_the_runner_unescapes_them() {
        assert_eq!(escape("50% a:b,c\r\nd", false), "50%25 a:b,c%0D%0Ad");
        assert_eq!(escape("50% a:b,c\r\nd", true), "50%25 a%3Ab%2Cc%0D%0Ad");
        assert_eq!(
            escape("x\u{1b}[31m\u{202e}\t", false),
            "x\\u{1b}[31m\\u{202e}\\t"
        );
        assert_eq!(escape("::error::x", false), "::error::x");
        assert_eq!(escape("::error::x", true), "%3A%3Aerror%3A%3Ax");
    }
}

//! The forms written for people: `human` (the default), diagnostics as rustc, ruff and ast-grep
//! print them, rendered by `annotate-snippets`:
//!
//! ```text
//! warning[typescript-no-non-null-assertion-ts]: Non-null assertion `!` hides a possibly null …
//!  --> src/a.ts:2:18
//!   |
//! 2 | export const a = u!.n;
//!   |                  ^^
//!   |
//!   = help: the policy's guidance
//! ```
//!
//! then one summary line (files analyzed, findings by severity, files not analyzed); and
//! `concise`, one `path:line:column rule message` line per result (marked when a fix is
//! available). A run that reported nothing ends, in both forms, with the line
//! [`super::Clean`] asks for, unless it asks for silence.
//!
//! Advice is said once: the policy's guidance takes over the rule's note, which is shown as well
//! only when it says something the guidance does not ([`adds_to`]).
//!
//! Paths are shown relative to the current directory. File names, rule ids, messages, notes,
//! guidance and the code frame's source text are escaped ([`pi_native_hooks_base::text`]; a tab in source is
//! kept), so neither a file's name nor its content can forge a line or drive the terminal. A
//! result whose source cannot be read (see [`super::SourceLookup`]), or no longer holds its lines,
//! is shown without a frame, at its position.

use super::{Clean, Diagnostic, Report, cwd_relative};
use annotate_snippets::{AnnotationKind, Group, Level, Origin, Renderer, Snippet};
use pi_native_hooks_analysis::Severity;
use pi_native_hooks_base::{Escaped, escape, escape_lines, is_escaped};
use std::fmt::{self, Write as _};
use std::io::{self, Write};
use std::ops::Range;
use std::time::Duration;

/// Writes each result as a diagnostic with its code frame, then the summary line.
pub(super) fn write(report: &Report<'_>, out: &mut dyn Write) -> io::Result<()> {
    let renderer = if report.color {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    // Results come grouped by file: one source read per file, one kept at a time.
    let mut source: Option<(&str, Option<String>)> = None;
    for d in report.diagnostics {
        if source.as_ref().is_none_or(|(path, _)| *path != d.path) {
            source = Some((d.path, (report.sources)(d.path)));
        }
        let text = source.as_ref().and_then(|(_, text)| text.as_deref());
        let shown = escape(&cwd_relative(report.root, report.cwd, d.path)).into_owned();
        writeln!(out, "{}\n", renderer.render(&[group(d, &shown, text)]))?;
    }
    if let Some(line) = summary(report) {
        if report.color {
            let bold = anstyle::Style::new().bold();
            writeln!(out, "{bold}{line}{bold:#}")?;
        } else {
            writeln!(out, "{line}")?;
        }
    }
    Ok(())
}

/// Writes one `path:line:column rule message` line per result, ending in
/// ` (fix available: check --fix)` when the rule carries a fix.
pub(super) fn write_concise(report: &Report<'_>, out: &mut dyn Write) -> io::Result<()> {
    for d in report.diagnostics {
        writeln!(
            out,
            "{}:{}:{} {} {}{}",
            Escaped(&cwd_relative(report.root, report.cwd, d.path)),
            d.line,
            d.column,
            Escaped(d.rule),
            Escaped(d.message),
            if d.replacement.is_some() {
                " (fix available: check --fix)"
            } else {
                ""
            }
        )?;
    }
    if let Some(line) = clean_line(report) {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

/// The level a severity is shown at.
fn level(severity: Severity) -> Level<'static> {
    match severity {
        Severity::Warning => Level::WARNING,
        Severity::Info => Level::INFO,
        Severity::Hint => Level::NOTE.with_name(Some("hint")),
    }
}

/// One diagnostic: title, code frame (or position), note, guidance, fix mark.
fn group<'a>(d: &'a Diagnostic<'a>, path: &'a str, source: Option<&str>) -> Group<'a> {
    let title = level(d.severity)
        .primary_title(escape(d.message))
        .id(escape(d.rule));
    let mut group = match source.and_then(|source| frame(source, d)) {
        Some(Frame {
            excerpt,
            first_line,
            span,
        }) => title.element(
            Snippet::source(excerpt)
                .line_start(first_line)
                .path(path)
                .annotation(AnnotationKind::Primary.span(span)),
        ),
        None => title.element(Origin::path(path).line(d.line).char_column(d.column)),
    };
    let note = d.note.filter(|note| !note.trim().is_empty());
    let guidance = d.guidance.filter(|g| !g.trim().is_empty());
    if let Some(note) = note.filter(|note| guidance.is_none_or(|g| adds_to(note, g))) {
        group = group.element(Level::NOTE.message(escape_lines(note.trim_end())));
    }
    if let Some(guidance) = guidance {
        group = group.element(Level::HELP.message(escape_lines(guidance.trim_end())));
    }
    if d.replacement.is_some() {
        group = group.element(Level::HELP.message("fix available"));
    }
    group
}

/// The lines a result spans, escaped, with the byte range of its span within them.
struct Frame {
    excerpt: String,
    first_line: usize,
    span: Range<usize>,
}

/// The frame of `d` in `source`; `None` when the source no longer has its lines.
fn frame(source: &str, d: &Diagnostic<'_>) -> Option<Frame> {
    if d.line == 0 || d.end_line < d.line {
        return None;
    }
    let mut excerpt = String::new();
    // Per line of the excerpt: the byte offset where each character starts, and the line's end.
    let mut starts: Vec<Vec<usize>> = Vec::new();
    for (index, line) in source
        .split('\n')
        .skip(d.line - 1)
        .take(d.end_line - d.line + 1)
        .enumerate()
    {
        if index > 0 {
            excerpt.push('\n');
        }
        let line = line.strip_suffix('\r').unwrap_or(line);
        let mut offsets = Vec::with_capacity(line.len() + 1);
        for c in line.chars() {
            offsets.push(excerpt.len());
            if c != '\t' && is_escaped(c) {
                let _ = write!(excerpt, "{}", Escaped(c.encode_utf8(&mut [0; 4])));
            } else {
                excerpt.push(c);
            }
        }
        offsets.push(excerpt.len());
        starts.push(offsets);
    }
    if starts.len() != d.end_line - d.line + 1 {
        return None;
    }
    // A column past its line means the text changed since the analysis: no frame.
    let at = |offsets: &Vec<usize>, column: usize| offsets.get(column.checked_sub(1)?).copied();
    let start = at(starts.first()?, d.column)?;
    let mut end = at(starts.last()?, d.end_column)?;
    if end <= start {
        // An empty span (a policy diagnostic without an end) marks its first character.
        end = at(starts.first()?, d.column + 1)
            .unwrap_or(start)
            .max(start);
    }
    Some(Frame {
        excerpt,
        first_line: d.line,
        span: start..end,
    })
}

/// Whether a rule's `note` says something its policy's `guidance` does not, so that both are
/// worth reading: when more than a quarter of the note's words (runs of letters and digits, case
/// ignored) are missing from the guidance. A policy usually restates its rule's note in its own
/// words and ends both with the same suppression comment, which this counts as said.
fn adds_to(note: &str, guidance: &str) -> bool {
    let words = |text: &str| -> Vec<String> {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|word| !word.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    let said: std::collections::HashSet<String> = words(guidance).into_iter().collect();
    let note = words(note);
    let new = note.iter().filter(|word| !said.contains(*word)).count();
    new * 4 > note.len()
}

/// Whether the run reported nothing: no result, no file left out, no finding omitted.
fn reported_nothing(report: &Report<'_>) -> bool {
    let s = report.summary;
    report.diagnostics.is_empty() && s.not_analyzed == 0 && s.omitted == 0
}

/// The line of a run that reported nothing, as [`super::Clean`] asks for it: what was analyzed
/// and how long it took, or that nothing was selected; `None` otherwise.
fn clean_line(report: &Report<'_>) -> Option<String> {
    let Clean::Say {
        elapsed,
        nothing_selected,
    } = report.summary.clean
    else {
        return None;
    };
    if !reported_nothing(report) {
        return None;
    }
    let analyzed = report.summary.analyzed;
    Some(if analyzed == 0 {
        nothing_selected.to_owned()
    } else {
        format!(
            "Analyzed {analyzed} {} in {}: no findings.",
            plural(analyzed, "file", "files"),
            Elapsed(elapsed)
        )
    })
}

/// A run's duration as biome shows it: `850µs`, `12ms`, `1.25s`.
struct Elapsed(Duration);

impl fmt::Display for Elapsed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Elapsed(elapsed) = *self;
        if elapsed < Duration::from_millis(1) {
            write!(f, "{}µs", elapsed.as_micros())
        } else if elapsed < Duration::from_secs(1) {
            write!(f, "{}ms", elapsed.as_millis())
        } else {
            write!(f, "{:.2}s", elapsed.as_secs_f64())
        }
    }
}

/// The closing line: the findings by severity, or what a clean run did; `None` when there is
/// nothing to say.
fn summary(report: &Report<'_>) -> Option<String> {
    let s = report.summary;
    if reported_nothing(report) {
        return clean_line(report);
    }
    let count = |severity: Severity| {
        report
            .diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .count()
    };
    let mut found: Vec<String> = Vec::new();
    for (severity, one, many) in [
        (Severity::Warning, "warning", "warnings"),
        (Severity::Info, "info", "infos"),
        (Severity::Hint, "hint", "hints"),
    ] {
        match count(severity) {
            0 => {}
            1 => found.push(format!("1 {one}")),
            n => found.push(format!("{n} {many}")),
        }
    }
    if found.is_empty() {
        found.push("no findings".to_owned());
    }
    let mut line = format!(
        "Analyzed {} {}: {}",
        s.analyzed,
        plural(s.analyzed, "file", "files"),
        found.join(", ")
    );
    if s.omitted > 0 {
        let _ = write!(line, " and {} more omitted (limit reached)", s.omitted);
    }
    if s.not_analyzed > 0 {
        let _ = write!(
            line,
            "; {} {} not analyzed (named on stderr)",
            s.not_analyzed,
            plural(s.not_analyzed, "file", "files")
        );
    }
    line.push('.');
    Some(line)
}

fn plural(n: usize, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 { one } else { many }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_restated_by_the_guidance_adds_nothing() {
        let note = "Remove it (set a breakpoint in the debugger instead). If it must stay, say why \
                    on the line above:\n// ast-grep-ignore: no-debugger -- <reason>\n";
        let guidance = "Remove the `debugger` statement and use a breakpoint instead. If it must \
                        stay, say why on the line above: // ast-grep-ignore: no-debugger -- <reason>";
        assert!(!adds_to(note, guidance));
        assert!(adds_to(
            "Narrow the value first.",
            "Guard it: check for undefined first."
        ));
        // Exactly a quarter new is still said.
        assert!(!adds_to("one two three four", "One, two and three."));
        assert!(adds_to("one two three four five", "one two three"));
    }

    #[test]
    fn elapsed_times_read_as_biome_writes_them() {
        let shown = |d: Duration| Elapsed(d).to_string();
        assert_eq!(shown(Duration::from_micros(850)), "850µs");
        assert_eq!(shown(Duration::from_micros(12_400)), "12ms");
        assert_eq!(shown(Duration::from_millis(1_250)), "1.25s");
    }
}

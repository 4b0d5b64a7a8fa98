//! How `check` shows its results: one neutral [`Diagnostic`] per result, written in the form the
//! user picked with `--format` ([`Format`]), one file per form:
//!
//! * `human` ([`human`]): diagnostics as rustc, ruff and ast-grep print them, with a code frame,
//!   the rule's advice (the policy's guidance, the rule's note, or both when they differ),
//!   coloured when asked, and a closing summary line;
//! * `concise` ([`human::write_concise`]): one `path:line:column rule message` line per result;
//!
//! Both human forms end a run that reported nothing with one line saying what it did
//! ([`Clean`]); the machine forms keep their shape.
//! * `json` ([`json`]): one JSON object per result and line (what `--json` prints);
//! * `github` ([`github`]): GitHub Actions workflow commands, one annotation per result;
//! * `sarif` ([`sarif`]): one SARIF 2.1.0 log.
//!
//! Nothing here decides anything: `check` picks the results and the exit status, this module
//! only presents them. Paths in [`Diagnostic`] are relative to the repository (or scan) root;
//! each form chooses how to show them (the human forms relative to the current directory, GitHub
//! and SARIF relative to the root).

mod github;
mod human;
mod json;
mod sarif;

use pi_native_hooks_analysis::{Finding, FindingFix, Severity};
use pi_native_hooks_base::safe_open::{Beneath, Resolved};
use std::io::{self, Read, Write};
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

/// The output form of `check` (`--format`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Diagnostics with a code frame and the rule's advice, then a summary line.
    #[default]
    Human,
    /// One `path:line:column rule message` line per result.
    Concise,
    /// One JSON object per result and line (the same as `--json`).
    Json,
    /// GitHub Actions workflow commands (`::warning file=…::message`), one per result.
    Github,
    /// One SARIF 2.1.0 log.
    Sarif,
}

/// When the human form is coloured (`--color`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ColorChoice {
    /// When stdout is a terminal and neither `NO_COLOR` nor `TERM=dumb` says otherwise.
    #[default]
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

impl ColorChoice {
    /// Whether to colour: `auto` asks anstream about the process's stdout (a terminal, and
    /// `NO_COLOR`, `CLICOLOR`, `CLICOLOR_FORCE` and `TERM` as anstream reads them).
    pub(crate) fn enabled(self) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                anstream::AutoStream::choice(&io::stdout()) != anstream::ColorChoice::Never
            }
        }
    }
}

/// The lowest severity that makes `check` exit 1 (`--error-on`). Severities, lowest first:
/// `hint` < `info` < `warning`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ErrorOn {
    /// Every finding fails the run.
    Hint,
    /// Infos and warnings fail the run; hints are printed only.
    Info,
    /// Warnings fail the run; infos and hints are printed only.
    #[default]
    Warning,
}

impl ErrorOn {
    /// The lowest failing severity.
    pub(crate) fn threshold(self) -> Severity {
        match self {
            ErrorOn::Hint => Severity::Hint,
            ErrorOn::Info => Severity::Info,
            ErrorOn::Warning => Severity::Warning,
        }
    }

    /// Whether a result of `severity` fails the run.
    pub(crate) fn fails(self, severity: Severity) -> bool {
        severity >= self.threshold()
    }
}

/// One result as every output form sees it: 1-based lines and columns, columns in characters,
/// the end exclusive (the column just after the last character). Text is the original,
/// unescaped: each form escapes what it shows.
#[expect(missing_docs, reason = "bare fields name what they hold")]
#[derive(Clone, Debug)]
pub struct Diagnostic<'a> {
    pub rule: &'a str,
    /// How loud it is.
    pub severity: Severity,
    /// Path relative to the repository (or scan) root, `/`-separated.
    pub path: &'a str,
    /// 1-based first line.
    pub line: usize,
    /// 1-based first column, in characters.
    pub column: usize,
    /// 1-based last line.
    pub end_line: usize,
    /// 1-based column just after the match, in characters.
    pub end_column: usize,
    pub message: &'a str,
    /// The rule's note, if any.
    pub note: Option<&'a str>,
    /// The policy that reported it, if one did.
    pub policy: Option<&'a str>,
    /// The policy's guidance, if a policy reported it.
    pub guidance: Option<&'a str>,
    /// The rewrite when the rule carries a fix (`fix:`): the replaced range (which
    /// `expandStart`/`expandEnd` may widen beyond the match) and the text that replaces it.
    pub replacement: Option<&'a FindingFix>,
}

impl<'a> From<&'a Finding> for Diagnostic<'a> {
    /// A finding no policy reported: the analyzer's 0-based positions made 1-based.
    fn from(f: &'a Finding) -> Self {
        Diagnostic {
            rule: &f.rule,
            severity: f.severity,
            path: &f.path,
            line: f.range.start.line + 1,
            column: f.range.start.column + 1,
            end_line: f.range.end.line + 1,
            end_column: f.range.end.column + 1,
            message: &f.message,
            note: f.note.as_deref(),
            policy: None,
            guidance: None,
            replacement: f.fix.as_deref(),
        }
    }
}

/// How many files a run looked at, for the human summary line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary<'a> {
    /// Files analyzed.
    pub analyzed: usize,
    /// Files requested but not analyzed (named on stderr).
    pub not_analyzed: usize,
    /// Findings dropped by a findings limit.
    pub omitted: usize,
    /// What the human forms print when the run reported nothing at all.
    pub clean: Clean<'a>,
}

/// The line that tells a clean run from one that did no work (the human forms only): a run with
/// no result, no file left out and no finding omitted would otherwise print nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Clean<'a> {
    /// Nothing: `--quiet`, or a run that failed (its failure is on stderr and must not read as a
    /// clean result).
    #[default]
    Silent,
    /// `Analyzed N files in <elapsed>: no findings.`, or when no file was selected at all,
    /// `nothing_selected`, which says what was looked for and how to ask for more.
    Say {
        /// The time the whole run took.
        elapsed: Duration,
        /// The sentence for a run that selected no file.
        nothing_selected: &'a str,
    },
}

/// The text of a file for a code frame, by root-relative path; `None` when it cannot be shown.
pub type SourceLookup<'a> = &'a dyn Fn(&str) -> Option<String>;

/// Everything an output form needs.
pub struct Report<'a> {
    /// The results, in the order to show them.
    pub diagnostics: &'a [Diagnostic<'a>],
    /// The file counts.
    pub summary: Summary<'a>,
    /// The root [`Diagnostic::path`] is relative to.
    pub root: &'a Path,
    /// The current directory (`-C DIR` included) the human forms show paths relative to.
    pub cwd: &'a Path,
    /// Where code frames take the analyzed text from.
    pub sources: SourceLookup<'a>,
    /// Whether the human form is coloured (the others never are).
    pub color: bool,
}

/// Writes `report` to `out` in `format`.
pub fn write(format: Format, report: &Report<'_>, out: &mut dyn Write) -> io::Result<()> {
    match format {
        Format::Human => human::write(report, out),
        Format::Concise => human::write_concise(report, out),
        Format::Json => json::write(report, out),
        Format::Github => github::write(report, out),
        Format::Sarif => sarif::write(report, out),
    }
}

/// The largest file a code frame reads; a larger one is shown without a frame.
pub(crate) const MAX_SOURCE_BYTES: u64 = 16 * 1024 * 1024;

/// The default [`SourceLookup`]: the working-tree file under `root`, opened with
/// [`safe_open::Beneath`](pi_native_hooks_base::safe_open::Beneath) (never through a symlink leaving the root,
/// never a FIFO or device), at most [`MAX_SOURCE_BYTES`], valid UTF-8.
pub(crate) fn worktree_sources(root: &Path) -> impl Fn(&str) -> Option<String> + use<> {
    let beneath = Beneath::new(root).ok();
    move |path| {
        let Resolved::Regular { file, stat, .. } = beneath.as_ref()?.open(path).ok()? else {
            return None;
        };
        if u64::try_from(stat.st_size).ok()? > MAX_SOURCE_BYTES {
            return None;
        }
        let mut bytes = Vec::new();
        file.take(MAX_SOURCE_BYTES + 1)
            .read_to_end(&mut bytes)
            .ok()?;
        if bytes.len() as u64 > MAX_SOURCE_BYTES {
            return None;
        }
        String::from_utf8(bytes).ok()
    }
}

/// A [`SourceLookup`] over content already in memory (the index's blobs for `check --staged`):
/// the UTF-8 text of each path, so code frames show what was analyzed.
#[derive(Debug, Default)]
pub(crate) struct ContentSources(std::collections::BTreeMap<String, String>);

impl ContentSources {
    /// The UTF-8 files among `files` (path and bytes); others get no code frame.
    #[must_use]
    pub(crate) fn of(files: &[(String, Vec<u8>)]) -> Self {
        Self(
            files
                .iter()
                .filter_map(|(path, bytes)| {
                    let text = std::str::from_utf8(bytes).ok()?;
                    Some((path.clone(), text.to_owned()))
                })
                .collect(),
        )
    }

    /// The text of `path`, if it is held.
    #[must_use]
    pub(crate) fn text(&self, path: &str) -> Option<String> {
        self.0.get(path).cloned()
    }
}

/// `path` (relative to `root`) as the human forms show it: relative to `cwd`, `/`-separated
/// (`../lib/a.ts` from `src/`) as the platform writes paths. The directories are compared as given and, when that fails,
/// canonicalized; a root with no relation to `cwd` leaves the path as it is.
pub(crate) fn cwd_relative(root: &Path, cwd: &Path, path: &str) -> String {
    let relative = relative_to(cwd, &root.join(path)).or_else(|| {
        let (root, cwd) = (root.canonicalize().ok()?, cwd.canonicalize().ok()?);
        relative_to(&cwd, &root.join(path))
    });
    match relative {
        Some(shown) if !shown.as_os_str().is_empty() => shown.to_string_lossy().into_owned(),
        _ => path.to_owned(),
    }
}

/// The relative path that leads from the directory `from` to `to`, both absolute.
fn relative_to(from: &Path, to: &Path) -> Option<PathBuf> {
    let from: Vec<Component<'_>> = normal(from)?;
    let to: Vec<Component<'_>> = normal(to)?;
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..from.len() {
        out.push("..");
    }
    for component in &to[common..] {
        out.push(component.as_os_str());
    }
    Some(out)
}

/// The components of an absolute path without `.`; `None` for a relative one or one with `..`.
fn normal(path: &Path) -> Option<Vec<Component<'_>>> {
    if !path.is_absolute() {
        return None;
    }
    let mut out = Vec::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => return None,
            other => out.push(other),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_shown_relative_to_the_current_directory() {
        let root = Path::new("/repo");
        assert_eq!(cwd_relative(root, root, "src/a.ts"), "src/a.ts");
        assert_eq!(
            cwd_relative(root, Path::new("/repo/src"), "src/a.ts"),
            "a.ts"
        );
        assert_eq!(
            cwd_relative(root, Path::new("/repo/src/view"), "lib/a.ts"),
            "../../lib/a.ts"
        );
        assert_eq!(
            cwd_relative(root, Path::new("/elsewhere"), "src/a.ts"),
            "../repo/src/a.ts"
        );
        assert_eq!(
            cwd_relative(Path::new("/repo/sub"), Path::new("/"), "a.ts"),
            "repo/sub/a.ts"
        );
    }

    #[test]
    fn error_on_orders_the_severities() {
        assert!(ErrorOn::Hint.fails(Severity::Hint));
        assert!(!ErrorOn::Info.fails(Severity::Hint));
        assert!(ErrorOn::Info.fails(Severity::Info));
        assert!(!ErrorOn::Warning.fails(Severity::Info));
        assert!(ErrorOn::Warning.fails(Severity::Warning));
    }
}

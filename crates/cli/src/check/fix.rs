//! `check --fix`: writes the rewrites the rules' `fix:` proposes, as `ast-grep scan --update-all`
//! writes them.
//!
//! Per file, the fixes are taken in the order ast-grep takes them (by the start of the match, an
//! enclosing match before the ones inside it, then by rule id) and a fix is applied only when its
//! range starts at or after the end of the last one applied; a fix that overlaps it is left for
//! the next run, as ast-grep leaves it.
//!
//! A file is rewritten only when it is still exactly what was analyzed (its content hash), by
//! `safe_open`'s atomic write (a temporary file in the same directory renamed over it), with the
//! original's mode. Every directory on the way and the file itself are opened relative to the one
//! before without following a symlink (`safe_open`'s walk): a path that reaches its file through a
//! symlink, or that is not a regular file, is never written.

use super::{ExitStatus, Output};
use nix::sys::stat::{FileStat, Mode};
use nix::unistd::{Gid, Uid};
use pi_native_hooks_analysis::{AnalysisSnapshot, Finding, FindingFix};
use pi_native_hooks_base::ContentHash;
use pi_native_hooks_base::Escaped;
use pi_native_hooks_base::safe_open::atomic::{Replacement, replace_at};
use pi_native_hooks_base::safe_open::walk::{Access, Descent, NotOpened, open_dir};
use pi_native_hooks_base::safe_open::{self, FileKind, Opened, read_at_most};
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::os::fd::{AsFd, BorrowedFd};
use std::path::Path;

/// Why one file was not fixed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FixError {
    /// The file, or a directory on its path, is a symlink.
    #[error("{}: not fixed: it is reached through a symlink", Escaped(.path))]
    Symlink {
        /// The file's path relative to the root.
        path: String,
    },
    /// The path names something other than a regular file.
    #[error("{}: not fixed: not a regular file ({kind:?})", Escaped(.path))]
    NotRegular {
        /// The file's path relative to the root.
        path: String,
        /// What the path names.
        kind: FileKind,
    },
    /// The file's bytes differ from the ones the fixes were computed on.
    #[error("{}: not fixed: it changed since it was analyzed; run check --fix again", Escaped(.path))]
    Changed {
        /// The file's path relative to the root.
        path: String,
    },
    /// The path cannot be written as a file of the root (`..`, empty, absolute).
    #[error("{}: not fixed: not a path inside the repository", Escaped(.path))]
    Outside {
        /// The file's path relative to the root.
        path: String,
    },
    /// Reading, writing or renaming failed.
    #[error("{}: not fixed: {error}", Escaped(.path))]
    Io {
        /// The file's path relative to the root.
        path: String,
        /// What the operating system reported.
        error: std::io::Error,
    },
}

/// What one `--fix` pass did.
#[derive(Debug, Default)]
pub(crate) struct FixReport {
    /// Fixes written.
    pub applied: usize,
    /// Files rewritten.
    pub files: usize,
    /// Fixes left out because they overlap one applied before them in the same file.
    pub overlapping: usize,
    /// Findings the analysis cut at its findings limit: their fixes, if any, were not applied.
    pub omitted: usize,
    /// Files that had fixes but were not written.
    pub problems: Vec<FixError>,
}

/// The fixes of one file's findings that ast-grep would apply, in its order: sorted by the start
/// of the match, an enclosing match first, then by rule id; a fix is kept only when it starts at
/// or after the end of the last one kept. Returns the kept fixes and how many were left out.
pub fn plan<'a>(findings: &[&'a Finding]) -> (Vec<&'a FindingFix>, usize) {
    let mut fixable: Vec<&Finding> = findings
        .iter()
        .copied()
        .filter(|f| f.fix.is_some())
        .collect();
    fixable.sort_by(|a, b| {
        a.range
            .start
            .cmp(&b.range.start)
            .then_with(|| b.range.end.cmp(&a.range.end))
            .then_with(|| a.rule.as_str().cmp(b.rule.as_str()))
    });
    let mut kept = Vec::with_capacity(fixable.len());
    let mut end = 0;
    for fix in fixable.iter().filter_map(|f| f.fix.as_deref()) {
        if fix.bytes.start >= end {
            end = fix.bytes.end;
            kept.push(fix);
        }
    }
    let left_out = fixable.len() - kept.len();
    (kept, left_out)
}

/// `text` with `fixes` (as [`plan`] returns them: ordered, not overlapping, inside the text)
/// applied.
pub fn rewrite(text: &[u8], fixes: &[&FindingFix]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut at = 0;
    for fix in fixes {
        out.extend_from_slice(&text[at..fix.bytes.start]);
        out.extend_from_slice(fix.text.as_bytes());
        at = fix.bytes.end;
    }
    out.extend_from_slice(&text[at..]);
    out
}

/// Applies the fixes of the findings of `analysis` (paths relative to `root`) to the files under
/// `root`.
pub(crate) fn apply(root: &Path, analysis: &AnalysisSnapshot) -> FixReport {
    let mut by_path: BTreeMap<&str, Vec<&Finding>> = BTreeMap::new();
    for finding in analysis.findings.iter().filter(|f| f.fix.is_some()) {
        by_path.entry(&finding.path).or_default().push(finding);
    }
    let mut report = FixReport {
        omitted: analysis.omitted_findings,
        ..FixReport::default()
    };
    for (path, findings) in by_path {
        let (fixes, left_out) = plan(&findings);
        report.overlapping += left_out;
        match write_fixed(root, path, &fixes) {
            Ok(()) => {
                report.applied += fixes.len();
                report.files += 1;
            }
            Err(error) => report.problems.push(error),
        }
    }
    report
}

/// Says on stderr what `report` did and what `after` (the analysis of the fixed files) still
/// offers to fix; a file that had fixes but was not written makes the run an error.
pub(crate) fn summarize(
    report: &FixReport,
    after: &AnalysisSnapshot,
    status: ExitStatus,
    out: &mut Output<'_>,
) -> ExitStatus {
    let plural = |n: usize, one: &'static str, many: &'static str| if n == 1 { one } else { many };
    out.note(&format!(
        "applied {} {} in {} {}",
        report.applied,
        plural(report.applied, "fix", "fixes"),
        report.files,
        plural(report.files, "file", "files")
    ));
    if report.omitted > 0 {
        out.warn(&format!(
            "{} {} past the findings limit were not fixed: run check --fix again",
            report.omitted,
            plural(report.omitted, "finding", "findings")
        ));
    }
    let waiting = after.findings.iter().filter(|f| f.fix.is_some()).count();
    if waiting > 0 {
        out.note(&format!(
            "{waiting} {} still {} a fix ({} overlapped a fix applied in this run): run check --fix again",
            plural(waiting, "finding", "findings"),
            plural(waiting, "has", "have"),
            report.overlapping
        ));
    }
    if report.problems.is_empty() {
        return status;
    }
    for problem in &report.problems {
        out.warn(&problem.to_string());
    }
    out.fail(&format!(
        "{} {} with fixes not written",
        report.problems.len(),
        plural(report.problems.len(), "file", "files")
    ))
}

/// Rewrites `root/path` with `fixes` if it is still the text they were computed on.
fn write_fixed(root: &Path, path: &str, fixes: &[&FindingFix]) -> Result<(), FixError> {
    let io = |error: std::io::Error| FixError::Io {
        path: path.to_owned(),
        error,
    };
    let Some(first) = fixes.first() else {
        return Ok(());
    };
    let (expected, expected_len) = (first.content, first.content_len);
    if fixes
        .iter()
        .any(|fix| fix.content != expected || fix.content_len != expected_len)
    {
        return Err(FixError::Changed {
            path: path.to_owned(),
        });
    }
    let (parent, name) = split(path)?;
    let root = open_dir(root, Access::Read).map_err(|errno| io(errno.into()))?;
    let mut descent = Descent::new(root.as_fd());
    let dir = descent.open(parent.as_bytes()).map_err(|why| match why {
        NotOpened::Symlink(_) => FixError::Symlink {
            path: path.to_owned(),
        },
        NotOpened::NotDirectory(kind) => FixError::NotRegular {
            path: path.to_owned(),
            kind,
        },
        NotOpened::NotAName => FixError::Outside {
            path: path.to_owned(),
        },
        NotOpened::Os(errno) => io(errno.into()),
    })?;
    let (text, stat) = read_regular(dir, name, path, expected_len)?;
    if ContentHash::of(&text) != expected {
        return Err(FixError::Changed {
            path: path.to_owned(),
        });
    }
    if fixes.iter().any(|fix| {
        fix.bytes.start > fix.bytes.end
            || fix.bytes.end > text.len()
            || !std::str::from_utf8(&text).is_ok_and(|t| {
                t.is_char_boundary(fix.bytes.start) && t.is_char_boundary(fix.bytes.end)
            })
    }) {
        return Err(FixError::Changed {
            path: path.to_owned(),
        });
    }
    let fixed = rewrite(&text, fixes);
    if fixed == text {
        return Ok(());
    }
    let replacement = Replacement {
        mode: Mode::from_bits_truncate(stat.st_mode & 0o7777),
        owner: Some((Uid::from_raw(stat.st_uid), Gid::from_raw(stat.st_gid))),
    };
    replace_at(dir, name, &fixed, replacement, io, || {
        // The last look before the rename: still the same file, still the same bytes.
        let (now, now_stat) = read_regular(dir, name, path, expected_len)?;
        if now_stat.st_ino != stat.st_ino
            || now_stat.st_dev != stat.st_dev
            || ContentHash::of(&now) != expected
        {
            return Err(FixError::Changed {
                path: path.to_owned(),
            });
        }
        Ok(())
    })
}

/// `path` split into its directory (`""` for the root) and its file's name, if every component
/// is a name: nothing empty, `.` or `..`, and not absolute.
fn split(path: &str) -> Result<(&str, &OsStr), FixError> {
    let outside = || FixError::Outside {
        path: path.to_owned(),
    };
    let (parent, name) = path.rsplit_once('/').unwrap_or(("", path));
    if name.is_empty()
        || path.starts_with('/')
        || path.split('/').any(|part| matches!(part, "" | "." | ".."))
    {
        return Err(outside());
    }
    Ok((parent, OsStr::new(name)))
}

/// The bytes and `fstat` of the regular file `name` in `dir`, never through a symlink. Only a
/// file of the analyzed length `expected_len` is read, and never more than that: a file that grew
/// since it was analyzed (to 4 GiB, say) is `Changed` without costing its size in memory.
fn read_regular(
    dir: BorrowedFd<'_>,
    name: &OsStr,
    path: &str,
    expected_len: usize,
) -> Result<(Vec<u8>, FileStat), FixError> {
    let io = |error: std::io::Error| FixError::Io {
        path: path.to_owned(),
        error,
    };
    match safe_open::open_at(dir, Path::new(name)).map_err(io)? {
        Opened::Regular { file, stat } => {
            let changed = || FixError::Changed {
                path: path.to_owned(),
            };
            if usize::try_from(stat.st_size).ok() != Some(expected_len) {
                return Err(changed());
            }
            // A file that grew after the `fstat` is told by one byte more than expected.
            let bytes = read_at_most(file, expected_len as u64, expected_len)
                .map_err(io)?
                .filter(|bytes| bytes.len() == expected_len)
                .ok_or_else(changed)?;
            Ok((bytes, stat))
        }
        Opened::Other {
            kind: FileKind::Symlink,
            ..
        } => Err(FixError::Symlink {
            path: path.to_owned(),
        }),
        Opened::Other { kind, .. } => Err(FixError::NotRegular {
            path: path.to_owned(),
            kind,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::{FixError, apply, plan, rewrite};
    use pi_native_hooks_analysis::{
        AnalysisSnapshot, ByteRange, Finding, FindingFix, Position, Severity, SourceRange,
    };
    use pi_native_hooks_base::ContentHash;

    fn at(column: usize) -> Position {
        Position { line: 0, column }
    }

    /// A finding of `rule` on `start..end` (one ASCII line) whose fix replaces `fix` by `text`.
    fn finding(rule: &str, start: usize, end: usize, fix: (usize, usize), text: &str) -> Finding {
        Finding {
            rule: rule.into(),
            severity: Severity::Warning,
            message: "".into(),
            note: None,
            path: "a.ts".into(),
            range: SourceRange {
                start: at(start),
                end: at(end),
            },
            text_hash: String::new(),
            fix: Some(Box::new(FindingFix {
                range: SourceRange {
                    start: at(fix.0),
                    end: at(fix.1),
                },
                bytes: ByteRange {
                    start: fix.0,
                    end: fix.1,
                },
                text: text.to_owned(),
                content: ContentHash(0),
                content_len: 4,
            })),
        }
    }

    #[test]
    fn an_enclosing_match_wins_and_an_overlapping_one_waits() {
        // `f(f(x))`: the outer match first; the inner one overlaps it and is left out.
        let outer = finding("r", 0, 7, (0, 7), "g(f(x))");
        let inner = finding("r", 2, 6, (2, 6), "g(x)");
        let (kept, left_out) = plan(&[&inner, &outer]);
        assert_eq!(left_out, 1);
        assert_eq!(rewrite(b"f(f(x))", &kept), b"g(f(x))");
    }

    #[test]
    fn adjacent_fixes_both_apply_and_rules_on_one_node_go_by_id() {
        let a = finding("r", 0, 2, (0, 2), "A");
        let b = finding("r", 2, 4, (2, 4), "B");
        let later_id = finding("s", 0, 2, (0, 2), "S");
        let (kept, left_out) = plan(&[&later_id, &b, &a]);
        assert_eq!(left_out, 1);
        assert_eq!(rewrite(b"aabbcc", &kept), b"ABcc");
    }

    #[test]
    fn an_expanded_fix_counts_from_its_own_range() {
        // The first fix was expanded over the second match's start: the second one waits.
        let first = finding("r", 0, 2, (0, 3), "");
        let second = finding("r", 2, 4, (2, 4), "X");
        let (kept, left_out) = plan(&[&first, &second]);
        assert_eq!(left_out, 1);
        assert_eq!(rewrite(b"aabbcc", &kept), b"bcc");
    }

    /// A snapshot of `path` whose one fix replaces bytes `0..2` by `X` in the text `analyzed`.
    fn snapshot(path: &str, analyzed: &[u8]) -> AnalysisSnapshot {
        let mut finding = finding("r", 0, 2, (0, 2), "X");
        finding.path = path.into();
        if let Some(fix) = finding.fix.as_mut() {
            fix.content = ContentHash::of(analyzed);
            fix.content_len = analyzed.len();
        }
        AnalysisSnapshot {
            findings: vec![finding],
            ..AnalysisSnapshot::default()
        }
    }

    #[test]
    fn a_file_that_changed_since_it_was_analyzed_is_not_written() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("a.ts"), "ab;\n").expect("write");
        let stale = snapshot("a.ts", b"aa;\n");
        let report = apply(dir.path(), &stale);
        assert_eq!((report.applied, report.files), (0, 0));
        assert!(
            matches!(report.problems.as_slice(), [FixError::Changed { path }] if path == "a.ts"),
            "{:?}",
            report.problems
        );
        let text = std::fs::read_to_string(dir.path().join("a.ts")).expect("read");
        assert_eq!(text, "ab;\n");

        let fresh = snapshot("a.ts", b"ab;\n");
        let report = apply(dir.path(), &fresh);
        assert_eq!(
            (report.applied, report.files),
            (1, 1),
            "{:?}",
            report.problems
        );
        let text = std::fs::read_to_string(dir.path().join("a.ts")).expect("read");
        assert_eq!(text, "X;\n");
    }

    #[test]
    fn a_file_grown_since_it_was_analyzed_is_not_read_nor_written() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("a.ts");
        std::fs::write(&path, "ab;\n").expect("write");
        // Sparse: 4 GiB on disk costs nothing, and would cost 4 GiB of memory if it were read.
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .expect("open");
        file.set_len(4 << 30).expect("set_len");
        let report = apply(dir.path(), &snapshot("a.ts", b"ab;\n"));
        assert_eq!((report.applied, report.files), (0, 0));
        assert!(
            matches!(report.problems.as_slice(), [FixError::Changed { path }] if path == "a.ts"),
            "{:?}",
            report.problems
        );
        assert_eq!(std::fs::metadata(&path).expect("stat").len(), 4 << 30);
    }

    #[test]
    fn a_directory_a_fifo_or_a_path_leaving_the_root_is_not_written() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("d.ts")).expect("mkdir");
        nix::unistd::mkfifo(&dir.path().join("p.ts"), nix::sys::stat::Mode::S_IRWXU)
            .expect("mkfifo");
        let content = b"";
        let report = apply(dir.path(), &snapshot("d.ts", content));
        assert!(
            matches!(report.problems.as_slice(), [FixError::NotRegular { .. }]),
            "{:?}",
            report.problems
        );
        // Never opened: a FIFO would block a reader until a writer came.
        let report = apply(dir.path(), &snapshot("p.ts", content));
        assert!(
            matches!(report.problems.as_slice(), [FixError::NotRegular { .. }]),
            "{:?}",
            report.problems
        );
        for path in ["../a.ts", "/etc/a.ts", "x/../a.ts", ""] {
            let report = apply(dir.path(), &snapshot(path, content));
            assert!(
                matches!(report.problems.as_slice(), [FixError::Outside { .. }]),
                "{path}: {:?}",
                report.problems
            );
        }
    }
}

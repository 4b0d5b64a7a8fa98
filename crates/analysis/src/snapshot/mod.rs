//! The immutable result of one analysis: shared by `Arc` with every policy of a wave.

pub(crate) mod diagnostic;
pub(crate) mod finding;

use finding::Finding;
use pi_native_hooks_base::safe_open::FileKind;
use pi_native_hooks_config::AnalyzerKey;
use serde::{Serialize, Serializer};
use std::fmt;
use std::time::Duration;

/// Why a requested file produced no findings of its own. Every bound is visible here, never silent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", rename_all = "kebab-case")]
pub enum SkipReason {
    /// Larger than [`ScanLimits::max_file_bytes`](super::ScanLimits::max_file_bytes).
    TooLarge {
        /// Size on disk in bytes.
        bytes: u64,
        /// The configured limit.
        limit: u64,
    },
    /// Contains a NUL byte.
    Binary,
    /// Has no NUL byte but is not valid UTF-8.
    NotUtf8,
    /// The file disappeared between the change and the scan.
    Vanished,
    /// Beyond [`ScanLimits::max_files`](super::ScanLimits::max_files) for one wave.
    TooManyFiles {
        /// The configured limit.
        limit: usize,
    },
    /// The file could not be read.
    Unreadable {
        /// The operating system's error message.
        error: String,
    },
    /// Not a regular file (a FIFO, socket, device or directory), itself or where its symlinks
    /// lead; never opened.
    NotRegular {
        /// What the path names.
        kind: FileKind,
        /// `true` when the path is a symlink (or passes through one) to that object.
        symlink: bool,
    },
    /// A symlink on the path leads outside the repository; its target is never opened.
    SymlinkOutsideRepository,
    /// The path itself (through `..`) lies outside the repository.
    OutsideRepository,
    /// A symlink on the path points to nothing.
    DanglingSymlink,
    /// A symlink met by a directory walk: like the ast-grep CLI's walk, a walk does not follow
    /// symlinks (name the file itself to analyze it).
    SymlinkNotFollowed,
    /// The type check of the file was not answered within the wave's wait; it is asked again
    /// with the next wave that reaches the type checker.
    TypeCheckPending {
        /// How long the wave waited, in milliseconds.
        waited_ms: u64,
    },
    /// The file's project has no type check the analyzer can run now (its server failed to
    /// start, crashed twice, or went over its memory budget).
    TypeCheckUnavailable {
        /// Why, naming the project.
        why: String,
    },
    /// The file imports a changed file but was not re-checked: the wave had more dependents than
    /// the analyzer checks at once.
    DependentNotChecked {
        /// The most dependents checked in one wave.
        limit: usize,
    },
}

/// Whether `rule` names a type error of the TypeScript analyzer (`TS` and its code, `TS2322`):
/// TypeScript reports it, so no `ast-grep-ignore` comment suppresses it.
pub fn is_type_error_rule(rule: &str) -> bool {
    rule.strip_prefix("TS")
        .is_some_and(|code| code.chars().all(|c| c.is_ascii_digit()))
}

impl SkipReason {
    /// Whether this is one of the type checker's reasons: the file was read, but its type check
    /// is incomplete.
    pub fn is_type_check(&self) -> bool {
        matches!(
            self,
            SkipReason::TypeCheckPending { .. }
                | SkipReason::TypeCheckUnavailable { .. }
                | SkipReason::DependentNotChecked { .. }
        )
    }
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkipReason::TooLarge { bytes, limit } => {
                write!(f, "{bytes} bytes is over the {limit}-byte limit")
            }
            SkipReason::Binary => f.write_str("binary file"),
            SkipReason::NotUtf8 => f.write_str("not valid UTF-8"),
            SkipReason::Vanished => f.write_str("file vanished before it could be read"),
            SkipReason::TooManyFiles { limit } => write!(f, "more than {limit} files in one scan"),
            SkipReason::Unreadable { error } => f.write_str(error),
            SkipReason::NotRegular {
                kind,
                symlink: false,
            } => write!(f, "a {kind}, not a regular file"),
            SkipReason::NotRegular {
                kind,
                symlink: true,
            } => write!(f, "a symlink to a {kind}, not to a regular file"),
            SkipReason::SymlinkOutsideRepository => {
                f.write_str("a symlink leading outside the repository")
            }
            SkipReason::OutsideRepository => f.write_str("outside the repository"),
            SkipReason::DanglingSymlink => f.write_str("a symlink to nothing"),
            SkipReason::SymlinkNotFollowed => f.write_str(
                "a symlink, not followed by a directory walk (name it to analyze its target)",
            ),
            SkipReason::TypeCheckPending { waited_ms } => write!(
                f,
                "type check not answered within {waited_ms} ms (asked again with the next wave)"
            ),
            SkipReason::TypeCheckUnavailable { why } => write!(f, "no type check: {why}"),
            SkipReason::DependentNotChecked { limit } => write!(
                f,
                "imports a changed file but was not type-checked: over {limit} dependents in one wave"
            ),
        }
    }
}

/// A requested file that was not analyzed, with the reason.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SkippedFile {
    /// Repository-relative path.
    pub path: String,
    /// Why it was skipped.
    #[serde(flatten)]
    pub reason: SkipReason,
}

/// One analysis of one wave. Built once, never mutated: hold it in an `Arc` and share it.
#[derive(Clone, Debug, Default, Serialize)]
pub struct AnalysisSnapshot {
    /// The analyzer key, e.g. `ast-grep:personal` or `ast-grep:builtin`.
    pub analyzer: AnalyzerKey,
    /// The TS/TSX paths this analysis was asked about (repository-relative, sorted).
    pub paths: Vec<String>,
    /// Findings, sorted deterministically, at most [`ScanLimits::max_findings`](super::ScanLimits::max_findings).
    pub findings: Vec<Finding>,
    /// How many findings were dropped by the findings bound.
    pub omitted_findings: usize,
    /// Requested files that were not analyzed, with the reason.
    pub skipped: Vec<SkippedFile>,
    /// Files parsed in this analysis.
    pub parsed_files: usize,
    /// Files whose content was unchanged since a previous analysis (served from the cache).
    pub cached_files: usize,
    /// Wall time of the analysis.
    #[serde(serialize_with = "serialize_micros", rename = "durationMicros")]
    pub duration: Duration,
    /// Set when the analysis failed as a whole: its findings must not be read as a clean scan.
    pub failure: Option<ScanFailure>,
}

impl AnalysisSnapshot {
    /// True when the analysis ran and every requested file was analyzed.
    pub fn is_complete(&self) -> bool {
        self.failure.is_none() && self.skipped.is_empty() && self.omitted_findings == 0
    }
}

fn serialize_micros<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u128(d.as_micros())
}

/// Why an analysis failed: the files ast-grep panicked on. Their findings are missing, so the
/// analysis must not be read as a clean scan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScanFailure {
    /// The files whose analysis panicked, in the order they were analyzed (at least one).
    pub panics: Vec<ScanPanic>,
}

/// One file ast-grep panicked on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScanPanic {
    /// The file, as the analysis names it.
    pub path: String,
    /// The panic's payload when it is a string, else "unknown panic".
    pub message: String,
}

impl fmt::Display for ScanFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, panic) in self.panics.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{}: ast-grep panicked: {}", panic.path, panic.message)?;
        }
        Ok(())
    }
}

impl std::error::Error for ScanFailure {}

/// Serialized as its text, as before it had a type.
impl Serialize for ScanFailure {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

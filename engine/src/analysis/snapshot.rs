//! The immutable result of one analysis: shared by `Arc` with every policy of a wave.

use super::finding::Finding;
use serde::Serialize;
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
    /// Not valid UTF-8.
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
}

impl std::fmt::Display for SkipReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SkipReason::TooLarge { bytes, limit } => {
                write!(f, "{bytes} bytes is over the {limit}-byte limit")
            }
            SkipReason::Binary => f.write_str("binary file"),
            SkipReason::NotUtf8 => f.write_str("not valid UTF-8"),
            SkipReason::Vanished => f.write_str("file vanished before it could be read"),
            SkipReason::TooManyFiles { limit } => write!(f, "more than {limit} files in one scan"),
            SkipReason::Unreadable { error } => f.write_str(error),
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
    pub analyzer: String,
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
    pub failure: Option<String>,
}

impl AnalysisSnapshot {
    /// True when the analysis ran and every requested file was analyzed.
    pub fn is_complete(&self) -> bool {
        self.failure.is_none() && self.skipped.is_empty() && self.omitted_findings == 0
    }
}

fn serialize_micros<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u128(d.as_micros())
}

//! Owns the analyzer port: the one trait every analyzer a wave runs implements, in the types this
//! crate already speaks (an [`AnalyzerKey`], an immutable [`AnalysisSnapshot`] of [`Finding`]s).
//! The wave's analysis coordinator consumes the trait and knows no analyzer; each analyzer's
//! crate implements it beside its analyzer (the ast-grep rules in `ast_grep.rs` here, the
//! project's TypeScript in its own crate), and the composition root hands the wave the list.
//! Adding an analyzer touches neither the wave nor the delivery.

mod ast_grep;

use crate::cache::tree_cache::TreeCacheStats;
use crate::incremental::EditHint;
use crate::scan::ScanLimits;
use crate::snapshot::AnalysisSnapshot;
use crate::snapshot::finding::Finding;
use pi_native_hooks_config::AnalyzerKey;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// One scan a wave asks of an analyzer: the changed paths it handles, under the root they are
/// relative to, and what an `edit` call replaced in some of them.
#[derive(Clone, Copy, Debug)]
pub struct ScanRequest<'a> {
    /// The repository (or scan) root.
    pub root: &'a Path,
    /// The paths to analyze, relative to `root`.
    pub paths: &'a [String],
    /// For some of the paths, the text an `edit` call replaced: an analyzer that re-analyzes
    /// incrementally locates the edit with it; one that cannot use it ignores it.
    pub edits: &'a [(String, EditHint)],
}

impl<'a> ScanRequest<'a> {
    /// `paths` under `root`, without edit hints.
    pub fn new(root: &'a Path, paths: &'a [String]) -> Self {
        Self {
            root,
            paths,
            edits: &[],
        }
    }
}

/// What an analyzer shows of itself in the status beyond its runs (its servers, what it keeps,
/// what is pending), read at any time without waiting for a wave: it reads what the analyzer last
/// published. The lines are the analyzer's own wording, unescaped (whoever prints them escapes
/// them).
pub trait StatusSource: Send + Sync {
    /// The status lines.
    fn lines(&self) -> Vec<String>;
    /// Whether the analyzer failed for good in part (a server degraded): the footer says so.
    fn degraded(&self) -> bool;
}

/// An analyzer the wave can run: one key, the paths it understands, one scan per call.
pub trait WaveAnalyzer: Send {
    /// The analyzer key, e.g. `ast-grep:personal`.
    fn key(&self) -> &AnalyzerKey;
    /// Whether `path` (relative) is something this analyzer reads.
    fn handles(&self, path: &str) -> bool;
    /// Analyzes the request's paths once.
    fn scan(&mut self, request: &ScanRequest<'_>) -> Arc<AnalysisSnapshot>;
    /// The findings of `bytes` as the content of `path` (what the file held before the wave),
    /// or `None` when they cannot be judged; the wave then counts every finding in the file as
    /// new.
    fn findings_in(&self, path: &str, bytes: &[u8]) -> Option<Vec<Finding>> {
        let _ = (path, bytes);
        None
    }
    /// The largest file this analyzer reads, in bytes.
    fn max_file_bytes(&self) -> u64 {
        ScanLimits::default().max_file_bytes
    }

    /// Whether the analyzer has rules of its own. Their findings reach the model even when no
    /// policy consumes the analyzer, so it is scanned for them; one without rules is scanned only
    /// for the policies that consume it.
    fn has_rules(&self) -> bool {
        true
    }

    /// What the analyzer holds for incremental re-analysis and how it analyzed files so far, when
    /// it holds anything at all.
    fn tree_cache_stats(&self) -> Option<TreeCacheStats> {
        None
    }

    /// Where the status reads what the analyzer shows of itself, when it shows anything beyond
    /// its runs. Taken once, before the analyzer is handed to the wave.
    fn status_source(&self) -> Option<Arc<dyn StatusSource>> {
        None
    }

    /// Whether files of an earlier wave still wait for their analysis (an answer that did not
    /// arrive within the wave's wait).
    fn has_pending(&self) -> bool {
        false
    }

    /// Analyzes what is pending once more, waiting at most `wait`: what arrived after the last
    /// wave, for the settle to deliver. `None` when nothing is pending.
    fn flush(&mut self, root: &Path, wait: Duration) -> Option<Arc<AnalysisSnapshot>> {
        let _ = (root, wait);
        None
    }
}

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

/// An analyzer the wave can run: one key, the paths it understands, one scan per call.
pub trait WaveAnalyzer: Send {
    /// The analyzer key, e.g. `ast-grep:personal`.
    fn key(&self) -> &AnalyzerKey;
    /// Whether `path` (relative) is something this analyzer reads.
    fn handles(&self, path: &str) -> bool;
    /// Analyzes `paths` under `root` once.
    fn scan(&mut self, root: &Path, paths: &[String]) -> Arc<AnalysisSnapshot>;
    /// [`scan`](Self::scan), told which text an `edit` call replaced in some of the files; an
    /// analyzer that cannot use the hints ignores them.
    fn scan_edited(
        &mut self,
        root: &Path,
        paths: &[String],
        edits: &[(String, EditHint)],
    ) -> Arc<AnalysisSnapshot> {
        let _ = edits;
        self.scan(root, paths)
    }
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

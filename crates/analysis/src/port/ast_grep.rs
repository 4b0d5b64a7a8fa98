//! Owns the ast-grep rules' side of the analyzer port: the in-process [`Analyzer`] as a wave runs
//! it, with edit hints for incremental re-analysis, the findings of a file's earlier text, and
//! its held trees.

use super::{ScanRequest, WaveAnalyzer};
use crate::cache::tree_cache::TreeCacheStats;
use crate::rules::language_of;
use crate::scan::Analyzer;
use crate::snapshot::AnalysisSnapshot;
use crate::snapshot::finding::Finding;
use pi_native_hooks_config::AnalyzerKey;
use std::sync::Arc;

impl WaveAnalyzer for Analyzer {
    fn key(&self) -> &AnalyzerKey {
        Analyzer::key(self)
    }

    fn handles(&self, path: &str) -> bool {
        language_of(path).is_some()
    }

    /// With edit hints, a held tree is re-parsed around the edit they locate.
    fn scan(&mut self, request: &ScanRequest<'_>) -> Arc<AnalysisSnapshot> {
        Analyzer::scan_edited(self, request.root, request.paths, request.edits)
    }

    fn findings_in(&self, path: &str, bytes: &[u8]) -> Option<Vec<Finding>> {
        Analyzer::findings_in(self, path, bytes).ok()
    }

    fn max_file_bytes(&self) -> u64 {
        Analyzer::max_file_bytes(self)
    }

    fn has_rules(&self) -> bool {
        !self.rules().ids().is_empty()
    }

    fn tree_cache_stats(&self) -> Option<TreeCacheStats> {
        Some(Analyzer::tree_cache_stats(self))
    }
}

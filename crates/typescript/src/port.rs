//! Owns the TypeScript analyzer's side of the analyzer port: [`TypeScriptAnalyzer`] as a wave
//! runs it, its "before" of a changed file, what it still has pending for the settle, and where
//! its status is read.

use crate::analyzer::TypeScriptAnalyzer;
use pi_native_hooks_analysis::{
    AnalysisSnapshot, AnalyzerKey, Finding, ScanRequest, StatusSource, WaveAnalyzer,
};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

impl WaveAnalyzer for TypeScriptAnalyzer {
    fn key(&self) -> &AnalyzerKey {
        TypeScriptAnalyzer::key(self)
    }

    fn handles(&self, path: &str) -> bool {
        TypeScriptAnalyzer::handles(self, path)
    }

    /// Edit hints are not needed: the server is sent the edit between the texts it holds.
    fn scan(&mut self, request: &ScanRequest<'_>) -> Arc<AnalysisSnapshot> {
        TypeScriptAnalyzer::scan(self, request.root, request.paths)
    }

    /// The "before" the wave's own check found (the server's answer with the changed files as
    /// they were); the bytes are not needed, the server judged the same text.
    fn findings_in(&self, path: &str, bytes: &[u8]) -> Option<Vec<Finding>> {
        let _ = bytes;
        TypeScriptAnalyzer::findings_in(self, path)
    }

    fn status_source(&self) -> Option<Arc<dyn StatusSource>> {
        Some(Arc::new(self.status()))
    }

    fn has_pending(&self) -> bool {
        TypeScriptAnalyzer::has_pending(self)
    }

    fn flush(&mut self, root: &Path, wait: Duration) -> Option<Arc<AnalysisSnapshot>> {
        TypeScriptAnalyzer::has_pending(self).then(|| self.scan_within(root, &[], wait))
    }
}

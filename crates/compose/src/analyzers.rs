//! Owns the one list of analyzers a wave runs: the ast-grep analyzer over the loaded rules and,
//! unless the settings turn it off (`[typescript] enabled = false`), the project's own
//! TypeScript, with where each one's status is read. A session builds its coordinator over this
//! list and shows the statuses; nothing else decides which analyzers a wave has, so a session
//! knows none of them by name.

use crate::LoadedConfig;
use pi_native_hooks_analysis::{AnalyzerError, ScanLimits, StatusSource, WaveAnalyzer};
use pi_native_hooks_typescript::{
    PriorTexts, TsserverBridge, TypeScriptAnalyzer, TypeScriptLimits,
};
use pi_native_hooks_workspace::RevisionTree;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::runtime::Handle;

/// What the type check shows when the settings turn it off.
const TYPE_CHECK_OFF: &str = "[typescript] enabled = false in settings.toml";

/// The analyzers of one wave, in the order they run, and where their statuses are read.
pub struct WaveAnalyzers {
    /// The ast-grep analyzer first, then the type check when it is on.
    pub analyzers: Vec<Box<dyn WaveAnalyzer>>,
    /// What the analyzers show of themselves in the status, in the same order (and an analyzer
    /// the settings turn off, saying so).
    pub status: Vec<Arc<dyn StatusSource>>,
}

impl LoadedConfig {
    /// The analyzers a wave runs in the repository at `root` (the git worktree root, or the
    /// session's folder outside git): the ast-grep analyzer over the rules with `threads` worker
    /// threads ([`LoadedConfig::analyzer`]) and, unless `[typescript] enabled = false`, the
    /// project's TypeScript on `runtime`, under the settings' bounds, its "before" read from
    /// `HEAD`, serving a TypeScript before 7 with `bridge` when one is given.
    pub fn wave_analyzers(
        &self,
        root: &Path,
        threads: usize,
        runtime: Handle,
        bridge: Option<TsserverBridge>,
    ) -> Result<WaveAnalyzers, AnalyzerError> {
        let mut analyzers: Vec<Box<dyn WaveAnalyzer>> = vec![Box::new(self.analyzer(threads)?)];
        let mut status = Vec::new();
        let settings = &self.settings.settings.typescript;
        if settings.enabled {
            let analyzer = TypeScriptAnalyzer::new(
                root,
                runtime,
                TypeScriptLimits::from_settings(settings),
                head_texts(root.to_path_buf(), ScanLimits::default().max_file_bytes),
            )
            .with_tsserver_bridge(bridge);
            analyzers.push(Box::new(analyzer));
        } else {
            status.push(pi_native_hooks_typescript::disabled(TYPE_CHECK_OFF));
        }
        let mut sources: Vec<Arc<dyn StatusSource>> = analyzers
            .iter()
            .filter_map(|analyzer| analyzer.status_source())
            .collect();
        sources.append(&mut status);
        Ok(WaveAnalyzers {
            analyzers,
            status: sources,
        })
    }
}

/// Each path's text at `HEAD` in the repository at `root` (none outside git, for a path `HEAD`
/// lacks, or one that cannot be read): the "before" of a file the type check has never seen.
fn head_texts(root: PathBuf, limit: u64) -> PriorTexts {
    Box::new(move |paths: &[String]| match RevisionTree::head(&root) {
        Ok(head) => head.texts(paths, limit),
        Err(_) => vec![None; paths.len()],
    })
}

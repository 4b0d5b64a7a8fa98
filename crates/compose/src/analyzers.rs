//! Owns the one list of analyzers a wave runs: the ast-grep analyzer over the loaded rules and,
//! unless the settings turn it off (`[typescript] enabled = false`), the project's own
//! TypeScript, with the handle its status is read through. A session builds its coordinator over
//! this list; nothing else decides which analyzers a wave has.

use crate::LoadedConfig;
use pi_native_hooks_analysis::{AnalyzerError, ScanLimits, WaveAnalyzer};
use pi_native_hooks_typescript::{
    PriorTexts, StatusHandle, TsserverBridge, TypeScriptAnalyzer, TypeScriptLimits,
};
use pi_native_hooks_workspace::RevisionTree;
use std::path::{Path, PathBuf};
use tokio::runtime::Handle;

/// The analyzers of one wave, in the order they run, and what the type check shows.
pub struct WaveAnalyzers {
    /// The ast-grep analyzer first, then the type check when it is on.
    pub analyzers: Vec<Box<dyn WaveAnalyzer>>,
    /// Whether the type check runs, and its status when it does.
    pub type_check: TypeCheck,
}

/// The type check of a wave's analyzers: off by the settings, or the analyzer's published
/// status.
#[derive(Clone, Debug)]
pub enum TypeCheck {
    /// `[typescript] enabled = false`.
    Disabled,
    /// The analyzer runs; its latest status.
    On(StatusHandle),
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
        let settings = &self.settings.settings.typescript;
        if !settings.enabled {
            return Ok(WaveAnalyzers {
                analyzers,
                type_check: TypeCheck::Disabled,
            });
        }
        let analyzer = TypeScriptAnalyzer::new(
            root,
            runtime,
            TypeScriptLimits::from_settings(settings),
            head_texts(root.to_path_buf(), ScanLimits::default().max_file_bytes),
        )
        .with_tsserver_bridge(bridge);
        let type_check = TypeCheck::On(analyzer.status());
        analyzers.push(Box::new(analyzer));
        Ok(WaveAnalyzers {
            analyzers,
            type_check,
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

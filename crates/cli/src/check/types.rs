//! `check --types`: the same TypeScript analyzer a Pi session runs, over the files the check
//! analyzed and the files that import them, its findings added to the check's own (the
//! policies that select the `typescript` analyzer run over its snapshot). With `--new-since REV`,
//! the "before" of each file is the server's answer with the changed files as they were at `REV`,
//! so only introduced type errors are reported.
//!
//! A command line has no wave to keep short: the check waits for the server up to
//! [`CHECK_WAIT`], and a file whose type check did not finish is named as not analyzed (exit 2
//! unless `--allow-skipped`), never passed over as clean.

use super::new_since::PresentAtRev;
use pi_native_hooks_analysis::AnalysisSnapshot;
use pi_native_hooks_base::CancelToken;
use pi_native_hooks_config::settings::TypeScriptSettings;
use pi_native_hooks_delivery::{PriorFinding, finding_start, findings_by_path, introduced};
use pi_native_hooks_policy::{DiagnosticRun, PolicyRegistry};
use pi_native_hooks_typescript::{
    PriorTexts, ProjectLookup, TsserverBridge, TypeScriptAnalyzer, TypeScriptLimits,
};
use pi_native_hooks_workspace::RevisionTree;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// The longest `check --types` waits for the type check: a cold server on a large project
/// takes seconds; a server that takes minutes is named, not waited for.
pub(crate) const CHECK_WAIT: Duration = Duration::from_secs(300);

/// The type check of `snapshot`'s analyzed files under `root`, its policies' run, and (with
/// `rev`) which of its findings were present at `rev`.
pub(crate) struct TypeCheck {
    pub(crate) snapshot: Arc<AnalysisSnapshot>,
    pub(crate) run: DiagnosticRun,
    pub(crate) present: Option<PresentAtRev>,
    /// Projects of checked files whose type check cannot run, with the reason (no TypeScript
    /// 7 installed): the user asked for types, so each is named.
    pub(crate) off: Vec<String>,
}

/// Why `check --types` could not run at all.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TypeCheckError {
    /// The runtime the language server runs on could not start.
    #[error("cannot start the type check: {0}")]
    Runtime(#[source] std::io::Error),
}

/// Runs the type check over the files `snapshot` analyzed.
pub(crate) fn run(
    root: &Path,
    snapshot: &AnalysisSnapshot,
    rev: Option<(&RevisionTree, &str)>,
    settings: &TypeScriptSettings,
    max_file_bytes: u64,
    registry: &PolicyRegistry,
    bridge: Option<&TsserverBridge>,
) -> Result<TypeCheck, TypeCheckError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(TypeCheckError::Runtime)?;
    let limits = TypeScriptLimits {
        wait: CHECK_WAIT,
        // A check names every file it did not check; it has no later wave to leave them to.
        max_dependents: usize::MAX,
        // The check's own size limit (none unless `--max-file-bytes`), for both analyzers.
        max_file_bytes,
        ..TypeScriptLimits::from_settings(settings)
    };
    let prior = prior_texts(
        rev.map(|(tree, rev)| (tree.worktree_root().to_path_buf(), rev.to_owned())),
        max_file_bytes,
    );
    let mut analyzer = TypeScriptAnalyzer::new(root, runtime.handle().clone(), limits, prior)
        .with_tsserver_bridge(bridge.cloned());
    let skipped: Vec<&str> = snapshot.skipped.iter().map(|s| s.path.as_str()).collect();
    let analyzed: Vec<&String> = snapshot
        .paths
        .iter()
        .filter(|path| !skipped.contains(&path.as_str()))
        .collect();
    let paths: Vec<String> = analyzed
        .iter()
        .filter(|path| analyzer.handles(path))
        .map(|path| (*path).clone())
        .collect();
    let mut lookup = ProjectLookup::new(root).with_bridge(bridge.cloned());
    let mut off: BTreeSet<String> = BTreeSet::new();
    for path in &analyzed {
        if let Some(project) = lookup.project_of(path)
            && let Err(reason) = &project.typescript
        {
            off.insert(format!("{}: {reason}", project.config.display()));
        }
    }
    let typed = if paths.is_empty() {
        Arc::new(AnalysisSnapshot {
            analyzer: analyzer.key().clone(),
            ..AnalysisSnapshot::default()
        })
    } else {
        analyzer.scan(root, &paths)
    };
    let run = registry.evaluate_diagnostics(&typed, &CancelToken::new());
    let present = rev.map(|_| present_before(&analyzer, &typed));
    drop(analyzer);
    runtime.shutdown_timeout(Duration::from_secs(2));
    Ok(TypeCheck {
        snapshot: typed,
        run,
        present,
        off: off.into_iter().collect(),
    })
}

/// Each changed file's text at `rev` in the repository at the given root (nothing without one:
/// every finding is reported).
fn prior_texts(rev: Option<(PathBuf, String)>, limit: u64) -> PriorTexts {
    let Some((root, rev)) = rev else {
        return Box::new(|paths: &[String]| vec![None; paths.len()]);
    };
    Box::new(
        move |paths: &[String]| match RevisionTree::at(&root, &rev) {
            Ok(tree) => tree.texts(paths, limit),
            Err(_) => vec![None; paths.len()],
        },
    )
}

/// Which type findings were already there before (at the revision).
fn present_before(analyzer: &TypeScriptAnalyzer, snapshot: &AnalysisSnapshot) -> PresentAtRev {
    let mut present = PresentAtRev {
        old: std::collections::HashSet::new(),
        unjudged: Vec::new(),
    };
    for (path, findings) in findings_by_path(&snapshot.findings) {
        let before = analyzer.findings_in(path);
        if before.is_none() {
            present.unjudged.push((
                path.to_owned(),
                "its type check before the change did not answer".to_owned(),
            ));
        }
        let before: Option<Vec<PriorFinding>> =
            before.map(|b| b.iter().map(PriorFinding::from).collect());
        for (finding, new) in findings
            .iter()
            .zip(introduced(before.as_deref(), &findings))
        {
            if !new {
                present.old.insert(finding_start(finding));
            }
        }
    }
    present
}

/// `snapshot` with the type check's findings, files and skipped files added (its counts of
/// analyzed files stay the check's own).
pub(crate) fn merged(
    snapshot: Arc<AnalysisSnapshot>,
    typed: &AnalysisSnapshot,
) -> Arc<AnalysisSnapshot> {
    let mut merged = Arc::unwrap_or_clone(snapshot);
    merged.findings.extend(typed.findings.iter().cloned());
    merged.findings.sort();
    merged.omitted_findings += typed.omitted_findings;
    merged.paths.extend(typed.paths.iter().cloned());
    merged.paths.sort();
    merged.paths.dedup();
    merged.skipped.extend(typed.skipped.iter().cloned());
    merged.skipped.sort_by(|a, b| a.path.cmp(&b.path));
    Arc::new(merged)
}

/// One run with the diagnostics, consumed rules, failures and logs of both.
pub(crate) fn merged_run(mut run: DiagnosticRun, typed: DiagnosticRun) -> DiagnosticRun {
    run.diagnostics.extend(typed.diagnostics);
    run.diagnostics.sort_by(|a, b| {
        (&a.path, a.line, a.column, &a.rule, &a.policy)
            .cmp(&(&b.path, b.line, b.column, &b.rule, &b.policy))
    });
    run.consumed.extend(typed.consumed);
    run.failures.extend(typed.failures);
    run.logs.extend(typed.logs);
    run
}

#[cfg(test)]
mod tests {
    use super::*;
    use pi_native_hooks_analysis::{SkipReason, SkippedFile};

    fn pending(path: &str) -> SkippedFile {
        SkippedFile {
            path: path.to_owned(),
            reason: SkipReason::TypeCheckPending { waited_ms: 1 },
        }
    }

    #[test]
    fn a_merged_snapshot_keeps_the_checks_counts_and_adds_the_type_checks_files() {
        let check = Arc::new(AnalysisSnapshot {
            paths: vec!["b.ts".to_owned()],
            parsed_files: 1,
            ..AnalysisSnapshot::default()
        });
        let typed = AnalysisSnapshot {
            paths: vec!["a.ts".to_owned(), "b.ts".to_owned()],
            skipped: vec![pending("a.ts")],
            parsed_files: 7,
            ..AnalysisSnapshot::default()
        };
        let merged = merged(check, &typed);
        assert_eq!(merged.paths, vec!["a.ts", "b.ts"]);
        assert_eq!(merged.parsed_files, 1);
        assert_eq!(merged.skipped.len(), 1);
    }
}

//! Owns what each analyzed file held before the wave and which of its findings the wave
//! introduced. "Before" is what the analyzer found when it last analyzed the path completely
//! (the lane's [`FindingHistory`]); else the path's blob at `HEAD` (for a staged rename, its
//! source's), analyzed in memory without touching the content cache; else nothing, so every
//! finding is new. A blob that cannot be judged (over the size limit, binary, not UTF-8, not a
//! file, unreadable) also counts as nothing: the wave fails towards telling the model.

use crate::pipeline::analysis::{AnalysisCoordinator, AnalyzerRun, WaveAnalysis};
use pi_native_hooks_analysis::{AnalyzerKey, SkipReason};
use pi_native_hooks_delivery::{
    FindingHistory, KeyedDiagnostic, PriorFinding, Start, diagnostic_start, finding_start,
    findings_by_path, introduced,
};
use pi_native_hooks_workspace::RevisionBlob;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// What the analyzed files held before the wave, per analyzer key and path.
#[derive(Debug, Default)]
pub(crate) struct Priors {
    by_file: HashMap<(AnalyzerKey, String), Option<Vec<PriorFinding>>>,
    /// Files compared with their `HEAD` blob, and those of them that could not be judged.
    pub(crate) from_head: usize,
    pub(crate) unjudged: usize,
}

/// The paths of `run` that were analyzed (not skipped).
fn analyzed(run: &AnalyzerRun) -> impl Iterator<Item = &String> {
    let skipped: BTreeSet<&str> = run
        .snapshot
        .skipped
        .iter()
        .map(|s| s.path.as_str())
        .collect();
    run.snapshot
        .paths
        .iter()
        .filter(move |path| !skipped.contains(path.as_str()))
}

impl Priors {
    /// The before of every analyzed file of `analysis`: from `history`, else from the `HEAD`
    /// blobs `head_blobs(paths, limit)` returns (called once, for the files the history lacks).
    pub(crate) fn gather(
        analysis: &WaveAnalysis,
        coordinator: &AnalysisCoordinator,
        history: &FindingHistory,
        head_blobs: impl FnOnce(&[String], u64) -> Vec<RevisionBlob>,
    ) -> Self {
        let mut priors = Self::default();
        let mut missing: Vec<(AnalyzerKey, String)> = Vec::new();
        for run in &analysis.runs {
            let key = &run.request.analyzer;
            for path in analyzed(run) {
                match history.get(key, path) {
                    Some(prior) => {
                        priors
                            .by_file
                            .insert((key.clone(), path.clone()), Some(prior.to_vec()));
                    }
                    None => missing.push((key.clone(), path.clone())),
                }
            }
        }
        if missing.is_empty() {
            return priors;
        }
        let paths: Vec<String> = missing
            .iter()
            .map(|(_, path)| path.clone())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let limit = missing
            .iter()
            .filter_map(|(key, _)| coordinator.analyzer(key))
            .map(pi_native_hooks_analysis::WaveAnalyzer::max_file_bytes)
            .max()
            .unwrap_or(0);
        let blobs: BTreeMap<&String, RevisionBlob> =
            paths.iter().zip(head_blobs(&paths, limit)).collect();
        for (key, path) in missing {
            let prior = match blobs.get(&path).map_or(Ok(None), RevisionBlob::contents) {
                Ok(None) => None,
                Ok(Some(bytes)) => {
                    priors.from_head += 1;
                    let findings = coordinator
                        .analyzer(&key)
                        .and_then(|analyzer| analyzer.findings_in(&path, bytes));
                    if findings.is_none() {
                        priors.unjudged += 1;
                    }
                    findings.map(|f| f.iter().map(PriorFinding::from).collect())
                }
                // Why it cannot be judged is not shown in a wave, only counted.
                Err(_) => {
                    priors.from_head += 1;
                    priors.unjudged += 1;
                    None
                }
            };
            priors.by_file.insert((key, path), prior);
        }
        priors
    }

    fn get(&self, analyzer: &AnalyzerKey, path: &str) -> Option<&[PriorFinding]> {
        self.by_file
            .get(&(analyzer.clone(), path.to_owned()))
            .and_then(|prior| prior.as_deref())
    }
}

/// Which findings of a wave were already in their file before it.
#[derive(Debug, Default)]
pub(crate) struct Judged {
    /// Starts of the findings that existed before the wave.
    old: HashSet<Start>,
    /// Introduced findings per analyzer, with the start each is reported at.
    introduced: Vec<(AnalyzerKey, Vec<Start>)>,
}

impl Judged {
    /// Compares every analyzed file's findings with its before.
    pub(crate) fn new(analysis: &WaveAnalysis, priors: &Priors) -> Self {
        let mut judged = Self::default();
        for run in &analysis.runs {
            let key = &run.request.analyzer;
            let mut new_here = Vec::new();
            for (path, findings) in findings_by_path(&run.snapshot.findings) {
                let flags = introduced(priors.get(key, path), &findings);
                for (finding, new) in findings.iter().zip(flags) {
                    if new {
                        new_here.push(finding_start(finding));
                    } else {
                        judged.old.insert(finding_start(finding));
                    }
                }
            }
            judged.introduced.push((key.clone(), new_here));
        }
        judged
    }

    /// True when `diagnostic` reports a finding that existed before the wave. A diagnostic that
    /// sits on no finding (a policy may point elsewhere) counts as introduced.
    pub(crate) fn is_pre_existing(&self, diagnostic: &KeyedDiagnostic) -> bool {
        self.old.contains(&diagnostic_start(&diagnostic.diagnostic))
    }

    /// Records in `history` what each completely analyzed file holds now, leaving out the
    /// introduced findings whose diagnostics were selected but not delivered (cut by the line
    /// cap, or no carrier), so the next wave still finds them new. A deleted file is forgotten;
    /// a file that was skipped for another reason, or a run that failed or was truncated, keeps
    /// its earlier history.
    pub(crate) fn remember(
        &self,
        analysis: &WaveAnalysis,
        history: &mut FindingHistory,
        undelivered: &HashSet<Start>,
    ) {
        for (run, (key, introduced)) in analysis.runs.iter().zip(&self.introduced) {
            for skipped in &run.snapshot.skipped {
                if skipped.reason == SkipReason::Vanished {
                    history.remove(key, &skipped.path);
                }
            }
            if run.snapshot.failure.is_some() || run.snapshot.omitted_findings > 0 {
                continue;
            }
            let pending: HashSet<&Start> = introduced
                .iter()
                .filter(|start| undelivered.contains(*start))
                .collect();
            let files = findings_by_path(&run.snapshot.findings);
            for path in analyzed(run) {
                let findings = files.get(path.as_str()).map_or(&[][..], Vec::as_slice);
                let now = findings
                    .iter()
                    .filter(|finding| !pending.contains(&finding_start(finding)))
                    .map(|finding| PriorFinding::from(*finding))
                    .collect();
                history.set(key, path, now);
            }
        }
    }
}

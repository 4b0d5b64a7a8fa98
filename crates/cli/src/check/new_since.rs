//! `check --new-since REV`: which findings of a check were not in their file at `REV`, with the
//! matching delivery uses ([`pi_native_hooks_delivery::introduced`]): a multiset per rule and
//! whitespace-normalised matched text, against the findings of the file's blob at `REV`
//! (analyzed in memory). A file absent at `REV` has only new findings; so has one whose blob
//! cannot be judged (over the size limit, binary, not UTF-8, not a file, unreadable), which is
//! named on stderr.

use pi_native_hooks_analysis::{AnalysisSnapshot, Analyzer};
use pi_native_hooks_delivery::{PriorFinding, Start, finding_start, findings_by_path, introduced};
use pi_native_hooks_workspace::{RevisionTree, WorkspaceError};
use std::collections::{BTreeSet, HashSet};
use std::path::Path;

/// The findings of a check that were already in their file at `REV`.
pub(crate) struct PresentAtRev {
    /// Their starts.
    pub(crate) old: HashSet<Start>,
    /// Files whose blob at `REV` could not be judged, with the reason.
    pub(crate) unjudged: Vec<(String, String)>,
}

/// Opens `rev` in the repository around `cwd`.
pub(crate) fn open(cwd: &Path, rev: &str) -> Result<RevisionTree, WorkspaceError> {
    RevisionTree::at(cwd, rev)
}

/// The files that differ between `rev` and `HEAD` (changed or added since), for a check
/// without paths: the branch's committed changes, to join with the worktree's.
pub(crate) fn committed_since(rev: &RevisionTree) -> Result<BTreeSet<String>, WorkspaceError> {
    let head = RevisionTree::head(rev.worktree_root())?;
    let then = rev.files()?;
    let now = head.files()?;
    Ok(now
        .into_iter()
        .filter(|(path, id)| then.get(path) != Some(id))
        .map(|(path, _)| path)
        .collect())
}

/// Compares each analyzed file's findings with those of its blob at `rev`.
pub(crate) fn present_at(
    rev: &RevisionTree,
    analyzer: &Analyzer,
    snapshot: &AnalysisSnapshot,
) -> PresentAtRev {
    let mut present = PresentAtRev {
        old: HashSet::new(),
        unjudged: Vec::new(),
    };
    for (path, findings) in findings_by_path(&snapshot.findings) {
        let blob = rev.read(path, analyzer.max_file_bytes());
        let judged = match blob.contents() {
            Ok(Some(bytes)) => analyzer
                .findings_in(path, bytes)
                .map(Some)
                .map_err(|reason| reason.to_string()),
            Ok(None) => Ok(None),
            Err(reason) => Err(reason.to_string()),
        };
        let before: Option<Vec<PriorFinding>> = match judged {
            Ok(then) => then.map(|then| then.iter().map(PriorFinding::from).collect()),
            Err(reason) => {
                present.unjudged.push((path.to_owned(), reason));
                None
            }
        };
        let flags = introduced(before.as_deref(), &findings);
        for (finding, new) in findings.iter().zip(flags) {
            if !new {
                present.old.insert(finding_start(finding));
            }
        }
    }
    present
}

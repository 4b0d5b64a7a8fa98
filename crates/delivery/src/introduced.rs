//! Owns which findings a wave introduced: a finding is introduced when the file held fewer
//! findings of the same rule with the same matched text (whitespace-normalised, as in
//! [`Finding::text_hash`]) before the wave than after it. The comparison is a multiset per
//! `(rule, text)`, so moving or re-indenting a finding keeps it old, and a second identical
//! finding in the same file is new.
//!
//! When a `(rule, text)` has more findings after than before, which ones are new is decided by
//! pairing: a finding on a line where the same finding sat before is old; the remaining ones are
//! paired with the remaining old ones from the end of the file backwards (an edit shifts what
//! follows it, not what precedes it), and those left unpaired — the topmost of the rest — are new.
//! Also [`FindingHistory`]: the findings each path held when it was last analyzed, the "before"
//! of the next wave.

use pi_native_hooks_analysis::PolicyDiagnostic;
use pi_native_hooks_analysis::{AnalyzerKey, Finding};
use pi_native_hooks_base::{RuleId, StoreUse};
use std::collections::{BTreeMap, HashMap};

/// A finding as remembered for the next comparison: its rule, the hash of its normalised text
/// and its zero-based line.
#[expect(missing_docs, reason = "`rule` names what it holds")]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PriorFinding {
    pub rule: RuleId,
    /// [`Finding::text_hash`]: the hash of the whitespace-normalised matched text.
    pub text: String,
    /// Zero-based line of the match's start.
    pub line: usize,
}

impl From<&Finding> for PriorFinding {
    fn from(finding: &Finding) -> Self {
        Self {
            rule: finding.rule.clone(),
            text: finding.text_hash.clone(),
            line: finding.range.start.line,
        }
    }
}

/// Where a finding or the diagnostic that reports it starts: path, rule, 1-based line and column.
/// The key that ties a policy's diagnostic back to the finding it sits on.
pub type Start = (String, RuleId, usize, usize);

/// The start of `finding`.
pub fn finding_start(finding: &Finding) -> Start {
    (
        finding.path.to_string(),
        finding.rule.clone(),
        finding.range.start.line + 1,
        finding.range.start.column + 1,
    )
}

/// The start of `diagnostic`: equal to [`finding_start`] of the finding it reports.
pub fn diagnostic_start(diagnostic: &PolicyDiagnostic) -> Start {
    (
        diagnostic.path.to_string(),
        diagnostic.rule.clone(),
        diagnostic.line,
        diagnostic.column,
    )
}

/// `findings` grouped by path, each group in the snapshot's (document) order.
pub fn findings_by_path(findings: &[Finding]) -> BTreeMap<&str, Vec<&Finding>> {
    let mut files: BTreeMap<&str, Vec<&Finding>> = BTreeMap::new();
    for finding in findings {
        files
            .entry(finding.path.as_str())
            .or_default()
            .push(finding);
    }
    files
}

/// For each of `after` (the findings of one file, in document order), whether it is introduced
/// relative to `before` (the same file's findings before the wave; `None`: there was no file, so
/// every finding is new).
pub fn introduced(before: Option<&[PriorFinding]>, after: &[&Finding]) -> Vec<bool> {
    let Some(before) = before else {
        return vec![true; after.len()];
    };
    let mut old_lines: HashMap<(&str, &str), Vec<usize>> = HashMap::new();
    for prior in before {
        old_lines
            .entry((prior.rule.as_str(), prior.text.as_str()))
            .or_default()
            .push(prior.line);
    }
    let mut by_key: HashMap<(&str, &str), Vec<usize>> = HashMap::new();
    for (index, finding) in after.iter().enumerate() {
        by_key
            .entry((finding.rule.as_str(), finding.text_hash.as_str()))
            .or_default()
            .push(index);
    }
    let mut new = vec![false; after.len()];
    for (key, mut indexes) in by_key {
        let mut lines = old_lines.remove(&key).unwrap_or_default();
        if indexes.len() <= lines.len() {
            continue;
        }
        indexes.sort_by_key(|&i| (after[i].range.start, i));
        // Same line, same finding: old.
        let mut unpaired = Vec::new();
        for index in indexes {
            let line = after[index].range.start.line;
            match lines.iter().position(|&l| l == line) {
                Some(at) => {
                    lines.swap_remove(at);
                }
                None => unpaired.push(index),
            }
        }
        // The rest pair with the remaining old ones from the end of the file backwards.
        let old = lines.len().min(unpaired.len());
        for &index in &unpaired[..unpaired.len() - old] {
            new[index] = true;
        }
    }
    new
}

/// How many paths the history remembers before it starts over.
const HISTORY_CAPACITY: usize = 16_384;

/// The findings each path held when an analyzer last analyzed it completely, per analyzer key.
#[derive(Debug, Default)]
pub struct FindingHistory {
    by_path: HashMap<(AnalyzerKey, String), Vec<PriorFinding>>,
    /// Paths forgotten when the history started over.
    forgotten: u64,
}

impl FindingHistory {
    /// An empty history.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many paths it remembers, of how many, and how many it forgot by starting over.
    pub fn usage(&self) -> StoreUse {
        StoreUse {
            held: self.by_path.len(),
            capacity: HISTORY_CAPACITY,
            dropped: self.forgotten,
        }
    }

    /// What `analyzer` last found in `path`, if it analyzed it completely before.
    pub fn get(&self, analyzer: &AnalyzerKey, path: &str) -> Option<&[PriorFinding]> {
        self.by_path
            .get(&(analyzer.clone(), path.to_owned()))
            .map(Vec::as_slice)
    }

    /// Remembers what `analyzer` found in `path`. When full, the history starts over: the next
    /// wave on a forgotten path compares against its `HEAD` blob again.
    pub fn set(&mut self, analyzer: &AnalyzerKey, path: &str, findings: Vec<PriorFinding>) {
        let key = (analyzer.clone(), path.to_owned());
        if self.by_path.len() >= HISTORY_CAPACITY && !self.by_path.contains_key(&key) {
            self.forgotten += self.by_path.len() as u64;
            self.by_path.clear();
        }
        self.by_path.insert(key, findings);
    }

    /// Forgets `path` for `analyzer` (it was deleted).
    pub fn remove(&mut self, analyzer: &AnalyzerKey, path: &str) {
        self.by_path.remove(&(analyzer.clone(), path.to_owned()));
    }

    /// How many paths are remembered.
    pub fn len(&self) -> usize {
        self.by_path.len()
    }

    /// True when nothing is remembered.
    pub fn is_empty(&self) -> bool {
        self.by_path.is_empty()
    }
}

#[cfg(test)]
mod tests {
    //! Introduced findings: a multiset per rule and normalised text, paired by line then from the
    //! end of the file.

    use super::*;
    use pi_native_hooks_analysis::{Position, Severity, SourceRange};

    fn finding(rule: &str, text: &str, line: usize) -> Finding {
        Finding {
            rule: rule.into(),
            severity: Severity::Warning,
            message: "m".into(),
            note: None,
            path: "a.ts".into(),
            range: SourceRange {
                start: Position { line, column: 0 },
                end: Position { line, column: 3 },
            },
            text_hash: text.into(),
            fix: None,
        }
    }

    fn prior(findings: &[Finding]) -> Vec<PriorFinding> {
        findings.iter().map(PriorFinding::from).collect()
    }

    fn new_lines(before: Option<&[PriorFinding]>, after: &[Finding]) -> Vec<usize> {
        let refs: Vec<&Finding> = after.iter().collect();
        introduced(before, &refs)
            .into_iter()
            .zip(after)
            .filter(|(new, _)| *new)
            .map(|(_, f)| f.range.start.line)
            .collect()
    }

    #[test]
    fn without_a_before_everything_is_new() {
        let after = [finding("r", "x", 1), finding("r", "x", 2)];
        assert_eq!(new_lines(None, &after), [1, 2]);
        assert_eq!(new_lines(Some(&[]), &after), [1, 2]);
    }

    #[test]
    fn moved_findings_stay_old_and_other_rules_or_texts_are_new() {
        let before = prior(&[finding("r", "x", 10), finding("r", "y", 20)]);
        let after = [
            finding("r", "x", 14),
            finding("r", "y", 24),
            finding("q", "x", 3),
            finding("r", "z", 5),
        ];
        assert_eq!(new_lines(Some(&before), &after), [3, 5]);
    }

    #[test]
    fn a_multiset_delivers_only_the_extra_one_and_pairs_from_the_end() {
        let before = prior(&[finding("r", "x", 10), finding("r", "x", 50)]);
        // One inserted in the middle, everything below shifted by one line.
        let middle = [
            finding("r", "x", 10),
            finding("r", "x", 30),
            finding("r", "x", 51),
        ];
        assert_eq!(new_lines(Some(&before), &middle), [30]);
        // One inserted at the top, everything shifted.
        let top = [
            finding("r", "x", 2),
            finding("r", "x", 11),
            finding("r", "x", 51),
        ];
        assert_eq!(new_lines(Some(&before), &top), [2]);
        // One appended at the end.
        let end = [
            finding("r", "x", 10),
            finding("r", "x", 50),
            finding("r", "x", 70),
        ];
        assert_eq!(new_lines(Some(&before), &end), [70]);
        // Fewer than before: nothing new.
        assert!(new_lines(Some(&before), &[finding("r", "x", 3)]).is_empty());
    }

    #[test]
    fn the_history_is_per_analyzer_and_path() {
        let mut history = FindingHistory::new();
        history.set(&"a".into(), "x.ts", prior(&[finding("r", "x", 1)]));
        assert_eq!(history.get(&"a".into(), "x.ts").map(<[_]>::len), Some(1));
        assert!(history.get(&"b".into(), "x.ts").is_none());
        history.remove(&"a".into(), "x.ts");
        assert!(history.is_empty());
    }
}

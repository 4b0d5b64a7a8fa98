//! Owns what was delivered, per file: the fingerprints already shown to the model for the current
//! content of each path. Only new or changed diagnostics are selected; a diagnostic that a
//! complete analysis of its file no longer reports is forgotten (resolved); a file that no wave
//! analyzes keeps its memory, so an unrelated wave never repeats it.
//!
//! Fingerprints hash the matched text and its range, so they are a function of the file's
//! content: remembering fingerprints per path is remembering what was delivered per content.

use super::fingerprint::{Fingerprint, KeyedDiagnostic};
use pi_native_hooks_base::PolicyId;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Which policies' results are complete for which paths in one wave: the analysis of the path
/// ran without failure, skip or truncation, and the policy did not fail. Only covered
/// `(path, policy)` pairs may resolve remembered diagnostics.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Coverage(BTreeMap<String, BTreeSet<PolicyId>>);

impl Coverage {
    /// Records that `policy`'s result for `path` is complete.
    pub fn add(&mut self, path: &str, policy: &str) {
        self.0
            .entry(path.to_owned())
            .or_default()
            .insert(policy.into());
    }

    /// The policies whose result for `path` is complete.
    pub fn policies(&self, path: &str) -> Option<&BTreeSet<PolicyId>> {
        self.0.get(path)
    }

    /// Every covered path with its policies.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &BTreeSet<PolicyId>)> {
        self.0.iter()
    }
}

/// Everything the policies reported in one wave, and how complete it is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WaveDiagnostics {
    /// Current diagnostics of the analyzed paths, sorted, one per fingerprint.
    pub diagnostics: Vec<KeyedDiagnostic>,
    /// Which `(path, policy)` results are complete.
    pub coverage: Coverage,
}

impl WaveDiagnostics {
    /// Sorts `diagnostics` by path and position and keeps one per fingerprint.
    pub fn new(mut diagnostics: Vec<KeyedDiagnostic>, coverage: Coverage) -> Self {
        diagnostics.sort_by(|a, b| {
            a.diagnostic
                .cmp(&b.diagnostic)
                .then(a.fingerprint.cmp(&b.fingerprint))
        });
        let mut seen = BTreeSet::new();
        diagnostics.retain(|d| seen.insert(d.fingerprint));
        Self {
            diagnostics,
            coverage,
        }
    }
}

/// The diagnostics of a wave that were not delivered before.
#[derive(Debug, Default)]
pub struct Selection<'a> {
    /// New or changed diagnostics, in order.
    pub fresh: Vec<&'a KeyedDiagnostic>,
    /// Current diagnostics left out because they were delivered before.
    pub known: usize,
}

/// The fingerprints delivered per path, with the policy that produced each.
#[derive(Debug, Default)]
pub struct DeliveryMemory {
    by_path: HashMap<String, BTreeMap<Fingerprint, PolicyId>>,
}

impl DeliveryMemory {
    /// An empty memory.
    pub fn new() -> Self {
        Self::default()
    }

    /// The diagnostics of `wave` that were never delivered for their path.
    pub fn select<'a>(&self, wave: &'a WaveDiagnostics) -> Selection<'a> {
        let mut selection = Selection::default();
        for keyed in &wave.diagnostics {
            let known = self
                .by_path
                .get(&keyed.diagnostic.path)
                .is_some_and(|delivered| delivered.contains_key(&keyed.fingerprint));
            if known {
                selection.known += 1;
            } else {
                selection.fresh.push(keyed);
            }
        }
        selection
    }

    /// Updates the memory after a wave: forgets the remembered diagnostics that a complete result
    /// no longer reports, then remembers `delivered` (what actually reached the model; diagnostics
    /// that were cut or had no carrier stay new). Returns how many were resolved.
    pub fn settle<'a>(
        &mut self,
        wave: &WaveDiagnostics,
        delivered: impl IntoIterator<Item = &'a KeyedDiagnostic>,
    ) -> usize {
        let current: BTreeSet<Fingerprint> =
            wave.diagnostics.iter().map(|d| d.fingerprint).collect();
        let mut resolved = 0;
        for (path, policies) in wave.coverage.iter() {
            let Some(remembered) = self.by_path.get_mut(path) else {
                continue;
            };
            let before = remembered.len();
            remembered.retain(|fingerprint, policy| {
                !policies.contains(policy) || current.contains(fingerprint)
            });
            resolved += before - remembered.len();
            if remembered.is_empty() {
                self.by_path.remove(path);
            }
        }
        for keyed in delivered {
            self.by_path
                .entry(keyed.diagnostic.path.clone())
                .or_default()
                .insert(keyed.fingerprint, keyed.diagnostic.policy.clone());
        }
        resolved
    }

    /// How many delivered diagnostics are remembered for `path`.
    pub fn remembered(&self, path: &str) -> usize {
        self.by_path.get(path).map_or(0, BTreeMap::len)
    }

    /// How many delivered diagnostics are remembered in total.
    pub fn len(&self) -> usize {
        self.by_path.values().map(BTreeMap::len).sum()
    }

    /// True when nothing is remembered.
    pub fn is_empty(&self) -> bool {
        self.by_path.is_empty()
    }
}

#[cfg(test)]
mod tests {
    //! The delivery memory: new or changed diagnostics only, resolved ones forgotten, incomplete
    //! results never resolving anything, unrelated files untouched.

    use super::*;
    use crate::test_support::diagnostic;

    fn keyed(policy: &str, path: &str, line: usize, text: &str) -> KeyedDiagnostic {
        let d = diagnostic(policy, path, line, "m");
        KeyedDiagnostic {
            fingerprint: Fingerprint::of(&d, text),
            diagnostic: d,
        }
    }

    fn wave(diagnostics: Vec<KeyedDiagnostic>, covered: &[(&str, &str)]) -> WaveDiagnostics {
        let mut coverage = Coverage::default();
        for (path, policy) in covered {
            coverage.add(path, policy);
        }
        WaveDiagnostics::new(diagnostics, coverage)
    }

    #[test]
    fn only_new_diagnostics_are_selected_and_fixed_ones_are_forgotten() {
        let mut memory = DeliveryMemory::new();
        let first = wave(
            vec![keyed("p", "a.ts", 1, "x"), keyed("p", "a.ts", 2, "y")],
            &[("a.ts", "p")],
        );
        let selection = memory.select(&first);
        assert_eq!((selection.fresh.len(), selection.known), (2, 0));
        assert_eq!(memory.settle(&first, selection.fresh.clone()), 0);
        assert_eq!(memory.remembered("a.ts"), 2);

        // Line 2 fixed, line 1 unchanged, line 3 new.
        let second = wave(
            vec![keyed("p", "a.ts", 1, "x"), keyed("p", "a.ts", 3, "z")],
            &[("a.ts", "p")],
        );
        let selection = memory.select(&second);
        assert_eq!(selection.known, 1);
        assert_eq!(
            selection
                .fresh
                .iter()
                .map(|k| k.diagnostic.line)
                .collect::<Vec<_>>(),
            [3]
        );
        assert_eq!(memory.settle(&second, selection.fresh.clone()), 1);
        assert_eq!(memory.remembered("a.ts"), 2);

        // The file deleted (analyzed, nothing found): everything resolved.
        let gone = wave(vec![], &[("a.ts", "p")]);
        assert_eq!(memory.settle(&gone, []), 2);
        assert!(memory.is_empty());
    }

    #[test]
    fn incomplete_results_and_unrelated_files_resolve_nothing() {
        let mut memory = DeliveryMemory::new();
        let first = wave(
            vec![
                keyed("p", "a.ts", 1, "x"),
                keyed("q", "a.ts", 1, "x"),
                keyed("p", "b.ts", 1, "x"),
            ],
            &[("a.ts", "p"), ("a.ts", "q"), ("b.ts", "p")],
        );
        let all: Vec<_> = first.diagnostics.iter().collect();
        memory.settle(&first, all);
        assert_eq!(memory.len(), 3);

        // Policy q failed on a.ts (not covered); b.ts was not analyzed at all.
        let partial = wave(vec![], &[("a.ts", "p")]);
        assert_eq!(
            memory.settle(&partial, []),
            1,
            "only p's diagnostic on a.ts"
        );
        assert_eq!(
            (memory.remembered("a.ts"), memory.remembered("b.ts")),
            (1, 1)
        );

        // An undelivered (cut or carrier-less) diagnostic stays new.
        let next = wave(vec![keyed("p", "c.ts", 1, "x")], &[("c.ts", "p")]);
        memory.settle(&next, []);
        assert_eq!(memory.select(&next).fresh.len(), 1);
    }

    #[test]
    fn wave_diagnostics_are_sorted_and_unique_per_fingerprint() {
        let a = keyed("p", "b.ts", 1, "x");
        let b = keyed("p", "a.ts", 9, "x");
        let w = wave(vec![a.clone(), b.clone(), a.clone()], &[]);
        assert_eq!(w.diagnostics, [b, a]);
    }
}

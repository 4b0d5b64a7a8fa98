//! Owns what was delivered, per file: the fingerprints already shown to the model for the current
//! content of each path. Only new or changed diagnostics are selected; a diagnostic that a
//! complete analysis of its file no longer reports is forgotten (resolved); a file that no wave
//! analyzes keeps its memory, so an unrelated wave never repeats it.
//!
//! Fingerprints hash the matched text and its range, so they are a function of the file's
//! content: remembering fingerprints per path is remembering what was delivered per content.
//!
//! The memory is bounded ([`DELIVERY_MEMORY_CAPACITY`] diagnostics): past it, the paths a wave
//! touched longest ago are forgotten first. Forgetting only ever repeats a diagnostic (it is new
//! again the next time its file is analyzed), never hides one.

use super::fingerprint::{Fingerprint, KeyedDiagnostic};
use pi_native_hooks_base::{PolicyId, StoreUse};
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

/// How many delivered diagnostics the memory keeps before it forgets the paths touched longest ago.
pub const DELIVERY_MEMORY_CAPACITY: usize = 16_384;

/// The diagnostics delivered for one path, and when a wave last touched it.
#[derive(Debug, Default)]
struct Remembered {
    delivered: BTreeMap<Fingerprint, PolicyId>,
    touched: u64,
}

/// The fingerprints delivered per path, with the policy that produced each.
#[derive(Debug)]
pub struct DeliveryMemory {
    by_path: HashMap<String, Remembered>,
    /// Diagnostics remembered over all paths.
    held: usize,
    capacity: usize,
    /// Counts the settles, to order the paths by when they were last touched.
    tick: u64,
    forgotten: u64,
}

impl Default for DeliveryMemory {
    fn default() -> Self {
        Self::with_capacity(DELIVERY_MEMORY_CAPACITY)
    }
}

impl DeliveryMemory {
    /// An empty memory.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty memory that keeps at most `capacity` diagnostics.
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            by_path: HashMap::new(),
            held: 0,
            capacity,
            tick: 0,
            forgotten: 0,
        }
    }

    /// How many diagnostics it remembers, of how many, and how many it forgot.
    pub fn usage(&self) -> StoreUse {
        StoreUse {
            held: self.held,
            capacity: self.capacity,
            dropped: self.forgotten,
        }
    }

    /// The diagnostics of `wave` that were never delivered for their path.
    pub fn select<'a>(&self, wave: &'a WaveDiagnostics) -> Selection<'a> {
        let mut selection = Selection::default();
        for keyed in &wave.diagnostics {
            let known = self
                .by_path
                .get(keyed.diagnostic.path.as_str())
                .is_some_and(|remembered| remembered.delivered.contains_key(&keyed.fingerprint));
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
        self.tick += 1;
        let mut resolved = 0;
        for (path, policies) in wave.coverage.iter() {
            let Some(remembered) = self.by_path.get_mut(path) else {
                continue;
            };
            let before = remembered.delivered.len();
            remembered.delivered.retain(|fingerprint, policy| {
                !policies.contains(policy) || current.contains(fingerprint)
            });
            remembered.touched = self.tick;
            resolved += before - remembered.delivered.len();
            if remembered.delivered.is_empty() {
                self.by_path.remove(path);
            }
        }
        self.held -= resolved;
        for keyed in delivered {
            let remembered = self
                .by_path
                .entry(keyed.diagnostic.path.to_string())
                .or_default();
            remembered.touched = self.tick;
            let new = remembered
                .delivered
                .insert(keyed.fingerprint, keyed.diagnostic.policy.clone())
                .is_none();
            self.held += usize::from(new);
        }
        self.forget_oldest();
        resolved
    }

    /// Forgets whole paths, the least recently touched first, until the memory is within its
    /// capacity. The paths this wave touched go last; one that alone exceeds the capacity goes
    /// too, and its diagnostics are delivered again the next time it is analyzed.
    fn forget_oldest(&mut self) {
        while self.held > self.capacity {
            let Some(oldest) = self
                .by_path
                .iter()
                .min_by_key(|(path, remembered)| {
                    (
                        remembered.touched,
                        remembered.delivered.len(),
                        path.as_str(),
                    )
                })
                .map(|(path, _)| path.clone())
            else {
                return;
            };
            if let Some(forgotten) = self.by_path.remove(&oldest) {
                let count = forgotten.delivered.len();
                self.held -= count;
                self.forgotten += count as u64;
            }
        }
    }

    /// How many delivered diagnostics are remembered for `path`.
    pub fn remembered(&self, path: &str) -> usize {
        self.by_path
            .get(path)
            .map_or(0, |remembered| remembered.delivered.len())
    }

    /// How many delivered diagnostics are remembered in total.
    pub fn len(&self) -> usize {
        self.held
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
    fn past_its_capacity_it_forgets_the_path_touched_longest_ago_which_is_delivered_again() {
        let mut memory = DeliveryMemory::with_capacity(3);
        let a = wave(
            vec![keyed("p", "a.ts", 1, "x"), keyed("p", "a.ts", 2, "y")],
            &[("a.ts", "p")],
        );
        let selection = memory.select(&a);
        memory.settle(&a, selection.fresh.clone());
        let b = wave(vec![keyed("p", "b.ts", 1, "x")], &[("b.ts", "p")]);
        let selection = memory.select(&b);
        memory.settle(&b, selection.fresh.clone());
        assert_eq!(
            memory.usage(),
            StoreUse {
                held: 3,
                capacity: 3,
                dropped: 0
            }
        );

        // A fourth diagnostic: a.ts, touched longest ago, is forgotten as a whole.
        let c = wave(vec![keyed("p", "c.ts", 1, "x")], &[("c.ts", "p")]);
        let selection = memory.select(&c);
        memory.settle(&c, selection.fresh.clone());
        assert_eq!(
            memory.usage(),
            StoreUse {
                held: 2,
                capacity: 3,
                dropped: 2
            }
        );
        assert_eq!(
            (
                memory.remembered("a.ts"),
                memory.remembered("b.ts"),
                memory.remembered("c.ts")
            ),
            (0, 1, 1)
        );

        // Its findings, still there, are new again: repeated, never hidden.
        let again = memory.select(&a);
        assert_eq!((again.fresh.len(), again.known), (2, 0));
        // Those of b.ts, remembered, are not.
        assert_eq!(memory.select(&b).known, 1);
    }

    #[test]
    fn a_block_larger_than_the_capacity_forgets_the_older_paths_first() {
        let mut memory = DeliveryMemory::with_capacity(2);
        let old = wave(vec![keyed("p", "old.ts", 1, "x")], &[("old.ts", "p")]);
        let selection = memory.select(&old);
        memory.settle(&old, selection.fresh.clone());
        let big = wave(
            vec![
                keyed("p", "big.ts", 1, "x"),
                keyed("p", "big.ts", 2, "y"),
                keyed("p", "big.ts", 3, "z"),
            ],
            &[("big.ts", "p")],
        );
        let selection = memory.select(&big);
        memory.settle(&big, selection.fresh.clone());
        // old.ts goes first; big.ts alone still exceeds the capacity, so it goes too: nothing is
        // remembered past the bound, and everything is delivered again.
        assert_eq!(
            memory.usage(),
            StoreUse {
                held: 0,
                capacity: 2,
                dropped: 4
            }
        );
        assert_eq!(memory.select(&big).fresh.len(), 3);
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

//! The tree cache: per analyzed file, the last source text, its syntax tree and its findings
//! keyed by the node each came from, so the next version of the file can be re-parsed and
//! re-matched incrementally ([`crate::incremental`]). Bounded by a byte budget with
//! least-recently-used eviction. Keyed by repository-relative path; valid for one
//! [`RuleSet`](super::RuleSet) (an [`Analyzer`](super::Analyzer) owns one tree cache and one rule
//! set, so a different rule set never meets these trees).

use crate::matcher::KeyedFinding;
use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_core::{AstGrep, Doc};
use ast_grep_language::SupportLang;
use pi_native_hooks_base::ContentHash;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// The default byte budget of the held trees: 64 MiB, about 165 files of 11 KB with their trees
/// (a held file costs about 35 times its source: see docs/performance.md).
pub const DEFAULT_TREE_CACHE_BYTES: u64 = 64 * 1024 * 1024;

/// The largest byte budget a setting may ask for: 1 GiB.
pub const MAX_TREE_CACHE_BYTES: u64 = 1024 * 1024 * 1024;

/// Estimated heap bytes of one syntax-tree node, charged to the budget per node of a held tree
/// (tree-sitter does not report a tree's size): about 96 bytes per node in the heap measured over
/// the generated corpus (`cargo run --release -p pi-native-hooks-benches --example tree_memory`).
pub(crate) const TREE_BYTES_PER_NODE: usize = 96;

pub(crate) struct HeldFile {
    /// The hash of `root`'s source.
    pub(crate) content: ContentHash,
    /// The source and its syntax tree.
    pub(crate) root: AstGrep<StrDoc<SupportLang>>,
    /// The matches of the source with their nodes, before its suppression comments are applied.
    pub(crate) keyed: Arc<[KeyedFinding]>,
}

impl HeldFile {
    /// What the file is charged against the budget: its source, its tree (nodes times
    /// [`TREE_BYTES_PER_NODE`]) and its keyed findings.
    pub(crate) fn charge(&self) -> u64 {
        let doc = self.root.root().get_doc();
        let source = doc.get_source().len();
        let nodes = doc.tree.root_node().descendant_count();
        let findings: usize = self
            .keyed
            .iter()
            .map(|k| size_of::<KeyedFinding>() + k.finding.message.len())
            .sum();
        (source + nodes * TREE_BYTES_PER_NODE + findings) as u64
    }
}

struct Slot {
    file: HeldFile,
    charge: u64,
    tick: u64,
}

/// How much the tree cache holds, and how the last analyses used it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct TreeCacheStats {
    /// Files whose tree is held.
    pub held_files: usize,
    /// Bytes charged for them (source, estimated tree, findings).
    pub held_bytes: u64,
    /// The requested budget, capped at [`MAX_TREE_CACHE_BYTES`].
    pub budget_bytes: u64,
    /// Files evicted to stay within the budget, since the analyzer started.
    pub evictions: u64,
    /// Files analyzed in full (parsed from scratch, every rule matched on every node).
    pub full_analyses: u64,
    /// Files re-parsed from their held tree and matched only where the edit can have changed a
    /// match.
    pub incremental_analyses: u64,
}

/// Held files by path, least recently used evicted first.
pub(crate) struct TreeCache {
    slots: HashMap<String, Slot>,
    order: BTreeMap<u64, String>,
    next_tick: u64,
    held_bytes: u64,
    budget: u64,
    evictions: u64,
}

impl TreeCache {
    /// An empty cache holding at most `budget` bytes (0 holds nothing).
    pub(crate) fn new(budget: u64) -> Self {
        Self {
            slots: HashMap::new(),
            order: BTreeMap::new(),
            next_tick: 0,
            held_bytes: 0,
            budget: budget.min(MAX_TREE_CACHE_BYTES),
            evictions: 0,
        }
    }

    /// Takes `path`'s held file out of the cache (it is put back by [`insert`](Self::insert)
    /// once analyzed, or dropped when the file can no longer be analyzed).
    pub(crate) fn take(&mut self, path: &str) -> Option<HeldFile> {
        let slot = self.slots.remove(path)?;
        self.order.remove(&slot.tick);
        self.held_bytes -= slot.charge;
        Some(slot.file)
    }

    /// False when [`insert`](Self::insert) would not hold `file` whatever it evicted: the budget
    /// is 0, or smaller than the file.
    pub(crate) fn could_hold(&self, file: &HeldFile) -> bool {
        self.budget > 0 && file.charge() <= self.budget
    }

    /// Holds `file` for `path` as the most recently used, evicting the least recently used
    /// files until the budget holds. A file larger than the whole budget is not held.
    pub(crate) fn insert(&mut self, path: String, file: HeldFile) {
        self.take(&path);
        if !self.could_hold(&file) {
            return;
        }
        let charge = file.charge();
        while self.held_bytes + charge > self.budget {
            let Some((_, oldest)) = self.order.pop_first() else {
                break;
            };
            if let Some(slot) = self.slots.remove(&oldest) {
                self.held_bytes -= slot.charge;
                self.evictions += 1;
            }
        }
        let tick = self.next_tick;
        self.next_tick += 1;
        self.order.insert(tick, path.clone());
        self.held_bytes += charge;
        self.slots.insert(path, Slot { file, charge, tick });
    }

    /// The sizes, without the analysis counters.
    pub(crate) fn stats(&self) -> TreeCacheStats {
        TreeCacheStats {
            held_files: self.slots.len(),
            held_bytes: self.held_bytes,
            budget_bytes: self.budget,
            evictions: self.evictions,
            ..TreeCacheStats::default()
        }
    }
}

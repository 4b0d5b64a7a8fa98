//! The content cache: a file whose bytes did not change since the last analysis is not parsed
//! again. Keyed by repository-relative path; valid for one [`RuleSet`](super::RuleSet) (an
//! [`Analyzer`](super::Analyzer) owns one cache and one rule set).

pub(crate) mod tree_cache;

use crate::snapshot::finding::Finding;
use pi_native_hooks_base::ContentHash;
use std::collections::HashMap;
use std::sync::Arc;

/// How many paths the cache remembers before it starts over.
const DEFAULT_CAPACITY: usize = 16_384;

struct Entry {
    content: ContentHash,
    findings: Arc<[Finding]>,
}

/// Findings per path, valid while the file's content hash is unchanged.
pub(crate) struct ScanCache {
    entries: HashMap<String, Entry>,
    capacity: usize,
}

impl Default for ScanCache {
    fn default() -> Self {
        Self {
            entries: HashMap::new(),
            capacity: DEFAULT_CAPACITY,
        }
    }
}

impl ScanCache {
    /// The cached findings of `path` if its content hash is still `content`.
    pub(crate) fn get(&self, path: &str, content: ContentHash) -> Option<Arc<[Finding]>> {
        self.entries
            .get(path)
            .filter(|e| e.content == content)
            .map(|e| Arc::clone(&e.findings))
    }

    /// A cache that remembers nothing: for a scan that analyzes each file once.
    pub(crate) fn disabled() -> Self {
        Self {
            entries: HashMap::new(),
            capacity: 0,
        }
    }

    /// Remembers the findings of `path` at `content`. When full, the cache starts over: a
    /// long session touching many files re-parses at most once per file after that.
    pub(crate) fn insert(&mut self, path: String, content: ContentHash, findings: Arc<[Finding]>) {
        if self.capacity == 0 {
            return;
        }
        if self.entries.len() >= self.capacity && !self.entries.contains_key(&path) {
            self.entries.clear();
        }
        self.entries.insert(path, Entry { content, findings });
    }

    /// Forgets `path` (it vanished or can no longer be analyzed).
    pub(crate) fn remove(&mut self, path: &str) {
        self.entries.remove(path);
    }
}

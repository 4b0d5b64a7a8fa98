//! Owns what the analyzer keeps between waves: each file's last answer (valid while its server's
//! generation is unchanged), what the servers were last told of each unopened file's disk
//! content, the "before" of every file of the last wave, and the files whose check is pending
//! from an earlier wave (changed files with the text they held before it, dependents with their
//! "before"). Everything per file is bounded: what is forgotten is asked or told again.

use pi_native_hooks_analysis::Finding;
use pi_native_hooks_base::{BoundedMap, ContentHash};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A file's last answer, valid while its server's generation is unchanged.
pub(super) struct Answer {
    /// The project whose server gave it.
    pub(super) config: PathBuf,
    pub(super) generation: u64,
    pub(super) findings: Vec<Finding>,
}

/// What the analyzer keeps between waves.
pub(super) struct Memory {
    /// Bounded: a file whose answer was forgotten is asked again.
    pub(super) answers: BoundedMap<String, Answer>,
    /// The hash of each unopened file as last read from disk (what the server was last told).
    /// Bounded: a file forgotten here is told to the server as changed again.
    pub(super) disk_seen: BoundedMap<String, ContentHash>,
    /// The "before" of every file of the last wave.
    pub(super) before: HashMap<String, Option<Vec<Finding>>>,
    /// Changed files whose check is pending, with the text they held before their wave.
    pub(super) carried_changed: BTreeMap<String, Option<Arc<str>>>,
    /// Dependents whose check is pending, with their "before".
    pub(super) carried_dependents: BTreeMap<String, Option<Vec<Finding>>>,
}

impl Memory {
    /// Empty, remembering at most `files` answers and disk contents.
    pub(super) fn new(files: usize) -> Self {
        Self {
            answers: BoundedMap::new(files),
            disk_seen: BoundedMap::new(files),
            before: HashMap::new(),
            carried_changed: BTreeMap::new(),
            carried_dependents: BTreeMap::new(),
        }
    }

    /// Forgets the answers of `config`'s server: it went away, and a new one counts its
    /// generations afresh.
    pub(super) fn forget_server(&mut self, config: &Path) {
        self.answers.retain(|_, answer| answer.config != config);
    }

    /// Files whose check is pending from an earlier wave.
    pub(super) fn pending(&self) -> usize {
        self.carried_changed.len() + self.carried_dependents.len()
    }
}

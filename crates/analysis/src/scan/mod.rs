//! Scanning one wave: each changed TS/TSX file read and hashed once and served from the content
//! cache when unchanged; otherwise analyzed by [`crate::incremental`] (re-parsed from its held
//! tree when it can, parsed once otherwise) and matched by [`crate::matcher`] (suppression
//! comments honoured, unused ones reported as hints); findings collected into an immutable
//! [`AnalysisSnapshot`]. [`Analyzer::findings_in`] matches another revision of a file with the
//! same matcher, without touching the caches.
//!
//! Files are opened through [`Beneath`]: a path is resolved inside the repository root, a symlink
//! is followed only while it stays inside the root, and only a regular file is ever opened (never
//! blocking). Like the ast-grep CLI with a file named on its command line, a symlink to a regular
//! file is analyzed under the link's own name; unlike it, a link leaving the repository is not
//! (reported as [`SkipReason::SymlinkOutsideRepository`]). FIFOs, sockets, devices and
//! directories are reported as [`SkipReason::NotRegular`].

mod read;
pub use read::regular_beneath as read_repo_file;

use crate::rules::language_of;

use crate::cache::ScanCache;
use crate::cache::tree_cache::{DEFAULT_TREE_CACHE_BYTES, HeldFile, TreeCache, TreeCacheStats};
use crate::incremental::{self, EditHint, Mode, RuleReach, Version};
use crate::matcher::{Content, FileRules};
use crate::rules::RuleSet;
use crate::snapshot::finding::Finding;
use crate::snapshot::{AnalysisSnapshot, ScanFailure, ScanPanic, SkipReason, SkippedFile};
use ast_grep_core::tree_sitter::LanguageExt;
use pi_native_hooks_base::safe_open::Beneath;
use pi_native_hooks_base::{ContentHash, panic_message};
use pi_native_hooks_config::AnalyzerKey;
use rayon::prelude::*;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

/// Bounds on one analysis; whatever they cut is visible in the snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScanLimits {
    /// Files larger than this are skipped as [`SkipReason::TooLarge`].
    pub max_file_bytes: u64,
    /// At most this many files are analyzed per wave; the rest are [`SkipReason::TooManyFiles`].
    pub max_files: usize,
    /// At most this many findings are kept; the rest are counted in `omitted_findings`.
    pub max_findings: usize,
}

impl Default for ScanLimits {
    /// The bounds of one Pi wave: 1 MiB per file, 500 files, 1,000 findings.
    fn default() -> Self {
        Self {
            max_file_bytes: 1024 * 1024,
            max_files: 500,
            max_findings: 1_000,
        }
    }
}

impl ScanLimits {
    /// No bound on files, findings or bytes per file: what `check` uses unless a limit is given
    /// as a flag, so that it analyzes every file it was asked about. A binary file is still
    /// recognised at its first NUL byte without reading the rest.
    pub fn unlimited() -> Self {
        Self {
            max_file_bytes: u64::MAX,
            max_files: usize::MAX,
            max_findings: usize::MAX,
        }
    }
}

/// The analyzer could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum AnalyzerError {
    /// The worker threads could not be started.
    #[error("cannot start {threads} analysis threads: {message}")]
    Threads {
        /// Requested thread count.
        threads: usize,
        /// The error from the thread pool.
        message: String,
    },
}

/// A long-lived analyzer: one rule set, its content cache and its worker threads.
pub struct Analyzer {
    key: AnalyzerKey,
    rules: Arc<RuleSet>,
    limits: ScanLimits,
    pool: Option<rayon::ThreadPool>,
    cache: ScanCache,
    /// Held trees for incremental re-analysis, and the reach of each rule.
    trees: TreeCache,
    reach: RuleReach,
    /// Edit hints for the next scan, by path.
    hints: std::collections::HashMap<String, EditHint>,
    full_analyses: u64,
    incremental_analyses: u64,
}

/// Where a file's bytes come from.
enum Input {
    /// Read `<root>/<path>` from disk.
    Disk,
    Memory(Vec<u8>),
}

/// One file after reading and the cache lookup.
enum Source {
    Text {
        content: ContentHash,
        text: String,
    },
    Cached {
        content: ContentHash,
        findings: Arc<[Finding]>,
    },
    Skipped(SkipReason),
}

/// How many files a scan analyzes before it folds their outcomes into the snapshot: enough that
/// the pool's workers rarely wait for the chunk's last file, few enough that the outcomes of a
/// large `check` never pile up.
const SCAN_CHUNK: usize = 512;

/// One file's outcome.
enum Outcome {
    Analyzed {
        content: ContentHash,
        findings: Arc<[Finding]>,
        cached: bool,
        held: Option<HeldFile>,
        mode: Option<Mode>,
    },
    Skipped(SkipReason),
    Panicked(String),
}

impl Analyzer {
    /// An analyzer named `key` (e.g. `ast-grep:personal`) over `rules`. With `threads > 1` files
    /// are analyzed in parallel on a dedicated pool (a wave of one file stays on the calling
    /// thread); with 0 or 1, on the calling thread.
    pub fn new(
        key: impl Into<AnalyzerKey>,
        rules: Arc<RuleSet>,
        limits: ScanLimits,
        threads: usize,
    ) -> Result<Self, AnalyzerError> {
        let pool = if threads > 1 {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .thread_name(|i| format!("pi-native-hooks-scan-{i}"))
                .build()
                .map_err(|error| AnalyzerError::Threads {
                    threads,
                    message: error.to_string(),
                })?;
            Some(pool)
        } else {
            None
        };
        Ok(Self {
            key: key.into(),
            reach: RuleReach::of(&rules),
            rules,
            limits,
            pool,
            cache: ScanCache::default(),
            trees: TreeCache::new(DEFAULT_TREE_CACHE_BYTES),
            hints: std::collections::HashMap::new(),
            full_analyses: 0,
            incremental_analyses: 0,
        })
    }

    /// Holds at most `bytes` of source text and syntax trees for incremental re-analysis (0
    /// holds none), instead of the default [`DEFAULT_TREE_CACHE_BYTES`]; capped at
    /// [`MAX_TREE_CACHE_BYTES`](super::tree_cache::MAX_TREE_CACHE_BYTES).
    #[must_use]
    pub fn with_tree_cache_bytes(mut self, bytes: u64) -> Self {
        self.trees = TreeCache::new(bytes);
        self
    }

    /// Without the content cache: for a scan that reads each file once (`check` without `--fix`),
    /// whose findings would otherwise be held twice, in the cache and in the snapshot.
    #[must_use]
    pub fn without_content_cache(mut self) -> Self {
        self.cache = ScanCache::disabled();
        self
    }

    /// What the tree cache holds, and how many files were analyzed in full and re-analyzed
    /// incrementally.
    pub fn tree_cache_stats(&self) -> TreeCacheStats {
        TreeCacheStats {
            full_analyses: self.full_analyses,
            incremental_analyses: self.incremental_analyses,
            ..self.trees.stats()
        }
    }

    /// [`scan`](Self::scan) after `edit` tool calls: each hint says which text of a file was
    /// replaced, so a held file's edit is located without comparing the whole file. A hint that
    /// does not reproduce the file's new content is ignored.
    pub fn scan_edited(
        &mut self,
        root: &Path,
        paths: &[String],
        edits: &[(String, EditHint)],
    ) -> Arc<AnalysisSnapshot> {
        self.with_hints(edits, |this| this.scan(root, paths))
    }

    /// [`scan_sources`](Self::scan_sources) after `edit` tool calls, as
    /// [`scan_edited`](Self::scan_edited).
    pub fn scan_sources_edited(
        &mut self,
        files: &[(String, String)],
        edits: &[(String, EditHint)],
    ) -> Arc<AnalysisSnapshot> {
        self.with_hints(edits, |this| this.scan_sources(files))
    }

    fn with_hints(
        &mut self,
        edits: &[(String, EditHint)],
        scan: impl FnOnce(&mut Self) -> Arc<AnalysisSnapshot>,
    ) -> Arc<AnalysisSnapshot> {
        self.hints = edits
            .iter()
            .map(|(path, hint)| (normalize(path), hint.clone()))
            .collect();
        let snapshot = scan(self);
        self.hints.clear();
        snapshot
    }

    /// The analyzer key, e.g. `ast-grep:personal`.
    pub fn key(&self) -> &AnalyzerKey {
        &self.key
    }

    /// The rules this analyzer applies.
    pub fn rules(&self) -> &Arc<RuleSet> {
        &self.rules
    }

    /// Analyzes the TS/TSX files among `paths` (repository-relative, under `root`). Other paths
    /// are ignored; each file is read and parsed at most once.
    pub fn scan(&mut self, root: &Path, paths: &[String]) -> Arc<AnalysisSnapshot> {
        self.scan_walked(root, paths, &[])
    }

    /// [`scan`](Self::scan), plus the symlinks a directory walk met and, like the ast-grep CLI's
    /// walk, did not follow: each TS/TSX one that is not also among `paths` is reported as
    /// [`SkipReason::SymlinkNotFollowed`] and never read.
    pub fn scan_walked(
        &mut self,
        root: &Path,
        paths: &[String],
        unfollowed: &[String],
    ) -> Arc<AnalysisSnapshot> {
        let started = Instant::now();
        let (selected, mut skipped) = self.select(paths.iter().map(String::as_str));
        let named: std::collections::HashSet<String> =
            paths.iter().map(|path| normalize(path)).collect();
        let mut links: Vec<String> = unfollowed
            .iter()
            .map(|path| normalize(path))
            .filter(|path| language_of(path).is_some() && !named.contains(path))
            .collect();
        links.sort();
        links.dedup();
        skipped.extend(links.into_iter().map(|path| SkippedFile {
            path,
            reason: SkipReason::SymlinkNotFollowed,
        }));
        let inputs = selected
            .into_iter()
            .map(|path| (path, Input::Disk))
            .collect();
        self.run(started, root, inputs, skipped)
    }

    /// Analyzes in-memory sources `(path, text)`, as if they were the files of one wave.
    pub fn scan_sources(&mut self, files: &[(String, String)]) -> Arc<AnalysisSnapshot> {
        let files: Vec<(String, Vec<u8>)> = files
            .iter()
            .map(|(path, text)| (path.clone(), text.as_bytes().to_vec()))
            .collect();
        self.scan_contents(files)
    }

    /// Analyzes in-memory contents `(path, bytes)` (e.g. the staged blobs of files) as if they
    /// were the files of one wave: over the size limit, binary or not UTF-8 is skipped and named
    /// as a file read from disk would be.
    pub fn scan_contents(&mut self, files: Vec<(String, Vec<u8>)>) -> Arc<AnalysisSnapshot> {
        let started = Instant::now();
        let (selected, skipped) = self.select(files.iter().map(|(p, _)| p.as_str()));
        let mut by_path: std::collections::HashMap<String, Vec<u8>> = files
            .into_iter()
            .map(|(path, bytes)| (normalize(&path), bytes))
            .collect();
        let inputs = selected
            .into_iter()
            .filter_map(|path| {
                let bytes = by_path.remove(&path)?;
                Some((path, Input::Memory(bytes)))
            })
            .collect();
        self.run(started, Path::new(""), inputs, skipped)
    }

    /// The findings of `bytes` as the content of `path`, without touching the content cache
    /// (what a file held at some revision, compared with what it holds now). Skipped like a
    /// scanned file would be: not TS/TSX, over the size limit, binary, not UTF-8, or a panic.
    pub fn findings_in(&self, path: &str, bytes: &[u8]) -> Result<Vec<Finding>, SkipReason> {
        let path = normalize(path);
        if language_of(&path).is_none() {
            return Err(SkipReason::Unreadable {
                error: "not a TypeScript or TSX file".to_owned(),
            });
        }
        let limit = self.limits.max_file_bytes;
        if bytes.len() as u64 > limit {
            return Err(SkipReason::TooLarge {
                bytes: bytes.len() as u64,
                limit,
            });
        }
        if bytes.contains(&0) {
            return Err(SkipReason::Binary);
        }
        let text = std::str::from_utf8(bytes).map_err(|_| SkipReason::NotUtf8)?;
        catch_unwind(AssertUnwindSafe(|| {
            let file = FileRules::new(&self.rules, &path, text);
            if !file.may_find() {
                return Vec::new();
            }
            let root = file.lang().ast_grep(text);
            file.match_file(&root, &Content::new(None)).1
        }))
        .map_err(|panic| SkipReason::Unreadable {
            error: format!("ast-grep panicked: {}", panic_message(panic.as_ref())),
        })
    }

    /// The size limit of one file.
    pub fn max_file_bytes(&self) -> u64 {
        self.limits.max_file_bytes
    }

    /// Normalizes, deduplicates and sorts the TS/TSX paths; applies the file-count bound.
    fn select<'a>(&self, paths: impl Iterator<Item = &'a str>) -> (Vec<String>, Vec<SkippedFile>) {
        let mut selected: Vec<String> = paths
            .map(normalize)
            .filter(|p| language_of(p).is_some())
            .collect();
        selected.sort();
        selected.dedup();
        let skipped = selected
            .split_off(selected.len().min(self.limits.max_files))
            .into_iter()
            .map(|path| SkippedFile {
                path,
                reason: SkipReason::TooManyFiles {
                    limit: self.limits.max_files,
                },
            })
            .collect();
        (selected, skipped)
    }

    fn read(&self, root: Option<&std::io::Result<Beneath>>, path: &str, input: Input) -> Source {
        match (input, root) {
            (Input::Memory(bytes), _) => self.classify(path, bytes),
            (Input::Disk, Some(Ok(root))) => self.read_disk(root, path),
            (Input::Disk, Some(Err(error))) => Source::Skipped(SkipReason::Unreadable {
                error: format!("cannot open the repository root: {error}"),
            }),
            (Input::Disk, None) => Source::Skipped(SkipReason::Unreadable {
                error: "no repository root to read from".to_owned(),
            }),
        }
    }

    /// Reads `<root>/<path>` if it resolves inside the root to a regular file, at most one byte
    /// past the size limit.
    fn read_disk(&self, root: &Beneath, path: &str) -> Source {
        match read::regular_beneath(root, path, self.limits.max_file_bytes) {
            Ok(bytes) => self.classify(path, bytes),
            Err(reason) => Source::Skipped(reason),
        }
    }

    /// Hashes the bytes, serves them from the cache or validates them as text.
    fn classify(&self, path: &str, bytes: Vec<u8>) -> Source {
        if bytes.len() as u64 > self.limits.max_file_bytes {
            return Source::Skipped(SkipReason::TooLarge {
                bytes: bytes.len() as u64,
                limit: self.limits.max_file_bytes,
            });
        }
        let content = ContentHash::of(&bytes);
        if let Some(findings) = self.cache.get(path, content) {
            return Source::Cached { content, findings };
        }
        if bytes.contains(&0) {
            return Source::Skipped(SkipReason::Binary);
        }
        match String::from_utf8(bytes) {
            Ok(text) => Source::Text { content, text },
            Err(_) => Source::Skipped(SkipReason::NotUtf8),
        }
    }

    /// Analyzes `text` (hashed to `content`) as `path`, incrementally from `held` when it can.
    fn analyze_source(
        &self,
        path: &str,
        content: ContentHash,
        text: String,
        held: Option<HeldFile>,
    ) -> Outcome {
        let hint = self.hints.get(path);
        match catch_unwind(AssertUnwindSafe(|| {
            let version = Version {
                path,
                text,
                content,
            };
            incremental::analyze(&self.rules, &self.reach, version, held, hint)
        })) {
            Ok(analyzed) => Outcome::Analyzed {
                content,
                findings: analyzed.findings.into(),
                cached: false,
                held: analyzed.held,
                mode: Some(analyzed.mode),
            },
            Err(panic) => Outcome::Panicked(panic_message(panic.as_ref())),
        }
    }

    /// `outcome` without the held file the tree cache could not hold. Called in the worker, so
    /// such a tree is dropped as soon as its file is analyzed rather than with every other file's
    /// once all are: a scan with no budget (`check`) holds a tree per thread at a time, not one
    /// per file.
    fn without_unholdable(&self, mut outcome: Outcome) -> Outcome {
        if let Outcome::Analyzed { held, .. } = &mut outcome
            && held
                .as_ref()
                .is_some_and(|file| !self.trees.could_hold(file))
        {
            *held = None;
        }
        outcome
    }

    /// Counts how `path` was analyzed and holds its tree for the next analysis.
    fn hold(&mut self, path: &str, held: Option<HeldFile>, mode: Option<Mode>) {
        match mode {
            Some(Mode::Full) => self.full_analyses += 1,
            Some(Mode::Incremental) => self.incremental_analyses += 1,
            None => {}
        }
        if let Some(held) = held {
            self.trees.insert(path.to_owned(), held);
        }
    }

    /// Reads and analyzes one chunk of files, in parallel on the pool when there is more than
    /// one.
    fn analyze_chunk(
        &self,
        beneath: Option<&std::io::Result<Beneath>>,
        chunk: Vec<(String, Input, Option<HeldFile>)>,
    ) -> Vec<(String, Outcome)> {
        let analyze =
            |(path, input, held): (String, Input, Option<HeldFile>)| -> (String, Outcome) {
                let outcome = match self.read(beneath, &path, input) {
                    Source::Cached { content, findings } => Outcome::Analyzed {
                        content,
                        findings,
                        cached: true,
                        held: held.filter(|held| held.content == content),
                        mode: None,
                    },
                    Source::Skipped(reason) => Outcome::Skipped(reason),
                    Source::Text { content, text } => {
                        self.analyze_source(&path, content, text, held)
                    }
                };
                (path, self.without_unholdable(outcome))
            };
        // A single file gains nothing from the pool but the hand-off and a worker's wake-up, so
        // it is analyzed on the calling thread.
        match &self.pool {
            Some(pool) if chunk.len() > 1 => {
                pool.install(|| chunk.into_par_iter().map(analyze).collect())
            }
            _ => chunk.into_iter().map(analyze).collect(),
        }
    }

    fn run(
        &mut self,
        started: Instant,
        root: &Path,
        inputs: Vec<(String, Input)>,
        mut skipped: Vec<SkippedFile>,
    ) -> Arc<AnalysisSnapshot> {
        // One descriptor of the root for every file read from disk.
        let beneath = inputs
            .iter()
            .any(|(_, input)| matches!(input, Input::Disk))
            .then(|| Beneath::new(root));
        let mut snapshot = AnalysisSnapshot {
            analyzer: self.key.clone(),
            ..AnalysisSnapshot::default()
        };
        let mut findings = Vec::new();
        let mut panics = Vec::new();
        // In chunks, so that what a file's analysis returns (its outcome, its findings' own
        // list, its held tree) waits for the chunk, not for every file of a large `check`: only
        // the findings and the path are kept once a chunk is done.
        let mut inputs = inputs.into_iter().peekable();
        while inputs.peek().is_some() {
            let chunk: Vec<(String, Input, Option<HeldFile>)> = inputs
                .by_ref()
                .take(SCAN_CHUNK)
                .map(|(path, input)| {
                    let held = self.trees.take(&path);
                    (path, input, held)
                })
                .collect();
            let outcomes = self.analyze_chunk(beneath.as_ref(), chunk);
            for (path, outcome) in outcomes {
                snapshot.paths.push(path.clone());
                match outcome {
                    Outcome::Analyzed {
                        content,
                        findings: file_findings,
                        cached,
                        held,
                        mode,
                    } => {
                        findings.extend(file_findings.iter().cloned());
                        self.hold(&path, held, mode);
                        if cached {
                            snapshot.cached_files += 1;
                        } else {
                            snapshot.parsed_files += 1;
                            self.cache.insert(path, content, file_findings);
                        }
                    }
                    Outcome::Skipped(reason) => {
                        self.cache.remove(&path);
                        skipped.push(SkippedFile { path, reason });
                    }
                    Outcome::Panicked(message) => {
                        self.cache.remove(&path);
                        panics.push(ScanPanic { path, message });
                    }
                }
            }
        }
        snapshot.paths.extend(
            skipped
                .iter()
                .filter(|s| {
                    matches!(
                        s.reason,
                        SkipReason::TooManyFiles { .. } | SkipReason::SymlinkNotFollowed
                    )
                })
                .map(|s| s.path.clone()),
        );
        snapshot.paths.sort();
        findings.sort();
        if findings.len() > self.limits.max_findings {
            snapshot.omitted_findings = findings.len() - self.limits.max_findings;
            findings.truncate(self.limits.max_findings);
        }
        snapshot.findings = findings;
        skipped.sort_by(|a, b| a.path.cmp(&b.path));
        snapshot.skipped = skipped;
        if !panics.is_empty() {
            snapshot.failure = Some(ScanFailure { panics });
        }
        snapshot.duration = started.elapsed();
        Arc::new(snapshot)
    }
}

/// A path as the analysis names it: without a leading `./`, and on Windows `/`-separated. On
/// Unix a backslash is an ordinary character of a file name, so it is kept.
fn normalize(path: &str) -> String {
    let path = path.trim_start_matches("./");
    if cfg!(windows) {
        path.replace('\\', "/")
    } else {
        path.to_owned()
    }
}

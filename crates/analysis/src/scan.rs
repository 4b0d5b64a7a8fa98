//! Scanning one wave: each changed TS/TSX file read and parsed once, every rule applied in one
//! pass with ast-grep's `CombinedScan` (suppression comments honoured, unused ones reported as
//! hints), findings normalized into an immutable [`AnalysisSnapshot`].
//!
//! Files are opened through [`Beneath`]: a path is resolved inside the repository root, a symlink
//! is followed only while it stays inside the root, and only a regular file is ever opened (never
//! blocking). Like the ast-grep CLI with a file named on its command line, a symlink to a regular
//! file is analyzed under the link's own name; unlike it, a link leaving the repository is not
//! (reported as [`SkipReason::SymlinkOutsideRepository`]). FIFOs, sockets, devices and
//! directories are reported as [`SkipReason::NotRegular`].

use super::cache::ScanCache;
use super::finding::{ByteRange, Finding, FindingFix, Position, Severity, SourceRange};
use super::incremental::{self, EditHint, Mode, RuleReach};
use super::rules::RuleSet;
use super::snapshot::{AnalysisSnapshot, ScanFailure, ScanPanic, SkipReason, SkippedFile};
use super::tree_cache::{DEFAULT_TREE_CACHE_BYTES, HeldFile, TreeCache, TreeCacheStats};
use ast_grep_config::{CombinedScan, RuleConfig, Severity as AstSeverity};
use ast_grep_core::NodeMatch;
use ast_grep_core::matcher::{Matcher, MatcherExt};
use ast_grep_core::tree_sitter::LanguageExt;
use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_language::SupportLang;
use pi_native_hooks_base::ContentHash;
use pi_native_hooks_base::safe_open::{Beneath, Resolved};
use pi_native_hooks_config::AnalyzerKey;
use rayon::prelude::*;
use std::io::Read;
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

/// The language a path is parsed as, or `None` when it is not TypeScript or TSX.
pub fn language_of(path: &str) -> Option<SupportLang> {
    match Path::new(path).extension().and_then(|e| e.to_str())? {
        "ts" | "mts" | "cts" => Some(SupportLang::TypeScript),
        "tsx" => Some(SupportLang::Tsx),
        _ => None,
    }
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
    /// Given in memory.
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
            analyze_text(&self.rules, &path, text, &Content::new(None))
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
        let skip = |reason| Source::Skipped(reason);
        let (file, stat) = match root.open(path) {
            Ok(Resolved::Regular { file, stat, .. }) => (file, stat),
            Ok(Resolved::NotRegular { kind, via_symlink }) => {
                return skip(SkipReason::NotRegular {
                    kind,
                    symlink: via_symlink,
                });
            }
            Ok(Resolved::Outside { via_symlink: true }) => {
                return skip(SkipReason::SymlinkOutsideRepository);
            }
            Ok(Resolved::Outside { via_symlink: false }) => {
                return skip(SkipReason::OutsideRepository);
            }
            Ok(Resolved::Dangling) => return skip(SkipReason::DanglingSymlink),
            Ok(Resolved::Absent) => return skip(SkipReason::Vanished),
            Err(error) => {
                return skip(SkipReason::Unreadable {
                    error: error.to_string(),
                });
            }
        };
        let limit = self.limits.max_file_bytes;
        let on_disk = u64::try_from(stat.st_size).unwrap_or(0);
        if on_disk > limit {
            return skip(SkipReason::TooLarge {
                bytes: on_disk,
                limit,
            });
        }
        let bytes = match read_text_bytes(file, limit, on_disk) {
            Ok(Some(bytes)) => bytes,
            Ok(None) => return skip(SkipReason::Binary),
            Err(error) => {
                return skip(SkipReason::Unreadable {
                    error: error.to_string(),
                });
            }
        };
        if bytes.len() as u64 > limit {
            // It grew while being read.
            return skip(SkipReason::TooLarge {
                bytes: on_disk.max(bytes.len() as u64),
                limit,
            });
        }
        self.classify(path, bytes)
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
            incremental::analyze(&self.rules, &self.reach, path, text, content, held, hint)
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

    fn run(
        &mut self,
        started: Instant,
        root: &Path,
        inputs: Vec<(String, Input)>,
        mut skipped: Vec<SkippedFile>,
    ) -> Arc<AnalysisSnapshot> {
        let inputs: Vec<(String, Input, Option<HeldFile>)> = inputs
            .into_iter()
            .map(|(path, input)| {
                let held = self.trees.take(&path);
                (path, input, held)
            })
            .collect();
        let this = &*self;
        // One descriptor of the root for every file read from disk.
        let beneath = inputs
            .iter()
            .any(|(_, input, _)| matches!(input, Input::Disk))
            .then(|| Beneath::new(root));
        let beneath = beneath.as_ref();
        let analyze =
            |(path, input, held): (String, Input, Option<HeldFile>)| -> (String, Outcome) {
                let outcome = match this.read(beneath, &path, input) {
                    Source::Cached { content, findings } => Outcome::Analyzed {
                        content,
                        findings,
                        cached: true,
                        held: held.filter(|held| held.content == content),
                        mode: None,
                    },
                    Source::Skipped(reason) => Outcome::Skipped(reason),
                    Source::Text { content, text } => {
                        this.analyze_source(&path, content, text, held)
                    }
                };
                (path, outcome)
            };
        // A single file gains nothing from the pool but the hand-off and a worker's wake-up, so
        // it is analyzed on the calling thread.
        let outcomes: Vec<(String, Outcome)> = match &self.pool {
            Some(pool) if inputs.len() > 1 => {
                pool.install(|| inputs.into_par_iter().map(analyze).collect())
            }
            _ => inputs.into_iter().map(analyze).collect(),
        };

        let mut snapshot = AnalysisSnapshot {
            analyzer: self.key.clone(),
            ..AnalysisSnapshot::default()
        };
        let mut findings = Vec::new();
        let mut panics = Vec::new();
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

/// The hash of a match's text with its whitespace normalised (runs collapsed to one space,
/// trimmed), so re-indenting or re-wrapping a match keeps its hash.
fn text_hash(text: &str) -> String {
    let mut normalised = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !normalised.is_empty() {
            normalised.push(' ');
        }
        normalised.push_str(word);
    }
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(normalised.as_bytes()))
}

/// Bytes read per step of [`read_text_bytes`].
const READ_CHUNK: usize = 64 * 1024;

/// At most `limit + 1` bytes of `file`, read in chunks, or `None` at the first chunk holding a
/// NUL byte: a binary file is recognised without reading the rest of it (a sparse 4 GiB file
/// costs one chunk, whatever the size limit). `size` only sizes the first allocation.
fn read_text_bytes(file: std::fs::File, limit: u64, size: u64) -> std::io::Result<Option<Vec<u8>>> {
    let capacity = usize::try_from(size.min(64 * 1024 * 1024)).unwrap_or(0);
    let mut bytes = Vec::with_capacity(capacity);
    let mut reader = file.take(limit.saturating_add(1));
    let mut chunk = vec![0; READ_CHUNK];
    loop {
        let read = match reader.read(&mut chunk) {
            Ok(0) => return Ok(Some(bytes)),
            Ok(read) => read,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        let chunk = &chunk[..read];
        if chunk.contains(&0) {
            return Ok(None);
        }
        bytes.extend_from_slice(chunk);
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

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned())
}

fn severity(severity: &AstSeverity) -> Severity {
    match severity {
        AstSeverity::Hint | AstSeverity::Off => Severity::Hint,
        AstSeverity::Info => Severity::Info,
        // `error` is refused at load time; anything louder than info is a warning here.
        AstSeverity::Warning | AstSeverity::Error => Severity::Warning,
    }
}

/// The comment ast-grep's suppressions start with.
pub(super) const SUPPRESSION_MARKER: &str = "ast-grep-ignore";

/// The content hash of the text being analyzed, worked out only when a fix needs it (a file read
/// from disk has it already; an in-memory revision is hashed only if one of its findings has a
/// fix).
pub(super) struct Content(std::cell::OnceCell<ContentHash>);

impl Content {
    pub(super) fn new(known: Option<ContentHash>) -> Self {
        let cell = std::cell::OnceCell::new();
        if let Some(hash) = known {
            let _ = cell.set(hash);
        }
        Self(cell)
    }

    pub(super) fn of(&self, text: &str) -> ContentHash {
        *self.0.get_or_init(|| ContentHash::of(text.as_bytes()))
    }
}

/// Parses `text` (whose bytes hash to `content`) once and applies every rule for `path`.
///
/// Rules are first narrowed by their literal pre-filters (see [`super::prefilter`]): a rule is
/// applied only to a file holding one of the literals it needs. A file that mentions no
/// suppression comment is then matched in one traversal that visits only the nodes some rule can
/// match (by AST kind), handing a rule only the nodes that hold one of its node literals; with no
/// rule left it is not even parsed. Otherwise ast-grep's own `CombinedScan` runs, so
/// suppressions and unused-suppression hints behave exactly as in the ast-grep CLI.
fn analyze_text(rules: &RuleSet, path: &str, text: &str, content: &Content) -> Vec<Finding> {
    let Some(lang) = language_of(path) else {
        return Vec::new();
    };
    // A rule none of whose literals occurs in the text cannot match it: it is not applied. (In
    // `CombinedScan` a rule without a match changes nothing either: a suppression counts as used
    // only when it suppresses a match.)
    let prefilter = rules.prefilter();
    let found = prefilter.occurrences(text);
    let applicable: Vec<_> = rules
        .rules_for(Path::new(path), lang)
        .into_iter()
        .filter(|rule| prefilter.file_may_match(&rule.id, &found))
        .collect();
    let suppressions = text.contains(SUPPRESSION_MARKER);
    if applicable.is_empty() && !suppressions {
        return Vec::new();
    }
    let grep = lang.ast_grep(text);
    let mut findings = Vec::new();
    if suppressions {
        let mut combined = CombinedScan::new(applicable);
        combined.set_unused_suppression_rule(rules.unused_suppression());
        for (rule, matches) in combined.scan(&grep, false).matches {
            findings.extend(
                matches
                    .iter()
                    .map(|node| finding(rule, path, node, text, content)),
            );
        }
    } else {
        let by_kind = index_by_kind(&applicable);
        let checks: Vec<_> = applicable
            .iter()
            .map(|rule| prefilter.node_check(&rule.id, &found))
            .collect();
        for node in grep.root().dfs() {
            let Some(candidates) = by_kind.get(usize::from(node.kind_id())) else {
                continue;
            };
            for &index in candidates {
                // A node that holds none of the literals the rule needs is not tried.
                if checks[index]
                    .as_ref()
                    .is_some_and(|check| !check.may_match(node.range()))
                {
                    continue;
                }
                let rule = applicable[index];
                if let Some(matched) = rule.matcher.match_node(node.clone()) {
                    findings.push(finding(rule, path, &matched, text, content));
                }
            }
        }
    }
    findings.sort();
    findings
}

/// For each AST kind id, the indexes of the rules that can match a node of that kind.
pub(super) fn index_by_kind(rules: &[&RuleConfig<SupportLang>]) -> Vec<Vec<usize>> {
    let mut by_kind: Vec<Vec<usize>> = Vec::new();
    for (index, rule) in rules.iter().enumerate() {
        for kind in rule
            .matcher
            .potential_kinds()
            .iter()
            .flat_map(|kinds| kinds.iter())
        {
            if by_kind.len() <= kind {
                by_kind.resize_with(kind + 1, Vec::new);
            }
            by_kind[kind].push(index);
        }
    }
    by_kind
}

/// Normalizes one match of `rule` in `text` (whose bytes hash to `content`).
pub(super) fn finding(
    rule: &RuleConfig<SupportLang>,
    path: &str,
    node: &NodeMatch<'_, StrDoc<SupportLang>>,
    text: &str,
    content: &Content,
) -> Finding {
    let (start, end) = (node.start_pos(), node.end_pos());
    Finding {
        rule: rule.id.as_str().into(),
        severity: severity(&rule.severity),
        message: rule.get_message(node),
        note: rule.note.clone(),
        path: path.to_owned(),
        range: SourceRange {
            start: Position {
                line: start.line(),
                column: start.column(node),
            },
            end: Position {
                line: end.line(),
                column: end.column(node),
            },
        },
        text_hash: text_hash(&node.text()),
        fix: fix(rule, node, text, content),
    }
}

/// The rewrite of `rule`'s first fixer for `node`, computed as the ast-grep CLI computes it
/// (`NodeMatch::make_edit` with the rule's matcher, which applies `expandStart`/`expandEnd`).
/// Rules without `fix:` cost nothing here.
fn fix(
    rule: &RuleConfig<SupportLang>,
    node: &NodeMatch<'_, StrDoc<SupportLang>>,
    text: &str,
    content: &Content,
) -> Option<Box<FindingFix>> {
    let fixer = rule.fixer.first()?;
    let edit = node.make_edit(&rule.matcher, fixer);
    let bytes = ByteRange {
        start: edit.position,
        end: edit.position + edit.deleted_length,
    };
    // The template is text and the source is UTF-8, so this holds unless a fixer splits a
    // character; such a rewrite is not offered rather than written broken.
    let replacement = String::from_utf8(edit.inserted_text).ok()?;
    if bytes.end > text.len()
        || !text.is_char_boundary(bytes.start)
        || !text.is_char_boundary(bytes.end)
    {
        return None;
    }
    let anchor = (node.range().start, node.start_pos().line());
    Some(Box::new(FindingFix {
        range: SourceRange {
            start: position_at(text, anchor, bytes.start),
            end: position_at(text, anchor, bytes.end),
        },
        bytes,
        text: replacement,
        content: content.of(text),
        content_len: text.len(),
    }))
}

/// The position of byte `offset` in `text`, counted from `anchor` (a byte offset and its line),
/// so a fix next to its match costs the bytes between them, not the file. Lines end at `\n` and
/// columns count characters, as ast-grep's positions do.
fn position_at(text: &str, anchor: (usize, usize), offset: usize) -> Position {
    let (anchor_offset, anchor_line) = anchor;
    let newlines = |from: usize, to: usize| text[from..to].matches('\n').count();
    let line = if offset >= anchor_offset {
        anchor_line + newlines(anchor_offset, offset)
    } else {
        anchor_line.saturating_sub(newlines(offset, anchor_offset))
    };
    let line_start = text.as_bytes()[..offset]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |newline| newline + 1);
    Position {
        line,
        column: text[line_start..offset].chars().count(),
    }
}

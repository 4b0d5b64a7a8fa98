//! ast-grep in process over TypeScript and TSX, and the types every analyzer speaks.
//!
//! Files: `rules` (compiling rule files; only the linked languages load), `prefilter` (the literal
//! text each rule needs) and `rule_texts` (each rule's message and note held once), `matcher/`
//! (the one matcher of a file's nodes against the rules: kind index, pre-filters,
//! `ast-grep-ignore` comments applied as ast-grep applies them, findings with positions and
//! fixes), `scan/` (one wave, one parse per file), `incremental/` (the re-analysis of an edited
//! file around its edit), `cache/` (the content cache and the held source texts and syntax trees
//! under a byte budget), `snapshot/` (the normalized `Finding` with its `FindingFix`, the
//! `PolicyDiagnostic` that reaches the model, and the immutable `AnalysisSnapshot`), `port/` (the
//! analyzer port, `WaveAnalyzer` with its `ScanRequest` and `StatusSource`, and the ast-grep
//! rules' implementation of it).

// What is not re-exported from this root is `pub(crate)`: the curated list below is the API.
#![warn(unreachable_pub)]

mod cache;
mod incremental;
mod matcher;
mod port;
mod prefilter;
mod rule_texts;
mod rules;
mod scan;
mod snapshot;

pub use cache::tree_cache::{DEFAULT_TREE_CACHE_BYTES, MAX_TREE_CACHE_BYTES, TreeCacheStats};
pub use incremental::EditHint;
pub use matcher::{findings_of_matches, text_hash};
pub use pi_native_hooks_config::AnalyzerKey;
pub use port::{ScanRequest, StatusSource, WaveAnalyzer};
pub use prefilter::RuleNeeds;
pub use rules::{
    LoadedRules, RuleError, RuleLoad, RuleSet, SUPPORTED_LANGUAGES, language_of, load_rules,
    load_source,
};
pub use scan::{Analyzer, AnalyzerError, ScanLimits, read_repo_file};
pub use snapshot::diagnostic::PolicyDiagnostic;
pub use snapshot::finding::{ByteRange, Finding, FindingFix, Position, Severity, SourceRange};
pub use snapshot::{
    AnalysisSnapshot, ScanFailure, ScanPanic, SkipReason, SkippedFile, is_type_error_rule,
};

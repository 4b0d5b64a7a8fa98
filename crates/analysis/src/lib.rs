//! In-process ast-grep analysis of TypeScript and TSX: rules, scanning, matching (one matcher
//! for the cold scan and incremental re-analysis), the findings snapshot and its caches.

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

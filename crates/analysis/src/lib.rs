//! In-process ast-grep analysis of TypeScript and TSX: rules, scanning, matching (one matcher
//! for the cold scan and incremental re-analysis), the findings snapshot and its caches.

mod cache;
pub mod finding;
pub mod incremental;
mod matcher;
pub mod prefilter;
pub mod rules;
pub mod scan;
pub mod snapshot;
pub mod tree_cache;

pub use finding::{ByteRange, Finding, FindingFix, Position, Severity, SourceRange};
pub use incremental::EditHint;
pub use matcher::findings_of_matches;
pub use pi_native_hooks_config::AnalyzerKey;
pub use rules::{RuleError, RuleLoad, RuleSet, language_of};
pub use scan::{Analyzer, AnalyzerError, ScanLimits};
pub use snapshot::{AnalysisSnapshot, ScanFailure, ScanPanic, SkipReason, SkippedFile};
pub use tree_cache::{DEFAULT_TREE_CACHE_BYTES, MAX_TREE_CACHE_BYTES, TreeCacheStats};

//! In-process ast-grep analysis of TypeScript and TSX: rules, scanning, the findings snapshot and
//! its content cache.

// What is not re-exported from this root is `pub(crate)`: the curated list below is the API.
#![warn(unreachable_pub)]

mod cache;
pub mod finding;
pub mod incremental;
pub mod prefilter;
pub mod rules;
pub mod scan;
pub mod snapshot;
mod suppression;
pub mod tree_cache;

pub use finding::{ByteRange, Finding, FindingFix, Position, Severity, SourceRange};
pub use incremental::EditHint;
pub use pi_native_hooks_config::AnalyzerKey;
pub use rules::{RuleError, RuleLoad, RuleSet};
pub use scan::{Analyzer, AnalyzerError, ScanLimits, language_of};
pub use snapshot::{AnalysisSnapshot, ScanFailure, ScanPanic, SkipReason, SkippedFile};
pub use tree_cache::{DEFAULT_TREE_CACHE_BYTES, MAX_TREE_CACHE_BYTES, TreeCacheStats};

//! In-process ast-grep analysis of TypeScript and TSX: rules, scanning, the findings snapshot and its cache.

pub mod finding;
pub mod snapshot;

pub use finding::{Finding, Position, Severity, SourceRange};
pub use snapshot::{AnalysisSnapshot, SkipReason, SkippedFile};

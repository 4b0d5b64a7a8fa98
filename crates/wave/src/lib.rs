//! The execution-wave runtime: Pi's tool events in, one analysis per wave, one block per wave
//! out.
//!
//! * [`WaveCoordinator`] groups a message's tool calls into waves (all parallel siblings; each
//!   sequential call alone), takes a baseline snapshot before the first potentially mutating
//!   call, and when every call is terminal takes one post-wave snapshot, computes the changed
//!   paths and advances the workspace revision once. Every wait is bounded by a timeout,
//!   [`WaveCoordinator::idle`] included.
//! * [`AnalysisCoordinator`] turns the changed paths into analyzer requests coalesced by key,
//!   scans each key at most once and fans the snapshot out to every interested policy; the
//!   findings no policy reported are delivered as the rule's message and note, as `check`
//!   prints them.
//! * [`pi_native_hooks_delivery`] then picks the new diagnostics the wave introduced (compared with what
//!   each file held before it, `prior`) and renders the block for the carrier.
//!
//! Files: `event` (what the binding sends and gets back), `config`, `tracker/` (membership and
//! terminal state, pure; `plan`, what the tracker hands over; `tools`, classifying calls;
//! `carrier`), `pipeline/` (finishing a wave: measuring changes, analysing, delivering;
//! `snapshots`, the workspace seam; `analysis`; `prior`, what each file held before the wave;
//! `finished`, what the gate gets), `coordinator/` (the async API; `runtime`, the state a
//! coordinator's clones share, behind methods; `report`, per-wave reports, coordinator failures,
//! totals).

// What is not re-exported from this root is `pub(crate)`: the curated list below is the API.
#![warn(unreachable_pub)]

mod config;
mod coordinator;
mod event;
mod pipeline;
mod tracker;

pub use config::WaveConfig;
pub use coordinator::report::{
    CoordinatorFailure, LaneStores, NAMED_SKIPS, NotAnalyzed, ScanStats, WaveEnd, WaveHistory,
    WaveReport, WaveTotals,
};
pub use coordinator::{StillBusy, WaveCoordinator, WaveError};
pub use event::{
    AssistantMessage, ExecutionMode, ResultDecision, ToolCallInfo, ToolEvent, ToolResult,
};
pub use pipeline::analysis::{
    AnalysisCoordinator, AnalysisSetupError, AnalyzerRequest, AnalyzerRun, DiagnosticPolicies,
    WaveAnalysis, analyzer_policy_id, unreported_diagnostics,
};
pub use pipeline::finished::{CallResult, FinishedCall, FinishedWave};
pub use pipeline::snapshots::{GitWorkspace, SnapshotFailure, SnapshotScope, SnapshotSource};
pub use tracker::tools::{ToolCatalog, ToolClass};

//! The verification gate: after the agent changes code that a verification policy cares about,
//! the exact required commands must run successfully — or be waived with a reason — before the
//! agent may stop. An operational gate, not an attestation (see `docs/verification.md`).
//!
//! [`VerificationGate`] tracks one session branch: a monotonic workspace revision, each
//! requirement's required revision and state, waivers, and the continuation cap. The binding
//! feeds it finished waves ([`WaveObservation`]), waiver tool calls ([`WaiverRequest`]) and live
//! workspace snapshots at settle ([`WorkspaceObservation`]), and gets back a [`SettleDecision`].
//! Persistence lives in [`state`]; the status model is the session crate's.
//!
//! Files: `gate` (the tracker), `observation` (wave input), `evidence` (the exact-command rule),
//! `waiver`, `settle` (decision, message, cap), `requirement` (one requirement's state),
//! `record` (workspace records and drift), `relevance` (`affects(path)`), `reconcile` (policies
//! and project identity), `project` + `manifest` + `manifest_glob` (project matching), `doctor` (the projects
//! `pi-native-hooks doctor` reports), `time`.

pub mod doctor;
mod evidence;
mod gate;
mod manifest;
mod manifest_glob;
mod observation;
mod project;
pub mod proposal;
mod reconcile;
mod record;
mod relevance;
mod requirement;
mod settle;
pub mod state;
mod time;
mod waiver;

pub use evidence::{Evidence, FailedRun, Rejection, RejectionReason, cd_form};
pub use gate::{GateConfig, GateSnapshot, VerificationGate};
pub use manifest::{ManifestError, manifest_name};
pub use manifest_glob::{
    GlobMatches, GlobSkip, MAX_GLOB_PROJECTS, MAX_GLOB_WALK_ENTRIES, match_manifests,
};
pub use observation::{CallOutcome, ObservedCall, ObservedChanges, WaveObservation};
pub use project::{MatchedPolicy, ProjectIdentity, ProjectMatch, ProjectProblem, match_projects};
pub use record::{
    Baseline, MAX_RECORDED_PATHS, PERSISTED_PATHS_BYTES, PartialRecord, WorkspaceObservation,
    WorkspaceRecord,
};
pub use requirement::{RequirementKey, RequirementState, Standing, TrackedRequirement};
pub use settle::{
    CapState, Continuation, DEFAULT_CONTINUATION_CAP, Exhaustion, OutstandingCheck, SettleDecision,
    VERIFICATION_MESSAGE_TYPE,
};
pub use time::Timestamp;
pub use waiver::{WAIVER_TOOL, WaivedRequirement, Waiver, WaiverError, WaiverRequest};

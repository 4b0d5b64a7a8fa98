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
//! Files: `gate/` (the tracker; `observation`, wave input; `requirement`, one requirement's
//! state; `record`, workspace records and drift; `relevance`, `affects(path)`; `reconcile`,
//! policies and project identity; `time`), `evidence` (the exact-command rule), `waiver`, `settle`
//! (decision, message, cap), `project/` (project matching; `manifest`, `manifest_glob`;
//! `proposal`, the policy `init` proposes), `state` (the persisted entries and restoring a
//! branch).

// What is not re-exported from this root is `pub(crate)`: the curated list below is the API.
#![warn(unreachable_pub)]

mod evidence;
mod gate;
mod project;
mod settle;
pub mod state;
mod waiver;

pub use evidence::{Evidence, FailedRun, Rejection, RejectionReason, cd_form};
pub use gate::observation::{CallOutcome, ObservedCall, ObservedChanges, WaveObservation};
pub use gate::record::{
    Baseline, MAX_RECORDED_PATHS, PERSISTED_PATHS_BYTES, PartialRecord, WorkspaceObservation,
    WorkspaceRecord,
};
pub use gate::requirement::{RequirementKey, RequirementState, Standing, TrackedRequirement};
pub use gate::time::Timestamp;
pub use gate::{GateConfig, GateSnapshot, VerificationGate};
pub use project::manifest::{ManifestError, manifest_name};
pub use project::manifest_glob::{
    GlobMatches, GlobSkip, MAX_GLOB_PROJECTS, MAX_GLOB_WALK_ENTRIES, match_manifests,
};
pub use project::proposal::{NoProposal, ProposedPolicy, init_plan, propose, propose_at};
pub use project::{MatchedPolicy, ProjectIdentity, ProjectMatch, ProjectProblem, match_projects};
pub use settle::{
    CapState, Continuation, DEFAULT_CONTINUATION_CAP, Exhaustion, OutstandingCheck, SettleDecision,
    VERIFICATION_MESSAGE_TYPE,
};
pub use waiver::{WAIVER_TOOL, WaivedRequirement, Waiver, WaiverError, WaiverRequest};

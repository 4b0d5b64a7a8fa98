//! One Pi session over the engine: the single object the Node binding holds per session.
//!
//! A [`Session`] loads the config root once (rules, policies, trust checks), then forwards Pi's
//! tool events to the [`WaveCoordinator`](crate::wave::WaveCoordinator), feeds every finished
//! wave to the [`VerificationGate`](crate::verification::VerificationGate) in order, and answers
//! the binding's questions: what to append to a tool result, whether the agent may settle, what
//! a waiver covers, which state entries to persist, and what the status is. It owns no policy
//! of its own: each decision comes from the module that owns it.
//!
//! Threads: every gate operation (feeding finished waves, which runs verification policies;
//! restore; settle; waiver) runs on tokio's blocking pool, one at a time, from an async method or
//! from the background task that takes each wave as it finishes. The synchronous methods
//! ([`Session::status`], [`Session::footer_summary`], [`Session::take_state_entries`]) only read
//! what the last operation published: they never run policy code, wait for a wave or touch the
//! disk, so the binding may call them on Node's main thread.
//!
//! Files: `options` (how a session is set up), `open` (loading the config root), `events` (tool
//! events), `verify` (the gate's operations, their order and bounded waits), `observe` (finished
//! wave → gate input), `report` (the published state, status model, footer and text).

mod events;
mod observe;
mod open;
mod options;
mod report;
mod verify;

pub use observe::observe;
pub use open::SessionSetupError;
pub use options::{Clock, SessionOptions, system_clock};
pub use report::{FooterSummary, SessionStatus, footer, render_status};
pub use verify::{RestoreOutcome, SettleOutcome, WaiverOutcome};

use crate::analysis::RuleError;
use crate::policy::PolicyRegistry;
use crate::state::StateEntry;
use crate::status::{AnalyzerStatus, ConfigStatus};
use crate::verification::VerificationGate;
use crate::wave::WaveCoordinator;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use verify::Verifier;

/// One Pi session. Create it with [`Session::open`] inside a tokio runtime.
pub struct Session {
    options: SessionOptions,
    registry: PolicyRegistry,
    /// The status of the loaded configuration (it does not change during a session).
    config_status: ConfigStatus,
    rule_problems: Vec<RuleError>,
    /// Whether tool waves are observed.
    state: SessionState,
    verifier: Arc<Verifier>,
}

/// Whether a session observes tool waves: one state, never a coordinator and a reason at once.
enum SessionState {
    /// The wave coordinator runs.
    Running(WaveCoordinator),
    /// Nothing is observed, for this reason.
    Idle(IdleReason),
}

/// Why a session observes no tool waves.
#[derive(Debug, thiserror::Error)]
pub enum IdleReason {
    /// No config root was loaded (absent or untrusted; the status says which).
    #[error("no config root was loaded")]
    NoConfigRoot,
    /// The analyzer, the analysis or the workspace could not be set up.
    #[error(transparent)]
    SetupFailed(#[from] SessionSetupError),
}

impl SessionState {
    /// The wave coordinator, when it runs.
    fn coordinator(&self) -> Option<&WaveCoordinator> {
        match self {
            SessionState::Running(coordinator) => Some(coordinator),
            SessionState::Idle(_) => None,
        }
    }

    /// Why nothing is observed, when nothing is.
    fn idle_reason(&self) -> Option<&IdleReason> {
        match self {
            SessionState::Running(_) => None,
            SessionState::Idle(reason) => Some(reason),
        }
    }
}

/// What the gate side of a session keeps between calls. Only gate operations (on the blocking
/// pool, one at a time) lock it.
struct GateState {
    gate: VerificationGate,
    /// State entries of the current operation, moved to the outbox when it ends.
    entries: Vec<StateEntry>,
    /// Warnings from the last restore.
    state_warnings: Vec<String>,
    /// Per analyzer: runs, timing, health and the files it could not analyze, folded from
    /// finished waves.
    analyzers: BTreeMap<String, AnalyzerStatus>,
    /// Policies that failed while running, folded from finished waves: distinct messages (each
    /// naming the file and the reason), most recent last, at most [`KEPT_POLICY_FAILURES`].
    policy_failures: Vec<String>,
}

/// How many distinct policy run failures the status keeps.
const KEPT_POLICY_FAILURES: usize = 20;

impl Session {
    /// The session's working directory.
    pub fn cwd(&self) -> &PathBuf {
        &self.options.cwd
    }

    /// The config root this session loaded (or found absent).
    pub fn config_root(&self) -> &PathBuf {
        &self.options.config_root
    }

    /// True when a config root was loaded and the hooks run.
    pub fn is_active(&self) -> bool {
        self.registry.is_active()
    }
}

//! One Pi session over the engine: the single object the Node binding holds per session.
//!
//! A [`Session`] loads the config root once (rules, policies, trust checks), then forwards Pi's
//! tool events to the [`WaveCoordinator`](pi_native_hooks_wave::WaveCoordinator), feeds every finished
//! wave to the [`VerificationGate`](pi_native_hooks_verification::VerificationGate) in order, and answers
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
//! Files: `options` (how a session is set up), `state` (the session and whether it observes
//! waves), `open` (loading the config root), `events` (tool events, a tool result's exit code),
//! `init` (`/hooks-init`'s plan), `host` (what the binding uses of the layers below), `gate/`
//! (`worker`: the gate, what it publishes, one operation at a time; `calls`: the gate's
//! operations and bounded waits; `observe`: finished wave → gate input), `reload` (`/reload`: the
//! config root read again, the gate carried over), `status/` (the engine's status model;
//! `report`: the session's status and footer; `render`: the `/hooks-status` text; `doctor`: the
//! `/hooks-doctor` text, the doctor's report followed by what is live). This file only declares
//! and re-exports: every other file depends on `state`, none on this one.

// What is not re-exported from this root is `pub(crate)`: the curated list below is the API.
#![warn(unreachable_pub)]

mod events;
mod gate;
pub mod host;
mod init;
mod open;
mod options;
mod reload;
mod state;
mod status;

pub use events::ToolResultEvent;
pub use gate::calls::{RestoreOutcome, SettleOutcome, WaiverOutcome};
pub use gate::observe::observe;
pub use options::{Clock, SessionOptions, SettingOverrides, system_clock};
pub use pi_native_hooks_compose::TsserverBridge;
pub use reload::ReloadError;
pub use state::{IdleReason, Session, SessionSetupError};
pub use status::render::render_status;
pub use status::report::{FooterSummary, SessionReport, footer};
pub use status::{
    AnalyzerStatus, ConfigHealth, ConfigStatus, GateStatus, HooksStatus, MatchedProject,
    PolicyLoadError, PolicyStatus, RequirementStatus, SettingsStatus, ShellToolStatus,
    VerificationStatus, WaiverStatus, WorkspaceStatus,
};

//! Owns what the tracker hands to the coordinator and the pipeline: the coverage and handle of
//! a wave's baseline, what a `tool_call` or `tool_result` handler must wait for, the plan of a
//! finished wave, and the side effects of an event.

use crate::coordinator::report::{CoordinatorFailure, WaveEnd};
use crate::event::ResultDecision;
use crate::pipeline::finished::{CallResult, FinishedCall};
use crate::pipeline::snapshots::SnapshotFailure;
use crate::tracker::tools::ToolClass;
use pi_native_hooks_base::CallId;
use pi_native_hooks_base::CancelToken;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{oneshot, watch};

/// What a wave's snapshots must cover, before the coordinator maps it onto the worktree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Coverage {
    /// Some call may change anything.
    Full,
    /// Only these absolute files (all mutating calls are `write`/`edit` with a path).
    Targets(Vec<PathBuf>),
}

/// The baseline snapshot of a wave, once taken.
pub(crate) enum BaselineOutcome<S> {
    Ready(Arc<S>),
    /// Why there is none.
    Failed(BaselineFailure),
}

/// Why a wave has no baseline snapshot to diff against.
#[derive(Clone, Debug, thiserror::Error)]
pub(crate) enum BaselineFailure {
    /// Its capture failed.
    #[error(transparent)]
    Snapshot(#[from] SnapshotFailure),
    /// The capture did not publish one in time.
    #[error("not taken within {} ms", .0.as_millis())]
    NotTakenWithin(Duration),
    /// It was published after its `tool_call` stopped waiting, so the calls may have run first.
    #[error("it was not ready before the calls ran")]
    NotReadyBeforeCalls,
    /// The capture task ended without publishing one.
    #[error("the capture task ended without one")]
    CaptureTaskEnded,
    /// No call of the wave reported a `tool_call` before running.
    #[error("no `tool_call` was reported before the calls ran")]
    NoToolCall,
}

impl<S> Clone for BaselineOutcome<S> {
    fn clone(&self) -> Self {
        match self {
            Self::Ready(snapshot) => Self::Ready(Arc::clone(snapshot)),
            Self::Failed(reason) => Self::Failed(reason.clone()),
        }
    }
}

/// The published baseline of a wave: set once by the capture task.
pub(crate) type BaselineSlot<S> = Option<BaselineOutcome<S>>;

/// A handle on a wave's (possibly pending) baseline.
pub(crate) struct BaselineHandle<S> {
    pub(crate) rx: watch::Receiver<BaselineSlot<S>>,
    pub(crate) cancel: CancelToken,
    pub(crate) coverage: Coverage,
}

impl<S> Clone for BaselineHandle<S> {
    fn clone(&self) -> Self {
        Self {
            rx: self.rx.clone(),
            cancel: self.cancel.clone(),
            coverage: self.coverage.clone(),
        }
    }
}

/// A baseline the coordinator must now capture and publish through `tx`.
pub(crate) struct BaselineStart<S> {
    pub(crate) tx: watch::Sender<BaselineSlot<S>>,
    pub(crate) handle: BaselineHandle<S>,
}

/// What a `tool_call` must do before the tool may run.
pub(crate) enum BaselineWait<S> {
    /// Nothing: not mutating, or no snapshots in this workspace.
    Proceed,
    /// Wait for the wave's baseline, already being captured.
    Await(BaselineHandle<S>),
    /// Capture the wave's baseline, then wait for it.
    Start(BaselineStart<S>),
}

/// What a `tool_result` handler waits for.
pub(crate) enum Wait {
    /// Its decision is already known.
    Immediate(ResultDecision),
    /// Its wave's decision.
    Wave {
        wave: u64,
        rx: oneshot::Receiver<ResultDecision>,
    },
}

/// One call of a finished wave, in source order.
#[derive(Clone, Debug)]
pub(crate) struct PlannedCall {
    pub(crate) id: CallId,
    pub(crate) name: String,
    pub(crate) class: ToolClass,
    /// The call ran, or may have (a result, or no terminal event at all).
    pub(crate) executed: bool,
    /// The call's arguments.
    pub(crate) input: serde_json::Value,
    /// `Some(is_error)` when the call got a real `tool_result`.
    pub(crate) result: Option<bool>,
    /// The exit code the result reported, when it had one.
    pub(crate) exit_code: Option<i64>,
}

impl PlannedCall {
    /// The call as a finished wave reports it.
    pub(crate) fn finished(&self) -> FinishedCall {
        FinishedCall {
            id: self.id.clone(),
            tool: self.name.clone(),
            input: self.input.clone(),
            potentially_mutating: self.class.is_mutating(),
            result: self.result.map(|is_error| CallResult {
                is_error,
                exit_code: self.exit_code,
            }),
        }
    }
}

/// A finished wave, handed to the pipeline.
pub(crate) struct WavePlan<S> {
    pub(crate) wave: u64,
    pub(crate) turn: Option<u64>,
    pub(crate) end: WaveEnd,
    pub(crate) calls: Vec<PlannedCall>,
    pub(crate) baseline: Option<BaselineHandle<S>>,
}

impl<S> WavePlan<S> {
    /// True when some call may change files.
    pub(crate) fn is_mutating(&self) -> bool {
        self.calls.iter().any(|c| c.class.is_mutating())
    }
}

/// Side effects of an event: waves to finish, failures to record.
pub(crate) struct Effects<S> {
    pub(crate) plans: Vec<WavePlan<S>>,
    pub(crate) failures: Vec<CoordinatorFailure>,
}

impl<S> Default for Effects<S> {
    fn default() -> Self {
        Self {
            plans: Vec::new(),
            failures: Vec::new(),
        }
    }
}

/// A released wave's remaining waiters and its failures.
pub(crate) struct Released {
    pub(crate) waiters: Vec<(CallId, oneshot::Sender<ResultDecision>)>,
    pub(crate) failures: Vec<CoordinatorFailure>,
}

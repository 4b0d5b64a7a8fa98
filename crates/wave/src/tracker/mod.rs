//! Owns wave membership: which calls form a wave, when each call is terminal, which waiters a
//! wave holds, and when a wave is finished. Pure bookkeeping under the coordinator's lock — no
//! I/O, no clock; every method returns at once.
//!
//! Rules (from Pi 1.6's event order):
//! * parallel batch: one wave of all sibling calls; its membership closes at its first
//!   `tool_result` (in parallel mode every sibling has started by then; a sibling that has not
//!   is running sequentially and becomes its own wave, so nothing waits for a call that cannot
//!   start yet);
//! * sequential batch, or a call no assistant message announced: each call is its own wave;
//! * a call is terminal at its `tool_result`, or at `tool_execution_end` without one;
//! * a wave is finished when all its members are terminal, or when a later turn end, assistant
//!   message or shutdown closes it (started calls without a terminal event are then `Lost`).

pub(crate) mod carrier;
pub(crate) mod plan;
pub(crate) mod tools;

use crate::coordinator::report::{CoordinatorFailure, WaveEnd};
use crate::event::{AssistantMessage, ExecutionMode, ResultDecision, ToolCallInfo, ToolEvent};
use pi_native_hooks_base::CallId;
use pi_native_hooks_base::CancelToken;
use plan::{
    BaselineHandle, BaselineStart, BaselineWait, Coverage, Effects, PlannedCall, Released, Wait,
    WavePlan,
};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use tokio::sync::{oneshot, watch};
use tools::{ToolCatalog, ToolClass};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Terminal {
    Result {
        is_error: bool,
        exit_code: Option<i64>,
    },
    Ended,
    Lost,
}

struct Call {
    name: String,
    input: Value,
    class: ToolClass,
    /// Source order: the batch (assistant message) and the position in it.
    order: (u64, usize),
    wave: Option<u64>,
    started: bool,
    terminal: Option<Terminal>,
}

struct Wave<S> {
    turn: Option<u64>,
    members: Vec<CallId>,
    open: bool,
    finished: bool,
    baseline: Option<BaselineHandle<S>>,
    waiters: BTreeMap<CallId, oneshot::Sender<ResultDecision>>,
    failures: Vec<CoordinatorFailure>,
}

impl<S> Wave<S> {
    fn new(turn: Option<u64>, members: Vec<CallId>, open: bool) -> Self {
        Self {
            turn,
            members,
            open,
            finished: false,
            baseline: None,
            waiters: BTreeMap::new(),
            failures: Vec::new(),
        }
    }
}

/// The membership bookkeeping of one session.
pub(crate) struct Tracker<S> {
    catalog: ToolCatalog,
    cwd: PathBuf,
    snapshots: bool,
    calls: HashMap<CallId, Call>,
    waves: BTreeMap<u64, Wave<S>>,
    /// Calls closed as lost: their late events are reported, not turned into new waves.
    lost: HashSet<CallId>,
    /// The previous message's calls: their late events are reported the same way.
    retired: HashSet<CallId>,
    next_batch: u64,
    next_wave: u64,
    turn: Option<u64>,
    closed: bool,
}

impl<S> Tracker<S> {
    /// A tracker classifying tools with `catalog` against `cwd`; `snapshots` is false outside git.
    pub(crate) fn new(catalog: ToolCatalog, cwd: PathBuf, snapshots: bool) -> Self {
        Self {
            catalog,
            cwd,
            snapshots,
            calls: HashMap::new(),
            waves: BTreeMap::new(),
            lost: HashSet::new(),
            retired: HashSet::new(),
            next_batch: 0,
            next_wave: 1,
            turn: None,
            closed: false,
        }
    }

    pub(crate) fn turn_start(&mut self, turn: u64) {
        self.turn = Some(turn);
    }

    pub(crate) fn turn_end(&mut self) -> Effects<S> {
        self.close_open("turn_end", WaveEnd::EventsMissing)
    }

    pub(crate) fn assistant_message(&mut self, message: AssistantMessage) -> Effects<S> {
        let mut effects = self.close_open("the next assistant message", WaveEnd::EventsMissing);
        if self.closed {
            return effects;
        }
        // Every earlier call is terminal, lost or never started: retire them.
        self.retired = self.calls.drain().map(|(id, _)| id).collect();
        let batch = self.next_batch;
        self.next_batch += 1;
        let mut ids = Vec::new();
        for (index, call) in message.calls.into_iter().enumerate() {
            if self.calls.contains_key(&call.id) {
                effects.failures.push(CoordinatorFailure::DuplicateEvent {
                    call: call.id,
                    event: ToolEvent::MessageEnd,
                });
                continue;
            }
            ids.push(call.id.clone());
            self.insert_call(call, (batch, index));
        }
        if message.mode == ExecutionMode::Parallel && !ids.is_empty() {
            let wave = self.new_wave(ids.clone(), true);
            for id in &ids {
                if let Some(call) = self.calls.get_mut(id) {
                    call.wave = Some(wave);
                }
            }
        }
        effects
    }

    pub(crate) fn tool_execution_start(&mut self, info: ToolCallInfo) -> Effects<S> {
        let mut effects = Effects::default();
        if self.ignored(&info.id, ToolEvent::ToolExecutionStart, &mut effects) {
            return effects;
        }
        if self.calls.get(&info.id).is_some_and(|c| c.started) {
            effects.failures.push(CoordinatorFailure::DuplicateEvent {
                call: info.id.clone(),
                event: ToolEvent::ToolExecutionStart,
            });
        }
        self.touch(info);
        effects
    }

    pub(crate) fn tool_call(&mut self, info: ToolCallInfo) -> (Effects<S>, BaselineWait<S>) {
        let mut effects = Effects::default();
        if self.ignored(&info.id, ToolEvent::ToolCall, &mut effects) {
            return (effects, BaselineWait::Proceed);
        }
        let Some((wave, mutating)) = self.touch(info) else {
            return (effects, BaselineWait::Proceed);
        };
        if !mutating || !self.snapshots {
            return (effects, BaselineWait::Proceed);
        }
        let coverage = self.coverage(wave);
        let Some(record) = self.waves.get_mut(&wave).filter(|w| !w.finished) else {
            return (effects, BaselineWait::Proceed);
        };
        if let Some(handle) = &record.baseline {
            return (effects, BaselineWait::Await(handle.clone()));
        }
        let (tx, rx) = watch::channel(None);
        let handle = BaselineHandle {
            rx,
            cancel: CancelToken::new(),
            coverage,
        };
        record.baseline = Some(handle.clone());
        (effects, BaselineWait::Start(BaselineStart { tx, handle }))
    }

    pub(crate) fn tool_result(
        &mut self,
        info: ToolCallInfo,
        is_error: bool,
        exit_code: Option<i64>,
    ) -> (Effects<S>, Wait) {
        let mut effects = Effects::default();
        let unchanged = Wait::Immediate(ResultDecision::Unchanged);
        if self.ignored(&info.id, ToolEvent::ToolResult, &mut effects) {
            return (effects, unchanged);
        }
        let id = info.id.clone();
        let Some((wave, _)) = self.touch(info) else {
            return (effects, unchanged);
        };
        if let Some(call) = self.calls.get_mut(&id) {
            call.terminal = Some(Terminal::Result {
                is_error,
                exit_code,
            });
        }
        self.close_membership(wave);
        let wait = if self.wave_is_mutating(wave) {
            let (tx, rx) = oneshot::channel();
            if let Some(record) = self.waves.get_mut(&wave) {
                record.waiters.insert(id, tx);
            }
            Wait::Wave { wave, rx }
        } else {
            unchanged
        };
        effects.plans.extend(self.finish_if_complete(wave));
        (effects, wait)
    }

    pub(crate) fn tool_execution_end(&mut self, id: &str) -> Effects<S> {
        let mut effects = Effects::default();
        // An end for a call nothing else mentioned changes nothing.
        if self.ignored(id, ToolEvent::ToolExecutionEnd, &mut effects)
            || !self.calls.contains_key(id)
        {
            return effects;
        }
        let Some((wave, _)) = self.touch(ToolCallInfo::new(id, "", Value::Null)) else {
            return effects;
        };
        if let Some(call) = self.calls.get_mut(id) {
            call.terminal = Some(Terminal::Ended);
        }
        effects.plans.extend(self.finish_if_complete(wave));
        effects
    }

    /// Closes every wave and takes every waiter; later events are ignored.
    pub(crate) fn shutdown(&mut self) -> (Effects<S>, Vec<Released>) {
        let effects = self.close_open("shutdown", WaveEnd::Shutdown);
        self.closed = true;
        let released = std::mem::take(&mut self.waves)
            .into_values()
            .map(|wave| {
                if let Some(baseline) = &wave.baseline {
                    baseline.cancel.cancel();
                }
                Released {
                    waiters: wave.waiters.into_iter().collect(),
                    failures: wave.failures,
                }
            })
            .collect();
        (effects, released)
    }

    /// Gives up on `call`'s waiter after `timeout_ms`. Returns the failure when the waiter was
    /// still registered (it was not released in the meantime).
    pub(crate) fn abandon_waiter(
        &mut self,
        wave: u64,
        call: &str,
        timeout_ms: u64,
    ) -> Option<CoordinatorFailure> {
        let pending = self.pending(wave);
        let record = self.waves.get_mut(&wave)?;
        record.waiters.remove(call)?;
        let failure = CoordinatorFailure::WaiterTimedOut {
            wave,
            call: call.into(),
            pending,
            timeout_ms,
        };
        record.failures.push(failure.clone());
        Some(failure)
    }

    /// Removes a finished wave, handing over its remaining waiters and failures.
    pub(crate) fn release(&mut self, wave: u64) -> Released {
        match self.waves.remove(&wave) {
            Some(record) => Released {
                waiters: record.waiters.into_iter().collect(),
                failures: record.failures,
            },
            None => Released {
                waiters: Vec::new(),
                failures: Vec::new(),
            },
        }
    }

    /// True when the event must not touch any wave: after shutdown, for a call closed as lost
    /// or retired with the previous message (reported as a late event), or for a call that is already terminal (a repeated result is
    /// reported; the `tool_execution_end` after a `tool_result` is the normal case).
    fn ignored(&self, id: &str, event: ToolEvent, effects: &mut Effects<S>) -> bool {
        if self.closed {
            return true;
        }
        if self.lost.contains(id) || (self.retired.contains(id) && !self.calls.contains_key(id)) {
            effects.failures.push(CoordinatorFailure::LateEvent {
                call: id.into(),
                event,
            });
            return true;
        }
        let Some(terminal) = self.calls.get(id).and_then(|c| c.terminal) else {
            return false;
        };
        // Only a result or an end can repeat; an end after a result is the normal order.
        let repeated = match event {
            ToolEvent::ToolResult => true,
            ToolEvent::ToolExecutionEnd => !matches!(terminal, Terminal::Result { .. }),
            ToolEvent::MessageEnd | ToolEvent::ToolExecutionStart | ToolEvent::ToolCall => false,
        };
        if repeated {
            effects.failures.push(CoordinatorFailure::DuplicateEvent {
                call: id.into(),
                event,
            });
        }
        true
    }

    fn new_wave(&mut self, members: Vec<CallId>, open: bool) -> u64 {
        let id = self.next_wave;
        self.next_wave += 1;
        self.waves.insert(id, Wave::new(self.turn, members, open));
        id
    }

    fn insert_call(&mut self, info: ToolCallInfo, order: (u64, usize)) {
        let class = self.catalog.classify(&info.name, &info.input, &self.cwd);
        self.calls.insert(
            info.id,
            Call {
                name: info.name,
                input: info.input,
                class,
                order,
                wave: None,
                started: false,
                terminal: None,
            },
        );
    }

    /// Registers what an event says about a non-terminal call (an unannounced call becomes a
    /// batch of its own), starts it and puts it in a wave: its batch's open parallel wave, or a
    /// new wave of its own. Returns the wave and whether the call may mutate files.
    fn touch(&mut self, info: ToolCallInfo) -> Option<(u64, bool)> {
        if !self.calls.contains_key(&info.id) {
            let batch = self.next_batch;
            self.next_batch += 1;
            self.insert_call(info.clone(), (batch, 0));
        }
        let call = self.calls.get_mut(&info.id)?;
        let mut changed = false;
        if !info.name.is_empty() && info.name != call.name {
            call.name = info.name;
            changed = true;
        }
        if !info.input.is_null() && info.input != call.input {
            call.input = info.input;
            changed = true;
        }
        if changed {
            call.class = self.catalog.classify(&call.name, &call.input, &self.cwd);
        }
        call.started = true;
        let mutating = call.class.is_mutating();
        let wave = if let Some(wave) = call.wave.filter(|w| self.waves.contains_key(w)) {
            wave
        } else {
            let wave = self.new_wave(vec![info.id.clone()], false);
            let call = self.calls.get_mut(&info.id)?;
            call.wave = Some(wave);
            wave
        };
        Some((wave, mutating))
    }

    /// Drops the members that have not started from an open wave: they run later, alone.
    fn close_membership(&mut self, wave: u64) {
        let Some(record) = self.waves.get_mut(&wave).filter(|w| w.open) else {
            return;
        };
        record.open = false;
        let calls = &mut self.calls;
        record.members.retain(|id| match calls.get_mut(id) {
            Some(call) if !call.started => {
                call.wave = None;
                false
            }
            _ => true,
        });
    }

    fn wave_is_mutating(&self, wave: u64) -> bool {
        self.waves.get(&wave).is_some_and(|record| {
            record
                .members
                .iter()
                .any(|id| self.calls.get(id).is_some_and(|c| c.class.is_mutating()))
        })
    }

    /// What the baseline must cover: every mutating call that is or may become a member.
    fn coverage(&self, wave: u64) -> Coverage {
        let Some(record) = self.waves.get(&wave) else {
            return Coverage::Full;
        };
        let mut targets = Vec::new();
        for call in record.members.iter().filter_map(|id| self.calls.get(id)) {
            match &call.class {
                ToolClass::Untargeted => return Coverage::Full,
                ToolClass::Targeted { path } if !targets.contains(path) => {
                    targets.push(path.clone());
                }
                _ => {}
            }
        }
        Coverage::Targets(targets)
    }

    fn pending(&self, wave: u64) -> Vec<CallId> {
        self.waves.get(&wave).map_or_else(Vec::new, |record| {
            record
                .members
                .iter()
                .filter(|id| self.calls.get(*id).is_some_and(|c| c.terminal.is_none()))
                .cloned()
                .collect()
        })
    }

    fn finish_if_complete(&mut self, wave: u64) -> Option<WavePlan<S>> {
        let record = self.waves.get(&wave).filter(|w| !w.finished)?;
        let complete = record.members.iter().all(|id| {
            self.calls
                .get(id)
                .is_some_and(|c| c.started && c.terminal.is_some())
        });
        if complete {
            self.finish(wave, WaveEnd::Complete)
        } else {
            None
        }
    }

    fn finish(&mut self, wave: u64, end: WaveEnd) -> Option<WavePlan<S>> {
        let record = self.waves.get_mut(&wave)?;
        record.finished = true;
        let mut calls: Vec<((u64, usize), PlannedCall)> = record
            .members
            .iter()
            .filter_map(|id| {
                let call = self.calls.get(id)?;
                let planned = PlannedCall {
                    id: id.clone(),
                    name: call.name.clone(),
                    class: call.class.clone(),
                    executed: matches!(
                        call.terminal,
                        Some(Terminal::Result { .. } | Terminal::Lost)
                    ),
                    input: call.input.clone(),
                    result: match call.terminal {
                        Some(Terminal::Result { is_error, .. }) => Some(is_error),
                        _ => None,
                    },
                    exit_code: match call.terminal {
                        Some(Terminal::Result { exit_code, .. }) => exit_code,
                        _ => None,
                    },
                };
                Some((call.order, planned))
            })
            .collect();
        calls.sort_by_key(|(order, _)| *order);
        Some(WavePlan {
            wave,
            turn: record.turn,
            end,
            calls: calls.into_iter().map(|(_, call)| call).collect(),
            baseline: record.baseline.clone(),
        })
    }

    /// Finishes every wave still collecting calls: started calls without a terminal event are
    /// lost, calls that never started are dropped from it.
    fn close_open(&mut self, at: &str, end: WaveEnd) -> Effects<S> {
        let mut effects = Effects::default();
        let open: Vec<u64> = self
            .waves
            .iter()
            .filter(|(_, w)| !w.finished)
            .map(|(id, _)| *id)
            .collect();
        for wave in open {
            let Some(record) = self.waves.get_mut(&wave) else {
                continue;
            };
            let mut lost = Vec::new();
            let calls = &mut self.calls;
            record.members.retain(|id| match calls.get_mut(id) {
                Some(call) if !call.started => {
                    call.wave = None;
                    false
                }
                Some(call) => {
                    if call.terminal.is_none() {
                        call.terminal = Some(Terminal::Lost);
                        lost.push(id.clone());
                    }
                    true
                }
                None => false,
            });
            if record.members.is_empty() {
                self.waves.remove(&wave);
                continue;
            }
            let end = match end {
                WaveEnd::Shutdown => WaveEnd::Shutdown,
                _ if lost.is_empty() => WaveEnd::Complete,
                other => other,
            };
            if end == WaveEnd::EventsMissing {
                let failure = CoordinatorFailure::EventsMissing {
                    wave,
                    calls: lost.clone(),
                    at: at.to_owned(),
                };
                record.failures.push(failure.clone());
                effects.failures.push(failure);
            }
            self.lost.extend(lost);
            effects.plans.extend(self.finish(wave, end));
        }
        effects
    }
}

//! The bound session type: one per Pi session, forwarding events to the engine's `Session` and
//! returning its decisions. Async methods run on napi's tokio runtime, off the JS thread; the
//! synchronous ones only queue events or read the state the engine last published: none of them
//! runs policy code, touches the disk or waits on a lock a policy run may hold.
//!
//! Panics: every method runs inside [`contain`](crate::contain) and answers a panic as a
//! `PNH_PANIC` [`BindingError`] naming the method and the panic's message. The first panic stops
//! the session: from then on each method answers without touching the engine's session, since
//! the panic may have left its state half-changed:
//!
//! - the event calls (`turnStart`, `turnEnd`, `assistantMessage`, `toolExecutionStart`,
//!   `toolCall`, `toolExecutionEnd`) do nothing;
//! - `toolResult` leaves the result unchanged; `restore`, `beforeSettle` and `takeStateEntries`
//!   persist nothing, and the agent may stop; `waive` records no waiver and says why;
//! - `footer` and `statusText` show the footer and status as last read before the panic, marked
//!   degraded with the reason (`engine panicked in <method>: <message>`), and `active` is false;
//!   `panic` holds the reason; `doctor` shows the reason;
//! - `reload` answers `PNH_PANIC` (the extension opens a new session instead, and restores the
//!   branch into it);
//! - `initPlan`, `initApply` and `configRoot` run as before: they read only the config root and
//!   working directory, fixed at open, never the session's state;
//! - `shutdown` still runs the engine's: it reads nothing to answer, and only releases the
//!   waiting handlers, the background tasks and the watcher, which would otherwise live on until
//!   the garbage collector drops the session (a panic in it is contained like any other).
//!
//! A call that was already running inside the engine when another one panicked finishes with
//! the engine's answer.

use crate::contain::{Panicked, Poison, contain, contain_async, test_seam};
use crate::release::{TrimSchedule, release_freed_memory};
use crate::types::{
    BindingError, BranchEntry, EntryPoint, ErrorCode, ExecutionMode, Footer, InitPlan,
    PersistedEntry, RestoreResult, ResultDecision, SettleResult, ToolCall, ToolResultEvent,
    WaiverResult, entries,
};
use napi::Either;
use napi_derive::napi;
use pi_native_hooks_session::host::{self, AssistantMessage};
use pi_native_hooks_session::{FooterSummary, Session, SessionReport, render_status};
use std::future::Future;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

/// What a session stopped by a panic no longer does, and how to start the hooks again.
const STOPPED: &str = "The hooks no longer run in this session: tool results pass unchanged, nothing is analyzed and verification is not enforced. /reload or a new session starts them again.";

/// The hooks of one Pi session.
#[napi]
pub struct HookSession {
    inner: Arc<Session>,
    /// Fixed at open, and kept here so that a stopped session still answers them.
    config_root: PathBuf,
    active: bool,
    /// Tests only: the method that panics (the `panicIn` option).
    panic_in: Option<EntryPoint>,
    /// The first panic, once there was one.
    poison: Poison,
    /// The footer and status as last read: what a stopped session shows, with the reason.
    last_footer: Mutex<FooterSummary>,
    last_status: Mutex<SessionReport>,
    /// When the memory the engine freed goes back to the system.
    trims: TrimSchedule,
}

impl HookSession {
    pub(crate) fn new(inner: Arc<Session>, panic_in: Option<EntryPoint>) -> Self {
        Self {
            config_root: inner.config_root().clone(),
            active: inner.is_active(),
            panic_in,
            poison: Poison::default(),
            last_footer: Mutex::new(inner.footer_summary()),
            last_status: Mutex::new(inner.status()),
            trims: TrimSchedule::default(),
            inner,
        }
    }

    /// Runs `body` contained, or answers `stopped` (contained too: it renders the footer or
    /// status) once a panic stopped the session.
    fn run<T>(
        &self,
        entry: EntryPoint,
        stopped: impl FnOnce(&Panicked) -> T,
        body: impl FnOnce() -> T,
    ) -> Either<T, BindingError> {
        if let Some(panicked) = self.poison.get() {
            return self.answer(contain(entry, || stopped(panicked)));
        }
        self.answer(contain(entry, || {
            let value = body();
            test_seam(entry, self.panic_in);
            value
        }))
    }

    /// [`HookSession::run`] for a future.
    async fn run_async<T>(
        &self,
        entry: EntryPoint,
        stopped: impl FnOnce(&Panicked) -> T,
        body: impl Future<Output = T>,
    ) -> Either<T, BindingError> {
        if let Some(panicked) = self.poison.get() {
            return self.answer(contain(entry, || stopped(panicked)));
        }
        self.answer(
            contain_async(entry, async {
                let value = body.await;
                test_seam(entry, self.panic_in);
                value
            })
            .await,
        )
    }

    /// Runs `body` contained, after a panic too: for the calls that read nothing of the session's
    /// state (`initPlan`, `initApply`) or only release it (`shutdown`).
    fn run_always<T>(
        &self,
        entry: EntryPoint,
        body: impl FnOnce() -> T,
    ) -> Either<T, BindingError> {
        self.answer(contain(entry, || {
            let value = body();
            test_seam(entry, self.panic_in);
            value
        }))
    }

    /// The value, or the panic as a `PNH_PANIC` error, after which the session is stopped.
    fn answer<T>(&self, outcome: Result<T, Panicked>) -> Either<T, BindingError> {
        match outcome {
            Ok(value) => Either::A(value),
            Err(panicked) => {
                let error = BindingError::new(ErrorCode::Panic, &panicked);
                self.poison.record(panicked);
                Either::B(error)
            }
        }
    }

    /// The footer as last read, marked degraded by the panic.
    fn stopped_footer(&self, panicked: &Panicked) -> Footer {
        let mut summary = lock(&self.last_footer).clone();
        // One marker: the panic, which outranks whatever was degraded before.
        summary.degraded = false;
        let mut footer = Footer::from(summary);
        footer.text = format!(
            "{} · degraded (engine panic in {})",
            footer.text, panicked.entry
        );
        footer.degraded = true;
        footer.panic = Some(panicked.to_string());
        footer
    }

    /// The `/hooks-status` text of a stopped session: the reason, then the status as last read.
    fn stopped_text(&self, panicked: &Panicked) -> String {
        let last = render_status(&lock(&self.last_status));
        format!(
            "pi-native-hooks stopped: {panicked}\n{STOPPED}\nAs last read before the panic:\n{last}"
        )
    }
}

/// The data behind `mutex` (never held across a call that could panic).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[napi]
impl HookSession {
    /// True when a config root was loaded and the hooks run (false once a panic stopped them).
    #[napi(getter)]
    pub fn active(&self) -> bool {
        self.active && self.poison.get().is_none()
    }

    /// The config root this session loaded (or found absent).
    #[napi(getter)]
    pub fn config_root(&self) -> String {
        self.config_root.display().to_string()
    }

    /// Why the session stopped: `engine panicked in <method>: <message>`, once a panic stopped
    /// it; null while it runs.
    #[napi(getter)]
    pub fn panic(&self) -> Option<String> {
        self.poison.get().map(ToString::to_string)
    }

    /// Restores the verification state of the current branch (`getBranch()`, root first): at
    /// session start, resume, fork and after `/tree` navigation.
    #[napi]
    pub async fn restore(&self, branch: Vec<BranchEntry>) -> Either<RestoreResult, BindingError> {
        let stopped = |_: &Panicked| RestoreResult {
            restored_from: None,
            warnings: Vec::new(),
            entries: Vec::new(),
        };
        self.run_async(EntryPoint::Restore, stopped, async {
            let branch: Vec<host::BranchEntry> = branch.into_iter().map(Into::into).collect();
            self.inner.restore(&branch).await.into()
        })
        .await
    }

    /// `turn_start`.
    #[napi]
    pub fn turn_start(&self, turn: u32) -> Either<(), BindingError> {
        self.run(
            EntryPoint::TurnStart,
            |_| (),
            || {
                self.inner.turn_start(u64::from(turn));
            },
        )
    }

    /// `turn_end`. The wave's analysis is over: after every 8th turn, what the engine freed goes
    /// back to the system, off Node's thread.
    #[napi]
    pub fn turn_end(&self) -> Either<(), BindingError> {
        self.run(
            EntryPoint::TurnEnd,
            |_| (),
            || {
                self.inner.turn_end();
                if self.trims.turn_ended() {
                    release_freed_memory();
                }
            },
        )
    }

    /// An assistant `message_end`: its tool calls in source order, and how Pi runs them.
    #[napi]
    pub fn assistant_message(
        &self,
        calls: Vec<ToolCall>,
        mode: ExecutionMode,
    ) -> Either<(), BindingError> {
        self.run(
            EntryPoint::AssistantMessage,
            |_| (),
            || {
                self.inner.assistant_message(AssistantMessage {
                    calls: calls.into_iter().map(Into::into).collect(),
                    mode: mode.into(),
                });
            },
        )
    }

    /// `tool_execution_start`.
    #[napi]
    pub fn tool_execution_start(&self, call: ToolCall) -> Either<(), BindingError> {
        self.run(
            EntryPoint::ToolExecutionStart,
            |_| (),
            || {
                self.inner.tool_execution_start(call.into());
            },
        )
    }

    /// `tool_call`: resolves once the wave's baseline snapshot is taken (bounded by the timeout).
    #[napi]
    pub async fn tool_call(&self, call: ToolCall) -> Either<(), BindingError> {
        self.run_async(EntryPoint::ToolCall, |_| (), async {
            self.inner.tool_call(call.into()).await;
        })
        .await
    }

    /// `tool_result`: resolves, once the call's wave is analyzed (bounded), to whether a block is
    /// appended to this result.
    #[napi]
    pub async fn tool_result(
        &self,
        event: ToolResultEvent,
    ) -> Either<ResultDecision, BindingError> {
        let stopped = |_: &Panicked| ResultDecision { append: None };
        self.run_async(EntryPoint::ToolResult, stopped, async {
            let result = self.inner.tool_result_of(event.into());
            self.inner.tool_result(&result).await.into()
        })
        .await
    }

    /// `tool_execution_end`.
    #[napi]
    // napi-rs passes JS strings to a method as owned `String`s. `allow`, not `expect`: the
    // `#[napi]` expansion copies the attribute onto code where the lint does not fire.
    #[allow(clippy::needless_pass_by_value)]
    pub fn tool_execution_end(&self, id: String) -> Either<(), BindingError> {
        self.run(
            EntryPoint::ToolExecutionEnd,
            |_| (),
            || {
                self.inner.tool_execution_end(&id);
            },
        )
    }

    /// `agent_before_settle`: delivers diagnostics that arrived late, refreshes the workspace and
    /// decides whether the agent may stop. What the engine freed since the last trim goes back to
    /// the system.
    #[napi]
    pub async fn before_settle(&self) -> Either<SettleResult, BindingError> {
        let stopped = |_: &Panicked| SettleResult {
            message: None,
            late_findings: None,
            notification: None,
            entries: Vec::new(),
        };
        self.run_async(EntryPoint::BeforeSettle, stopped, async {
            let decision = self.inner.before_settle().await.into();
            if self.trims.settling() {
                release_freed_memory();
            }
            decision
        })
        .await
    }

    /// The waiver tool: waives every outstanding check with `reason`.
    #[napi]
    pub async fn waive(
        &self,
        tool_call_id: String,
        reason: String,
    ) -> Either<WaiverResult, BindingError> {
        let stopped = |panicked: &Panicked| WaiverResult {
            recorded: false,
            message: format!(
                "No waiver recorded: pi-native-hooks stopped in this session ({panicked}), so no check is enforced."
            ),
            entries: Vec::new(),
        };
        self.run_async(EntryPoint::Waive, stopped, async {
            self.inner.waive(&tool_call_id, &reason).await.into()
        })
        .await
    }

    /// State entries produced since the last call (e.g. a wave armed a check). Never waits: the
    /// engine feeds waves to the gate in `toolResult` and in the background.
    #[napi]
    pub fn take_state_entries(&self) -> Either<Vec<PersistedEntry>, BindingError> {
        self.run(
            EntryPoint::TakeStateEntries,
            |_| Vec::new(),
            || entries(self.inner.take_state_entries()),
        )
    }

    /// The status as `/hooks-status` prints it (as last published, escaped).
    #[napi]
    pub fn status_text(&self) -> Either<String, BindingError> {
        let stopped = |panicked: &Panicked| self.stopped_text(panicked);
        self.run(EntryPoint::StatusText, stopped, || {
            let status = self.inner.status();
            let text = render_status(&status);
            *lock(&self.last_status) = status;
            text
        })
    }

    /// The footer (as last published): its line and the data behind it.
    #[napi]
    pub fn footer(&self) -> Either<Footer, BindingError> {
        let stopped = |panicked: &Panicked| self.stopped_footer(panicked);
        self.run(EntryPoint::Footer, stopped, || {
            let summary = self.inner.footer_summary();
            *lock(&self.last_footer) = summary.clone();
            summary.into()
        })
    }

    /// The `/hooks-doctor` text: config root, trust checks, policy load results, analyzer
    /// health.
    #[napi]
    pub async fn doctor(&self) -> Either<String, BindingError> {
        let stopped =
            |panicked: &Panicked| format!("pi-native-hooks stopped: {panicked}\n{STOPPED}\n");
        self.run_async(EntryPoint::Doctor, stopped, async {
            self.inner.doctor_text().await
        })
        .await
    }

    /// Every entry `/hooks-init` would create under the config root (the built-in pack and the
    /// verification policy proposed for the session's project), which exist already, and what
    /// was proposed. Async: it looks at the file system.
    #[napi]
    // `async` makes napi-rs run it off Node's main thread and return a Promise. `allow`, not
    // `expect`: the `#[napi]` expansion copies the attribute onto code where the lint does not fire.
    #[allow(clippy::unused_async)]
    pub async fn init_plan(&self) -> Either<InitPlan, BindingError> {
        self.run_always(EntryPoint::InitPlan, || {
            InitPlan::from(&self.inner.init_plan())
        })
    }

    /// Creates the missing entries of the config root (never overwrites; on failure removes what
    /// it created). Resolves to the created paths, or to a [`BindingError`]
    /// (`PNH_INIT_FAILED`).
    #[napi]
    // `async` makes napi-rs run it off Node's main thread and return a Promise. `allow`, not
    // `expect`: the `#[napi]` expansion copies the attribute onto code where the lint does not fire.
    #[allow(clippy::unused_async)]
    pub async fn init_apply(&self) -> Either<Vec<String>, BindingError> {
        let applied = self.run_always(EntryPoint::InitApply, || self.inner.init_plan().apply());
        match applied {
            Either::A(Ok(created)) => {
                Either::A(created.iter().map(|p| p.display().to_string()).collect())
            }
            Either::A(Err(error)) => Either::B(BindingError::new(ErrorCode::InitFailed, error)),
            Either::B(panicked) => Either::B(panicked),
        }
    }

    /// `/reload`: reads the config root again and resolves to the session that replaces this one,
    /// carrying its verification state over (a policy that loaded before and fails now is shown
    /// as degraded, and its armed checks stay `unknown`). Its first state entries wait in
    /// `takeStateEntries`. This session is shut down; on a [`BindingError`]
    /// (`PNH_RELOAD_FAILED`) it keeps running unchanged. A session a panic stopped answers
    /// `PNH_PANIC`: its state cannot be carried over; open a new session instead.
    #[napi]
    pub async fn reload(&self) -> Either<HookSession, BindingError> {
        let stopped = |panicked: &Panicked| {
            Either::B(BindingError::new(
                ErrorCode::Panic,
                format!("{panicked}; a stopped session cannot be reloaded: open a new one"),
            ))
        };
        let reloaded = self
            .run_async(EntryPoint::Reload, stopped, async {
                match self.inner.reload().await {
                    Ok(session) => Either::A(HookSession::new(Arc::new(session), self.panic_in)),
                    Err(error) => Either::B(BindingError::new(ErrorCode::ReloadFailed, error)),
                }
            })
            .await;
        match reloaded {
            Either::A(answer) => answer,
            Either::B(panicked) => Either::B(panicked),
        }
    }

    /// `session_shutdown`: releases every waiting handler unchanged and ignores later events.
    /// Runs after a panic too (see the module doc).
    #[napi]
    pub fn shutdown(&self) -> Either<(), BindingError> {
        self.run_always(EntryPoint::Shutdown, || self.inner.shutdown())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pi_native_hooks_session::SessionOptions as EngineOptions;
    use tempfile::TempDir;

    /// Every method of a session.
    const METHODS: [EntryPoint; 18] = [
        EntryPoint::Restore,
        EntryPoint::TurnStart,
        EntryPoint::TurnEnd,
        EntryPoint::AssistantMessage,
        EntryPoint::ToolExecutionStart,
        EntryPoint::ToolCall,
        EntryPoint::ToolResult,
        EntryPoint::ToolExecutionEnd,
        EntryPoint::BeforeSettle,
        EntryPoint::Waive,
        EntryPoint::TakeStateEntries,
        EntryPoint::StatusText,
        EntryPoint::Footer,
        EntryPoint::Doctor,
        EntryPoint::InitPlan,
        EntryPoint::InitApply,
        EntryPoint::Reload,
        EntryPoint::Shutdown,
    ];

    /// A session over a directory that is not a repository (no wave is observed: the binding is
    /// under test, not the engine) and an absent config root (the built-in pack), whose
    /// `panic_in` method panics.
    fn session(dir: &TempDir, panic_in: Option<EntryPoint>) -> HookSession {
        let options = EngineOptions::new(dir.path(), dir.path().join("config"));
        HookSession::new(Arc::new(Session::open(options)), panic_in)
    }

    fn call_of(id: &str) -> ToolCall {
        ToolCall {
            id: id.to_owned(),
            name: "write".to_owned(),
            input: None,
        }
    }

    /// The error `answer` carries, or its value described.
    fn outcome<T>(
        answer: Either<T, BindingError>,
        describe: impl FnOnce(T) -> String,
    ) -> Result<String, String> {
        match answer {
            Either::A(value) => Ok(describe(value)),
            Either::B(error) => Err(format!("{:?}: {}", error.code, error.message)),
        }
    }

    /// Calls `method` with harmless arguments.
    async fn call(session: &HookSession, method: EntryPoint) -> Result<String, String> {
        let done = |()| "done".to_owned();
        match method {
            EntryPoint::Restore => outcome(session.restore(Vec::new()).await, |r| {
                format!(
                    "from {:?}, warnings {:?}, {} entries",
                    r.restored_from,
                    r.warnings,
                    r.entries.len()
                )
            }),
            EntryPoint::TurnStart => outcome(session.turn_start(1), done),
            EntryPoint::TurnEnd => outcome(session.turn_end(), done),
            EntryPoint::AssistantMessage => outcome(
                session.assistant_message(vec![call_of("A")], ExecutionMode::Parallel),
                done,
            ),
            EntryPoint::ToolExecutionStart => {
                outcome(session.tool_execution_start(call_of("A")), done)
            }
            EntryPoint::ToolCall => outcome(session.tool_call(call_of("A")).await, done),
            EntryPoint::ToolResult => {
                let event = ToolResultEvent {
                    tool_call_id: "A".to_owned(),
                    tool_name: "write".to_owned(),
                    input: None,
                    is_error: false,
                    structured_content: None,
                    details: None,
                    content: None,
                };
                outcome(session.tool_result(event).await, |d| {
                    format!("append {:?}", d.append)
                })
            }
            EntryPoint::ToolExecutionEnd => {
                outcome(session.tool_execution_end("A".to_owned()), done)
            }
            EntryPoint::BeforeSettle => outcome(session.before_settle().await, |s| {
                format!(
                    "message {:?}, notification {:?}, {} entries",
                    s.message,
                    s.notification,
                    s.entries.len()
                )
            }),
            EntryPoint::Waive => {
                outcome(session.waive("W".to_owned(), "r".to_owned()).await, |w| {
                    format!("recorded {}: {}", w.recorded, w.message)
                })
            }
            EntryPoint::TakeStateEntries => outcome(session.take_state_entries(), |e| {
                format!("{} entries", e.len())
            }),
            EntryPoint::StatusText => outcome(session.status_text(), |text| text),
            EntryPoint::Footer => outcome(session.footer(), |f| {
                format!("{} (degraded {}, panic {:?})", f.text, f.degraded, f.panic)
            }),
            EntryPoint::Doctor => outcome(session.doctor().await, |text| text),
            EntryPoint::InitPlan => outcome(session.init_plan().await, |plan| {
                format!("root {}", plan.root)
            }),
            EntryPoint::InitApply => outcome(session.init_apply().await, |created| {
                format!("{} created", created.len())
            }),
            EntryPoint::Reload => outcome(session.reload().await, |_| "reloaded".to_owned()),
            EntryPoint::Shutdown => outcome(session.shutdown(), done),
            EntryPoint::OpenSession | EntryPoint::RunCli => unreachable!("not a session method"),
        }
    }

    /// The reason a panic of the seam in `method` is given as.
    fn seam_reason(method: EntryPoint) -> String {
        format!(
            "engine panicked in {method}: panicked on purpose (the panicIn test option) (at bindings/src/contain.rs:"
        )
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_running_session_answers_every_method() {
        let dir = TempDir::new().expect("a temporary directory");
        let session = session(&dir, None);
        for method in METHODS {
            let answer = call(&session, method).await;
            assert!(answer.is_ok(), "{method}: {answer:?}");
        }
        assert_eq!(session.panic(), None);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_panic_in_any_method_is_answered_as_pnh_panic_and_stops_the_session() {
        for method in METHODS {
            let dir = TempDir::new().expect("a temporary directory");
            let session = session(&dir, Some(method));
            // Read as `footer` would, without calling it (it may be the method that panics).
            let footer_before = pi_native_hooks_session::footer(&lock(&session.last_footer));
            assert!(session.active());

            let error = call(&session, method).await.expect_err("the seam panics");
            let reason = seam_reason(method);
            assert!(
                error.starts_with(&format!("Panic: {reason}")),
                "{method}: {error}"
            );
            let stopped = session.panic().expect("the session is stopped");
            assert!(stopped.starts_with(&reason), "{method}: {stopped}");
            assert!(!session.active(), "{method}");

            // Every later call answers without engine code: the panicking method included, whose
            // seam would panic again if its body ran.
            for later in METHODS {
                let answer = call(&session, later).await;
                match later {
                    EntryPoint::Reload => assert_eq!(
                        answer,
                        Err(format!(
                            "Panic: {stopped}; a stopped session cannot be reloaded: open a new one"
                        )),
                        "{method}"
                    ),
                    // They never touch the session's state, so they run again: the seam too.
                    EntryPoint::InitPlan | EntryPoint::InitApply | EntryPoint::Shutdown
                        if later == method =>
                    {
                        assert!(answer.is_err(), "{method}: {answer:?}");
                    }
                    EntryPoint::InitPlan | EntryPoint::InitApply | EntryPoint::Shutdown => {
                        assert!(answer.is_ok(), "{method} then {later}: {answer:?}");
                    }
                    // The reason, then the status as last read (here, as opened).
                    EntryPoint::StatusText => {
                        let text = answer.expect("a text");
                        let head = format!(
                            "pi-native-hooks stopped: {stopped}\n{STOPPED}\nAs last read before the panic:\npi-native-hooks active\n"
                        );
                        assert!(text.starts_with(&head), "{method}: {text}");
                    }
                    _ => assert_eq!(
                        answer,
                        Ok(stopped_answer(later, &stopped, &footer_before)),
                        "{method} then {later}"
                    ),
                }
            }
            assert_eq!(
                session.panic(),
                Some(stopped),
                "the first panic stays the reason"
            );
        }
    }

    /// What `method` answers once `reason` stopped the session.
    fn stopped_answer(method: EntryPoint, reason: &str, footer_before: &str) -> String {
        let entry = &reason["engine panicked in ".len()..reason.find(':').expect("a colon")];
        match method {
            EntryPoint::Restore => "from None, warnings [], 0 entries".to_owned(),
            EntryPoint::ToolResult => "append None".to_owned(),
            EntryPoint::BeforeSettle => "message None, notification None, 0 entries".to_owned(),
            EntryPoint::Waive => format!(
                "recorded false: No waiver recorded: pi-native-hooks stopped in this session ({reason}), so no check is enforced."
            ),
            EntryPoint::TakeStateEntries => "0 entries".to_owned(),
            EntryPoint::Footer => format!(
                "{footer_before} · degraded (engine panic in {entry}) (degraded true, panic Some({reason:?}))"
            ),
            EntryPoint::Doctor => format!("pi-native-hooks stopped: {reason}\n{STOPPED}\n"),
            _ => "done".to_owned(),
        }
    }
}

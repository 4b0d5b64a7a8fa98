//! Owns panic containment: the one way every entry point runs engine code. A panic must never
//! leave a napi callback: unwinding out of an `extern "C"` function aborts the process, and Pi
//! with it; a panicking future would reject its promise with an untyped error and leave the
//! session running on state the panic left half-changed. [`contain`] (synchronous calls, on
//! Node's main thread) and [`contain_async`] (the futures napi polls on its tokio runtime) catch
//! the panic and return it as [`Panicked`]: which entry point, and what the panic said. The caller
//! answers it as a `PNH_PANIC` [`BindingError`](crate::types::BindingError) and records it in its
//! session's [`Poison`], after which that session answers every call without touching the
//! engine's session (see [`session`](crate::session)).
//!
//! `AssertUnwindSafe` is sound here for that reason: whatever invariant a panic broke is never
//! observed, because nothing reaches the state it broke through this session again.
//!
//! The panic hook: the default one writes `thread '…' panicked at …` to stderr, which inside Pi
//! lands in the middle of its terminal UI, for a panic the binding or the engine (a policy's
//! interpreter, a blocking task) contains and reports anyway. The addon's hook therefore writes
//! nothing; it keeps the panic's location for the [`Panicked`] caught on the same thread, where
//! `/hooks-status` shows it. With `RUST_BACKTRACE` set (a developer asking for the details) it
//! also runs the default hook. The hook is the addon's own (a cdylib carries its own copy of
//! `std`), so it changes nothing for Node or other addons.
//!
//! Containment needs unwinding: the release profile must not set `panic = "abort"` (with it no
//! panic can be caught, and each one aborts Pi).

use futures::FutureExt;
use pi_native_hooks_base::{escape, panic_text};
use std::any::Any;
use std::cell::RefCell;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Once, OnceLock};

use crate::types::EntryPoint;

/// A panic message is cut after this many characters (the rest is counted): it is shown in
/// `/hooks-status` and in an error notification, and a panic may format a whole data structure.
const MESSAGE_CHARS: usize = 1_000;

/// A panic caught at an entry point.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("engine panicked in {entry}: {message}")]
pub(crate) struct Panicked {
    /// Where it was caught.
    pub(crate) entry: EntryPoint,
    /// What the panic said and where it happened (`message (at file:line:column)`), escaped and
    /// bounded.
    pub(crate) message: String,
}

impl Panicked {
    fn new(entry: EntryPoint, payload: Box<dyn Any + Send>) -> Self {
        let text = panic_text(payload.as_ref());
        // A payload's own `Drop` may panic in turn; here it would unwind out of the entry point.
        let _ = catch_unwind(AssertUnwindSafe(move || drop(payload)));
        let seen = LAST_PANIC.try_with(RefCell::take).ok().flatten();
        let message = match (text, seen) {
            // The hook saw this very panic on this thread (a payload re-raised with
            // `resume_unwind` skips the hook and leaves an older record, which is not used).
            (Some(text), Some(seen)) if seen.message.as_deref() == Some(text.as_str()) => {
                format!("{text} (at {})", seen.location)
            }
            (Some(text), _) => text,
            (None, Some(seen)) if seen.message.is_none() => {
                format!("a panic without a message (at {})", seen.location)
            }
            (None, _) => "a panic without a message".to_owned(),
        };
        Self {
            entry,
            message: escape(&bounded(&message)).into_owned(),
        }
    }
}

/// Runs `body`, catching a panic as [`Panicked`] at `entry`.
pub(crate) fn contain<T>(entry: EntryPoint, body: impl FnOnce() -> T) -> Result<T, Panicked> {
    install_hook();
    catch_unwind(AssertUnwindSafe(body)).map_err(|payload| Panicked::new(entry, payload))
}

/// Runs `future`, catching a panic in any of its polls as [`Panicked`] at `entry`.
pub(crate) async fn contain_async<T>(
    entry: EntryPoint,
    future: impl Future<Output = T>,
) -> Result<T, Panicked> {
    install_hook();
    AssertUnwindSafe(future)
        .catch_unwind()
        .await
        .map_err(|payload| Panicked::new(entry, payload))
}

/// Tests only: panics when `panic_in` (the `panicIn` option) names `entry`. Called inside the
/// containment, once the entry point's engine work is done, as a defect in it would panic.
#[expect(clippy::manual_assert, reason = "a panic on purpose, not a check")]
pub(crate) fn test_seam(entry: EntryPoint, panic_in: Option<EntryPoint>) {
    if panic_in == Some(entry) {
        panic!("panicked on purpose (the panicIn test option)");
    }
}

/// The first panic of a session, once there was one: from then on the session answers without
/// engine code.
#[derive(Debug, Default)]
pub(crate) struct Poison(OnceLock<Panicked>);

impl Poison {
    /// The panic that stopped the session, if one did.
    pub(crate) fn get(&self) -> Option<&Panicked> {
        self.0.get()
    }

    /// Records `panicked` unless an earlier panic already stopped the session (the first one is
    /// the cause; a later one is still answered to its caller).
    pub(crate) fn record(&self, panicked: Panicked) {
        let _ = self.0.set(panicked);
    }
}

/// What the hook saw of the last panic on this thread.
struct Seen {
    message: Option<String>,
    location: String,
}

thread_local! {
    static LAST_PANIC: RefCell<Option<Seen>> = const { RefCell::new(None) };
}

/// Installs the addon's quiet panic hook, once per process.
fn install_hook() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let seen = Seen {
                message: panic_text(info.payload()),
                location: info.location().map_or_else(
                    || "an unknown location".to_owned(),
                    |at| format!("{}:{}:{}", at.file(), at.line(), at.column()),
                ),
            };
            // `try_*`: the thread may be tearing down its locals, or panicking inside a borrow.
            let _ = LAST_PANIC.try_with(|last| {
                if let Ok(mut last) = last.try_borrow_mut() {
                    *last = Some(seen);
                }
            });
            // The unit tests' harness reports a failed assertion through the hook.
            if cfg!(test) || std::env::var_os("RUST_BACKTRACE").is_some() {
                default(info);
            }
        }));
    });
}

/// `text`, cut after [`MESSAGE_CHARS`] characters with the cut counted.
fn bounded(text: &str) -> String {
    match text.char_indices().nth(MESSAGE_CHARS) {
        None => text.to_owned(),
        Some((cut, _)) => format!(
            "{}… ({} more characters)",
            &text[..cut],
            text[cut..].chars().count()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block_on<F: Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime")
            .block_on(future)
    }

    #[test]
    fn a_panic_is_caught_with_its_message_and_location() {
        let line = line!() + 1;
        let caught = contain(EntryPoint::Footer, || -> u32 { panic!("boom {}", 7) });
        let panicked = caught.expect_err("the panic is caught");
        assert_eq!(panicked.entry, EntryPoint::Footer);
        let location = format!("{}:{line}:", file!());
        assert!(
            panicked.message.starts_with("boom 7 (at ") && panicked.message.contains(&location),
            "{}",
            panicked.message
        );
        assert!(
            panicked
                .to_string()
                .starts_with("engine panicked in footer: boom 7 (at "),
            "{panicked}"
        );
    }

    #[test]
    fn a_value_passes_through() {
        assert_eq!(contain(EntryPoint::StatusText, || 5), Ok(5));
        assert_eq!(
            block_on(contain_async(EntryPoint::Doctor, async { 6 })),
            Ok(6)
        );
    }

    #[test]
    fn a_panic_in_a_later_poll_is_caught() {
        let caught: Result<(), _> = block_on(contain_async(EntryPoint::ToolResult, async {
            // The first poll returns pending; the panic comes in the second.
            tokio::task::yield_now().await;
            panic!("after a yield");
        }));
        let panicked = caught.expect_err("the panic is caught");
        assert_eq!(panicked.entry, EntryPoint::ToolResult);
        assert!(
            panicked.message.starts_with("after a yield (at "),
            "{}",
            panicked.message
        );
    }

    #[test]
    fn a_payload_that_is_not_text_is_named() {
        let caught = contain(EntryPoint::TurnStart, || std::panic::panic_any(17_u8));
        assert!(
            caught
                .expect_err("caught")
                .message
                .starts_with("a panic without a message (at "),
        );
    }

    #[test]
    fn a_resumed_payload_does_not_take_an_older_location() {
        install_hook();
        // A panic contained elsewhere (as the engine contains a policy interpreter's) leaves the
        // hook's record of it on this thread.
        let _ = catch_unwind(|| panic!("first"));
        // `resume_unwind` skips the hook: the record of "first" must not be read as its location.
        let caught = contain(EntryPoint::TurnEnd, || {
            std::panic::resume_unwind(Box::new("second"))
        });
        assert_eq!(caught.expect_err("caught").message, "second");
    }

    #[test]
    fn the_message_is_escaped_and_bounded() {
        let caught = contain(EntryPoint::StatusText, || panic!("a\nb\u{1b}[31m"));
        assert!(
            caught
                .expect_err("caught")
                .message
                .starts_with("a\\nb\\u{1b}[31m (at "),
        );
        let long = "x".repeat(MESSAGE_CHARS + 5);
        let caught = contain(EntryPoint::StatusText, || {
            std::panic::resume_unwind(Box::new(long))
        });
        assert_eq!(
            caught.expect_err("caught").message,
            format!("{}… (5 more characters)", "x".repeat(MESSAGE_CHARS))
        );
    }

    #[test]
    fn the_first_panic_poisons() {
        let poison = Poison::default();
        assert_eq!(poison.get(), None);
        let first = contain(EntryPoint::ToolResult, || panic!("first")).expect_err("caught");
        poison.record(first.clone());
        poison.record(contain(EntryPoint::Footer, || panic!("second")).expect_err("caught"));
        assert_eq!(poison.get(), Some(&first));
    }
}

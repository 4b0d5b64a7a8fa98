//! Maps engine errors to JS errors: `Error` objects whose `code` says what went wrong.

use napi::{Error, Status};
use pi_native_hooks::text::escape;

/// A JS error with `code` (e.g. `PNH_INVALID_EVENT`) and a message naming what to do, its
/// control characters escaped (the extension shows it to the user).
pub(crate) fn js_error(code: &str, message: impl std::fmt::Display) -> Error {
    let message = message.to_string();
    Error::new(
        Status::GenericFailure,
        format!("{code}: {}", escape(&message)),
    )
}

/// An event object that does not have the shape Pi sends.
pub(crate) fn invalid_event(what: &str, error: impl std::fmt::Display) -> Error {
    js_error(
        "PNH_INVALID_EVENT",
        format!("{what} does not have the shape Pi 1.6 sends: {error}"),
    )
}

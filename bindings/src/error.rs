//! Maps engine errors to JS errors: `Error` objects whose `code` says what went wrong.

use napi::{Error, Status};

/// A JS error with `code` (e.g. `PNH_INVALID_EVENT`) and a message naming what to do.
pub(crate) fn js_error(code: &str, message: impl std::fmt::Display) -> Error {
    Error::new(Status::GenericFailure, format!("{code}: {message}"))
}

/// An event object that does not have the shape Pi sends.
pub(crate) fn invalid_event(what: &str, error: impl std::fmt::Display) -> Error {
    js_error(
        "PNH_INVALID_EVENT",
        format!("{what} does not have the shape Pi 1.6 sends: {error}"),
    )
}

//! Owns why a language server could not be used, and how an async-lsp failure becomes one: an
//! error the server answered, or an answer that cannot be read, names the request; anything else
//! means the connection is gone, and the reason it ended says why.

use std::path::PathBuf;
use std::time::Duration;

/// Why a server could not be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ServerError {
    /// The executable could not be started.
    #[error("could not start {}: {reason}", .executable.display())]
    Spawn {
        /// The executable.
        executable: PathBuf,
        /// The operating system's error.
        reason: String,
    },
    /// The server stopped or cut its connection (crashed, killed, flooded its output).
    #[error("the server stopped: {0}")]
    Stopped(String),
    /// The server answered a request with an error or with something unreadable.
    #[error("the server answered `{method}` with an error: {message}")]
    Answered {
        /// The request.
        method: &'static str,
        /// Its error.
        message: String,
    },
    /// The server did not finish starting within its deadline.
    #[error("the server did not start within {} ms", .0.as_millis())]
    StartTimedOut(Duration),
    /// The server did not answer a request by the caller's deadline. The request may still be
    /// answered later; this answer is not waited for.
    #[error("the server did not answer `{method}` in time")]
    TimedOut {
        /// The request.
        method: &'static str,
    },
}

/// A request that failed: answered with an error or unreadable (named), or not answered at all
/// (the connection's reason decides, once known).
pub(crate) enum RequestFailure {
    Named(ServerError),
    Connection(async_lsp::Error),
}

impl RequestFailure {
    pub(crate) fn of(method: &'static str, error: async_lsp::Error) -> Self {
        match error {
            async_lsp::Error::Response(response) => Self::Named(ServerError::Answered {
                method,
                message: response.message,
            }),
            async_lsp::Error::Deserialize(error) => Self::Named(ServerError::Answered {
                method,
                message: format!("an answer that cannot be read: {error}"),
            }),
            other => Self::Connection(other),
        }
    }

    /// The error, with `stopped` saying why the connection is gone when it is.
    pub(crate) fn or(self, stopped: impl FnOnce(async_lsp::Error) -> ServerError) -> ServerError {
        match self {
            Self::Named(error) => error,
            Self::Connection(error) => stopped(error),
        }
    }
}

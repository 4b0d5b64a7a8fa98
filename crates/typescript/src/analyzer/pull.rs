//! Owns asking a server for the diagnostics of a set of files at once, each answer bounded by the
//! wave's deadline, reusing an answer pulled at the server's current generation, and turning the
//! diagnostics into findings of the text the server judged.

use super::memory::Answer;
use crate::convert;
use crate::server::TypeScriptServer;
use pi_native_hooks_analysis::{Finding, SkipReason};
use pi_native_hooks_base::BoundedMap;
use pi_native_hooks_lsp::{ServerError, within};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// Why a file's diagnostics were not pulled.
#[derive(Debug)]
pub(super) enum PullFailure {
    /// Not answered by the wave's deadline (pending: asked again with a later wave).
    TimedOut,
    /// The file cannot be read.
    Unreadable(SkipReason),
    /// The server could not answer.
    Server(ServerError),
}

/// The findings of each target, pulled or reused.
#[derive(Default)]
pub(super) struct Pulled {
    pub(super) results: Vec<(String, Result<Vec<Finding>, PullFailure>)>,
    /// Requests sent.
    pub(super) asked: usize,
    /// Answers reused.
    pub(super) reused: usize,
}

/// Asks `server` for the diagnostics of every target at once, each answer bounded by `deadline`;
/// reuses an answer `config`'s server gave at its current generation. A target not open in the
/// server is judged as `disk` holds it.
pub(super) async fn pull(
    server: &TypeScriptServer,
    answers: &BoundedMap<String, Answer>,
    config: &Path,
    disk: &HashMap<String, Arc<str>>,
    targets: &[String],
    deadline: tokio::time::Instant,
) -> Pulled {
    let generation = server.generation();
    let mut pulled = Pulled::default();
    let mut requests = Vec::new();
    for path in targets {
        if let Some(answer) = answers.get(path)
            && answer.generation == generation
            && answer.config == config
        {
            pulled.reused += 1;
            pulled
                .results
                .push((path.clone(), Ok(answer.findings.clone())));
            continue;
        }
        // Past the deadline nothing is asked: an answer that happened to come first would make a
        // wait of 0 ("never wait") sometimes wait.
        if tokio::time::Instant::now() >= deadline {
            pulled
                .results
                .push((path.clone(), Err(PullFailure::TimedOut)));
            continue;
        }
        // The text the server judges: the open document, else the file on disk.
        let Some(text) = server
            .open_text(path)
            .or_else(|| disk.get(path).map(Arc::clone))
        else {
            pulled.results.push((
                path.clone(),
                Err(PullFailure::Unreadable(SkipReason::Vanished)),
            ));
            continue;
        };
        let request = within(deadline, "diagnostics", server.diagnostics(path));
        let path = path.clone();
        requests.push(async move {
            let result = match request.await {
                Ok(diagnostics) => Ok(convert::findings(&path, &text, &diagnostics)),
                Err(ServerError::TimedOut { .. }) => Err(PullFailure::TimedOut),
                Err(error) => Err(PullFailure::Server(error)),
            };
            (path, result)
        });
    }
    pulled.asked = requests.len();
    pulled
        .results
        .extend(futures::future::join_all(requests).await);
    pulled
}

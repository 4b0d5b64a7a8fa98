//! A bench seam, not an API: the language server driven directly, with none of the analyzer's
//! work around it, so `benches/benches/typescript.rs` can measure the floor of a wave's type
//! check — what the server itself takes to take a change and answer the pulls — with the same
//! client the analyzer uses. Nothing in the engine uses it.

use crate::install::ServerCommand;
use crate::server::{LanguageServer, ServerError};
use std::path::Path;
use std::sync::Arc;

/// One language server without the analyzer: start it, change a document, pull diagnostics.
pub struct Floor {
    server: LanguageServer,
}

impl Floor {
    /// Starts `executable --lsp --stdio` for the project in `project_dir` exactly as the analyzer
    /// does (same initialization, same output budget per pull); documents are named relative to
    /// `root`. Unbounded in time: the caller bounds it.
    pub async fn start(
        executable: &Path,
        project_dir: &Path,
        root: &Path,
        output_bytes: u64,
    ) -> Result<Self, ServerError> {
        let command = ServerCommand::Native {
            compiler: executable.to_path_buf(),
        };
        // A native compiler takes no memory bound at start (the analyzer enforces it after).
        LanguageServer::start(&command, project_dir, root, output_bytes, u64::MAX)
            .await
            .map(|server| Self { server })
    }

    /// Makes the server judge `text` as the content of `path`: `didOpen` the first time,
    /// `didChange` with the full text after (nothing when it already holds that text).
    pub fn sync(&mut self, path: &str, text: &Arc<str>) -> Result<(), ServerError> {
        self.server.sync(path, Some(text))
    }

    /// Pulls the diagnostics of every path at once, as the analyzer does, and returns how many
    /// each has. Unbounded in time: the caller bounds it.
    pub async fn pull(&self, paths: &[String]) -> Result<Vec<usize>, ServerError> {
        self.server.renew_budget();
        let requests = paths.iter().map(|path| self.server.diagnostics(path));
        futures::future::join_all(requests)
            .await
            .into_iter()
            .map(|answer| answer.map(|diagnostics| diagnostics.len()))
            .collect()
    }

    /// The server's resident memory in bytes, where the system tells it (Linux).
    pub fn resident_bytes(&self) -> Option<u64> {
        self.server.resident_bytes()
    }

    /// The server's process id.
    pub fn pid(&self) -> Option<u32> {
        self.server.pid()
    }
}

//! Owns what is TypeScript's about its language server: how it is started — the project's native
//! compiler as `tsc --lsp --stdio` (TypeScript 7 or later), or typescript-language-server over
//! the project's `tsserver` (before 7) — and the two dialects it is asked in. Running it (the
//! process, the session, documents, requests, the pool) is the lsp crate's.
//!
//! Both are asked, never waited on: TypeScript 7 answers `textDocument/diagnostic`; for
//! `tsserver`, whose bridge only pushes (and pushes nothing for a file that stays clean), the
//! bridge's `typescript.tsserverRequest` command runs tsserver's own `syntacticDiagnosticsSync`
//! and `semanticDiagnosticsSync` for the file (`tsserver`), so a clean file answers at once, with
//! its version's diagnostics and no settle to wait out.

mod tsserver;

use crate::install::ServerCommand;
use futures::future::{BoxFuture, Either};
use pi_native_hooks_lsp::lsp_types::{Diagnostic, FileChangeType};
use pi_native_hooks_lsp::{LanguageServer, Launch, PooledServer, ServerError};
use std::future::Future;
use std::ops::{Deref, DerefMut};
use std::path::Path;

/// The preferences that turn automatic type acquisition off.
static ATA_OFF: std::sync::LazyLock<serde_json::Value> = std::sync::LazyLock::new(
    || serde_json::json!({ "tsserver": { "automaticTypeAcquisition": { "enabled": false } } }),
);

/// How a server is asked for a file's diagnostics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dialect {
    /// `textDocument/diagnostic` (TypeScript 7).
    Pull,
    /// tsserver's own requests through typescript-language-server's `typescript.tsserverRequest`.
    Tsserver,
}

/// How the analyzer starts the server `command` names for the project in `project_dir`: the
/// launch the benches start too, to measure the same server. `memory_bytes` bounds tsserver's
/// heap (a native compiler takes no bound at start; the pool enforces it after each wave).
pub fn launch(command: &ServerCommand, project_dir: &Path, memory_bytes: u64) -> Launch {
    let mut launch = match command {
        ServerCommand::Native { compiler } => {
            let mut launch = Launch::new(compiler, project_dir).args(["--lsp", "--stdio"]);
            // No push diagnostics (the analyzer pulls) and no logs.
            launch.initialization_options = Some(serde_json::json!({
                "disablePushDiagnostics": true,
                "logVerbosity": 0,
                "userPreferences": ATA_OFF.clone(),
            }));
            launch
        }
        ServerCommand::Tsserver { lib, bridge } => {
            let mut launch = Launch::new(&bridge.node, project_dir)
                .args([bridge.cli.as_os_str(), "--stdio".as_ref()]);
            // One tsserver (not a syntax and a semantic one), no logs, its heap bounded by the
            // memory budget, and the project's TypeScript, never the bridge's own search.
            launch.initialization_options = Some(serde_json::json!({
                "tsserver": {
                    "path": lib,
                    "useSyntaxServer": "never",
                    "logVerbosity": "off",
                },
                "disableAutomaticTypingAcquisition": true,
                "maxTsServerMemory": memory_bytes / (1024 * 1024),
                "hostInfo": "pi-native-hooks",
            }));
            launch
        }
    };
    // Never automatic type acquisition: left on, the server runs `npm install` for types on its
    // own, on the network and in the user's cache, whenever it makes an inferred project. Every
    // configuration item it asks for says so too (a `null` answer would turn it back on).
    launch.configuration = ATA_OFF.clone();
    launch
}

/// One running TypeScript language server for one project: a language server and its dialect.
pub(crate) struct TypeScriptServer {
    server: LanguageServer,
    dialect: Dialect,
}

impl TypeScriptServer {
    /// Starts the server `command` names in `project_dir`; documents are named relative to
    /// `root`. Unbounded in time: the caller bounds it.
    pub(crate) async fn start(
        command: &ServerCommand,
        project_dir: &Path,
        root: &Path,
        output_bytes: u64,
        memory_bytes: u64,
    ) -> Result<Self, ServerError> {
        let dialect = match command {
            ServerCommand::Native { .. } => Dialect::Pull,
            ServerCommand::Tsserver { .. } => Dialect::Tsserver,
        };
        let launch = launch(command, project_dir, memory_bytes);
        let server = LanguageServer::start(&launch, root, output_bytes).await?;
        Ok(Self { server, dialect })
    }

    /// Tells the server `paths` changed on disk. TypeScript 7 never looks by itself, and judges
    /// a file it has not opened as it last read it; tsserver watches the files it has not been
    /// given itself, so only the generation moves.
    pub(crate) fn changed_on_disk(&mut self, paths: &[&str]) -> Result<(), ServerError> {
        if paths.is_empty() {
            return Ok(());
        }
        if self.dialect == Dialect::Tsserver {
            self.server.changed_elsewhere();
            return Ok(());
        }
        let changes: Vec<(&str, FileChangeType)> = paths
            .iter()
            .map(|path| (*path, FileChangeType::CHANGED))
            .collect();
        self.server.files_changed(&changes)
    }

    /// Makes the server read its project configuration again after `paths` (a `tsconfig.json`, a
    /// `package.json` …) changed on disk: TypeScript 7 is told they changed; tsserver is asked
    /// to reload its projects, ahead of any later request (its own file watching would race with
    /// the next check). Unbounded in time: the caller bounds it.
    pub(crate) async fn reload_config(&mut self, paths: &[&str]) -> Result<(), ServerError> {
        if paths.is_empty() {
            return Ok(());
        }
        match self.dialect {
            Dialect::Pull => {
                let changes: Vec<(&str, FileChangeType)> = paths
                    .iter()
                    .map(|path| {
                        let typ = if self.server.file(path).exists() {
                            FileChangeType::CHANGED
                        } else {
                            FileChangeType::DELETED
                        };
                        (*path, typ)
                    })
                    .collect();
                self.server.files_changed(&changes)
            }
            Dialect::Tsserver => {
                tsserver::reload_projects(&self.server).await?;
                self.server.changed_elsewhere();
                Ok(())
            }
        }
    }

    /// A request for the diagnostics of `path` as the server now sees it. The future owns what
    /// it needs, so several can run at once; the caller bounds each with its deadline.
    pub(crate) fn diagnostics(
        &self,
        path: &str,
    ) -> impl Future<Output = Result<Vec<Diagnostic>, ServerError>> + Send + use<> {
        match self.dialect {
            Dialect::Pull => Either::Left(self.server.pull(path)),
            Dialect::Tsserver => Either::Right(tsserver::diagnostics(&self.server, path)),
        }
    }
}

/// A TypeScript server is a language server with a dialect: everything else (documents, the
/// budget, memory, its end) is the language server's.
impl Deref for TypeScriptServer {
    type Target = LanguageServer;

    fn deref(&self) -> &LanguageServer {
        &self.server
    }
}

impl DerefMut for TypeScriptServer {
    fn deref_mut(&mut self) -> &mut LanguageServer {
        &mut self.server
    }
}

impl PooledServer for TypeScriptServer {
    fn stopped(&mut self) -> Option<String> {
        self.server.stopped()
    }

    fn resident_bytes(&self) -> Option<u64> {
        self.server.resident_bytes()
    }

    fn kill(&mut self) {
        self.server.kill();
    }

    fn shut_down(self) -> BoxFuture<'static, ()> {
        self.server.shut_down()
    }
}

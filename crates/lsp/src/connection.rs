//! Owns one LSP session with a server, over async-lsp's client main loop on the caller's tokio
//! runtime: `initialize`, the documents the client holds open with their text (the server's view
//! of each file, kept in step by one incremental edit per change where the server takes them),
//! a generation counting every change sent (an answer pulled at one generation holds until the
//! next), diagnostics pulled or pushed, any other request, and the end of the session. A server
//! started here ([`LanguageServer::start`]) is a process of its own, stopped with the session.
//!
//! Every wait is the caller's: a request is a future that owns what it needs (several can run at
//! once), and the caller bounds it, with [`within`] or its own deadline.

use crate::client::{self, Stop};
use crate::edit;
use crate::error::{RequestFailure, ServerError};
use crate::launch::{DiagnosticMode, Launch, language_id};
use crate::memory;
use crate::output::{BoundedOutput, OutputBudget};
use crate::process::ServerProcess;
use crate::shared::Shared;
use async_lsp::{MainLoop, ServerSocket};
use lsp_types::notification::{
    DidChangeTextDocument, DidChangeWatchedFiles, DidCloseTextDocument, DidOpenTextDocument, Exit,
    Initialized,
};
use lsp_types::request::{Initialize, Request, Shutdown};
use lsp_types::{
    ClientCapabilities, Diagnostic, DiagnosticClientCapabilities, DidChangeTextDocumentParams,
    DidChangeWatchedFilesParams, DidCloseTextDocumentParams, DidOpenTextDocumentParams,
    DocumentDiagnosticReport, DocumentDiagnosticReportResult, FileChangeType, FileEvent,
    InitializeParams, InitializedParams, PublishDiagnosticsClientCapabilities,
    TextDocumentClientCapabilities, TextDocumentContentChangeEvent, TextDocumentIdentifier,
    TextDocumentItem, TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions,
    Url, VersionedTextDocumentIdentifier, WorkspaceFolder,
};
use std::collections::HashMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::compat::{TokioAsyncReadCompatExt, TokioAsyncWriteCompatExt};

/// How long a stopping server is given to exit after `shutdown` and `exit`.
const EXIT_GRACE: Duration = Duration::from_secs(1);

/// A document the server holds open: the text it judges instead of the file on disk.
#[derive(Clone, Debug)]
struct OpenDocument {
    version: i32,
    text: Arc<str>,
}

/// One running language server: its session and, when started here, its process.
pub struct LanguageServer {
    socket: ServerSocket,
    process: Option<ServerProcess>,
    shared: Arc<Shared>,
    budget: OutputBudget,
    /// The repository root document paths are relative to.
    root: PathBuf,
    open: HashMap<String, OpenDocument>,
    generation: u64,
    /// Whether the server takes incremental changes (it says so when it starts); else every
    /// change sends the whole text.
    incremental: bool,
    mode: DiagnosticMode,
}

impl LanguageServer {
    /// Starts `launch`'s server (in a process group of its own, so what it spawns stops with it)
    /// and initializes it; documents are named relative to `root`, and the server may send at
    /// most `output_bytes` between two renewals of its budget. Spawns the main loop on the
    /// current tokio runtime. Unbounded in time: the caller bounds it.
    pub async fn start(
        launch: &Launch,
        root: &Path,
        output_bytes: u64,
    ) -> Result<Self, ServerError> {
        let shared = Arc::new(Shared::default());
        let (process, stdin, stdout) = ServerProcess::spawn(launch, &shared)?;
        let mut server = Self::over(stdout, stdin, launch, root, output_bytes, shared);
        server.process = Some(process);
        server.initialize(launch).await?;
        Ok(server)
    }

    /// A session with a server already running at the other end of `reader` and `writer`,
    /// initialized as [`LanguageServer::start`] initializes one (a server in this process, as
    /// the tests run one).
    pub async fn connect(
        reader: impl AsyncRead + Send + Unpin + 'static,
        writer: impl AsyncWrite + Send + Unpin + 'static,
        launch: &Launch,
        root: &Path,
        output_bytes: u64,
    ) -> Result<Self, ServerError> {
        let shared = Arc::new(Shared::default());
        let mut server = Self::over(reader, writer, launch, root, output_bytes, shared);
        server.initialize(launch).await?;
        Ok(server)
    }

    fn over(
        reader: impl AsyncRead + Send + Unpin + 'static,
        writer: impl AsyncWrite + Send + Unpin + 'static,
        launch: &Launch,
        root: &Path,
        output_bytes: u64,
        shared: Arc<Shared>,
    ) -> Self {
        let pushes = (launch.diagnostics == DiagnosticMode::Push).then(|| Arc::clone(&shared));
        let configuration = launch.configuration.clone();
        let (main_loop, socket) =
            MainLoop::new_client(move |_| client::router(configuration, pushes));
        let budget = OutputBudget::new(output_bytes);
        let reader = BoundedOutput::new(reader, budget.clone()).compat();
        let ended = Arc::clone(&shared);
        tokio::spawn(async move {
            let reason = match main_loop.run_buffered(reader, writer.compat_write()).await {
                Ok(()) => "the connection closed".to_owned(),
                Err(async_lsp::Error::Eof) => "its output ended (the process exited)".to_owned(),
                Err(error) => error.to_string(),
            };
            ended.end(reason);
        });
        Self {
            socket,
            process: None,
            shared,
            budget,
            root: root.to_path_buf(),
            open: HashMap::new(),
            generation: 0,
            incremental: false,
            mode: launch.diagnostics,
        }
    }

    async fn initialize(&mut self, launch: &Launch) -> Result<(), ServerError> {
        let folder = Url::from_file_path(&launch.dir).map_err(|()| ServerError::Spawn {
            executable: launch.dir.clone(),
            reason: "the project folder is not an absolute path".to_owned(),
        })?;
        let text_document = match launch.diagnostics {
            DiagnosticMode::Pull => TextDocumentClientCapabilities {
                diagnostic: Some(DiagnosticClientCapabilities {
                    dynamic_registration: Some(false),
                    related_document_support: Some(false),
                }),
                ..TextDocumentClientCapabilities::default()
            },
            DiagnosticMode::Push => TextDocumentClientCapabilities {
                publish_diagnostics: Some(PublishDiagnosticsClientCapabilities {
                    version_support: Some(true),
                    ..PublishDiagnosticsClientCapabilities::default()
                }),
                ..TextDocumentClientCapabilities::default()
            },
        };
        #[expect(
            deprecated,
            reason = "root_uri is still read by servers that predate folders"
        )]
        let params = InitializeParams {
            process_id: Some(std::process::id()),
            root_uri: Some(folder.clone()),
            workspace_folders: Some(vec![WorkspaceFolder {
                uri: folder,
                name: "project".to_owned(),
            }]),
            capabilities: ClientCapabilities {
                text_document: Some(text_document),
                ..ClientCapabilities::default()
            },
            initialization_options: launch.initialization_options.clone(),
            ..InitializeParams::default()
        };
        let initialized = self
            .socket
            .request::<Initialize>(params)
            .await
            .map_err(|e| self.request_error(Initialize::METHOD, e))?;
        self.incremental = matches!(
            initialized.capabilities.text_document_sync,
            Some(
                TextDocumentSyncCapability::Kind(TextDocumentSyncKind::INCREMENTAL)
                    | TextDocumentSyncCapability::Options(TextDocumentSyncOptions {
                        change: Some(TextDocumentSyncKind::INCREMENTAL),
                        ..
                    })
            )
        );
        self.socket
            .notify::<Initialized>(InitializedParams {})
            .map_err(|e| self.request_error("initialized", e))?;
        Ok(())
    }

    /// Why the server can no longer be used, if it cannot: its connection ended or its process
    /// exited.
    pub fn stopped(&mut self) -> Option<String> {
        if let Some(reason) = self.shared.ended() {
            return Some(self.shared.with_stderr(reason));
        }
        let exited = self.process.as_mut()?.exited()?;
        Some(self.shared.with_stderr(exited))
    }

    fn request_error(&self, method: &'static str, error: async_lsp::Error) -> ServerError {
        RequestFailure::of(method, error).or(|e| self.shared.stopped(&e))
    }

    /// Gives the server its whole output budget again (once per wave).
    pub fn renew_budget(&self) {
        self.budget.renew();
    }

    /// Counts every change sent; an answer pulled at one generation holds until the next.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The text the server holds open for `path`, if any.
    pub fn open_text(&self, path: &str) -> Option<Arc<str>> {
        self.open.get(path).map(|doc| Arc::clone(&doc.text))
    }

    /// How many documents the server holds open.
    pub fn open_count(&self) -> usize {
        self.open.len()
    }

    /// The file `path` (relative to the root) names.
    pub fn file(&self, path: &str) -> PathBuf {
        self.root.join(path)
    }

    /// Makes the server judge `text` as the content of `path` (`None`: the file as on disk, or
    /// absent). Sends nothing when it already does.
    pub fn sync(&mut self, path: &str, text: Option<&Arc<str>>) -> Result<(), ServerError> {
        let uri = self.uri(path)?;
        match (self.open.get_mut(path), text) {
            (Some(doc), Some(text)) if doc.text == *text => return Ok(()),
            (Some(doc), Some(text)) => {
                // One edit from the common prefix to the common suffix of the two texts, where
                // the server takes it: what an editor sends for a change in one place.
                let change = match self.incremental.then(|| edit::single(&doc.text, text)) {
                    Some(Some(edit)) => TextDocumentContentChangeEvent {
                        range: Some(edit.range),
                        range_length: None,
                        text: edit.text,
                    },
                    _ => TextDocumentContentChangeEvent {
                        range: None,
                        range_length: None,
                        text: text.to_string(),
                    },
                };
                doc.version += 1;
                doc.text = Arc::clone(text);
                let params = DidChangeTextDocumentParams {
                    text_document: VersionedTextDocumentIdentifier {
                        uri,
                        version: doc.version,
                    },
                    content_changes: vec![change],
                };
                self.socket
                    .notify::<DidChangeTextDocument>(params)
                    .map_err(|e| self.request_error("textDocument/didChange", e))?;
            }
            (None, Some(text)) => {
                if self.mode == DiagnosticMode::Push {
                    self.shared.pushes.watch(&uri);
                }
                let params = DidOpenTextDocumentParams {
                    text_document: TextDocumentItem {
                        uri,
                        language_id: language_id(path).to_owned(),
                        version: 1,
                        text: text.to_string(),
                    },
                };
                self.socket
                    .notify::<DidOpenTextDocument>(params)
                    .map_err(|e| self.request_error("textDocument/didOpen", e))?;
                self.open.insert(
                    path.to_owned(),
                    OpenDocument {
                        version: 1,
                        text: Arc::clone(text),
                    },
                );
            }
            (Some(_), None) => {
                self.open.remove(path);
                self.shared.pushes.forget(&uri);
                let params = DidCloseTextDocumentParams {
                    text_document: TextDocumentIdentifier { uri },
                };
                self.socket
                    .notify::<DidCloseTextDocument>(params)
                    .map_err(|e| self.request_error("textDocument/didClose", e))?;
            }
            (None, None) => return Ok(()),
        }
        self.generation += 1;
        Ok(())
    }

    /// Tells the server files changed on disk (`workspace/didChangeWatchedFiles`): each path with
    /// how it changed.
    pub fn files_changed(&mut self, changes: &[(&str, FileChangeType)]) -> Result<(), ServerError> {
        if changes.is_empty() {
            return Ok(());
        }
        let mut events = Vec::with_capacity(changes.len());
        for (path, typ) in changes {
            events.push(FileEvent {
                uri: self.uri(path)?,
                typ: *typ,
            });
        }
        self.socket
            .notify::<DidChangeWatchedFiles>(DidChangeWatchedFilesParams { changes: events })
            .map_err(|e| self.request_error("workspace/didChangeWatchedFiles", e))?;
        self.generation += 1;
        Ok(())
    }

    /// Counts a change the server learned of without a notification from this session (by
    /// watching files itself, or through a request the caller sent): answers pulled before it no
    /// longer hold.
    pub fn changed_elsewhere(&mut self) {
        self.generation += 1;
    }

    /// A request of any kind. The future owns what it needs; an error the server answered, or
    /// an answer that cannot be read, names `R::METHOD`; a connection that is gone says why.
    pub fn request<R: Request>(
        &self,
        params: R::Params,
    ) -> impl Future<Output = Result<R::Result, ServerError>> + Send + use<R>
    where
        R::Params: Send,
        R::Result: Send,
    {
        let socket = self.socket.clone();
        let shared = Arc::clone(&self.shared);
        async move {
            socket
                .request::<R>(params)
                .await
                .map_err(|error| RequestFailure::of(R::METHOD, error).or(|e| shared.stopped(&e)))
        }
    }

    /// A request for the diagnostics of `path` as the server now sees it
    /// (`textDocument/diagnostic`, a full report).
    pub fn pull(
        &self,
        path: &str,
    ) -> impl Future<Output = Result<Vec<Diagnostic>, ServerError>> + Send + use<> {
        let request = self.uri(path).map(|uri| {
            self.request::<PullDiagnostics>(PullParams {
                text_document: TextDocumentIdentifier { uri },
            })
        });
        async move {
            match request?.await? {
                DocumentDiagnosticReportResult::Report(DocumentDiagnosticReport::Full(report)) => {
                    Ok(report.full_document_diagnostic_report.items)
                }
                _ => Err(ServerError::Answered {
                    method: PullDiagnostics::METHOD,
                    message: "a partial or unchanged report, which was not asked for".to_owned(),
                }),
            }
        }
    }

    /// The diagnostics the server pushes for the open document `path` at the version it now
    /// holds: waits for a push with that version, never taking an earlier version's (or one
    /// without a version) for it. Only in push mode; the caller bounds the wait.
    pub fn pushed(
        &self,
        path: &str,
    ) -> impl Future<Output = Result<Vec<Diagnostic>, ServerError>> + Send + use<> {
        let method = "textDocument/publishDiagnostics";
        let asked = match (self.mode, self.open.get(path)) {
            (DiagnosticMode::Push, Some(doc)) => self.uri(path).map(|uri| (uri, doc.version)),
            (DiagnosticMode::Pull, _) => Err(ServerError::Answered {
                method,
                message: "the server was started to be asked, not to push".to_owned(),
            }),
            (DiagnosticMode::Push, None) => Err(ServerError::Answered {
                method,
                message: format!("{path} is not open"),
            }),
        };
        let shared = Arc::clone(&self.shared);
        async move {
            let (uri, version) = asked?;
            loop {
                let mut next = std::pin::pin!(shared.pushes.next());
                next.as_mut().enable();
                if let Some(diagnostics) = shared.pushes.at(&uri, version) {
                    return Ok(diagnostics);
                }
                if let Some(reason) = shared.ended() {
                    return Err(ServerError::Stopped(shared.with_stderr(reason)));
                }
                next.await;
            }
        }
    }

    /// Pushes received for the open document `path` since it was opened.
    pub fn pushes_received(&self, path: &str) -> usize {
        self.uri(path)
            .map_or(0, |uri| self.shared.pushes.count(&uri))
    }

    /// The resident memory of the server and the processes it started, in bytes, where the
    /// system tells it (Linux, macOS).
    pub fn resident_bytes(&self) -> Option<u64> {
        memory::resident_bytes(self.pid()?)
    }

    /// The server's process id, when it was started here.
    pub fn pid(&self) -> Option<u32> {
        self.process.as_ref()?.pid()
    }

    /// Asks the server to shut down and exit, and kills it and its group when it has not within
    /// a second.
    pub async fn stop(mut self) {
        let socket = self.socket.clone();
        let _ = tokio::time::timeout(EXIT_GRACE, async move {
            let _ = socket.request::<Shutdown>(()).await;
            let _ = socket.notify::<Exit>(());
        })
        .await;
        if let Some(process) = &mut self.process {
            process.wait_or_kill(EXIT_GRACE).await;
        }
    }

    /// Kills the process and what it started at once.
    pub fn kill(&mut self) {
        if let Some(process) = &mut self.process {
            process.kill();
        }
    }

    fn uri(&self, path: &str) -> Result<Url, ServerError> {
        Url::from_file_path(self.root.join(path)).map_err(|()| ServerError::Answered {
            method: "uri",
            message: format!("{path} is not a file path"),
        })
    }
}

impl Drop for LanguageServer {
    fn drop(&mut self) {
        let _ = self.socket.emit(Stop);
        if let Some(process) = &self.process {
            process.kill_group();
        }
    }
}

/// `request`, or [`ServerError::TimedOut`] naming `method` when it is not answered by `deadline`.
pub async fn within<T>(
    deadline: tokio::time::Instant,
    method: &'static str,
    request: impl Future<Output = Result<T, ServerError>>,
) -> Result<T, ServerError> {
    tokio::time::timeout_at(deadline, request)
        .await
        .unwrap_or(Err(ServerError::TimedOut { method }))
}

/// `textDocument/diagnostic` with only the document: lsp-types writes its optional fields as
/// `null`, which TypeScript 7 refuses (`null value is not allowed for field "identifier"`).
enum PullDiagnostics {}

impl Request for PullDiagnostics {
    type Params = PullParams;
    type Result = DocumentDiagnosticReportResult;
    const METHOD: &'static str = "textDocument/diagnostic";
}

#[derive(Debug, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct PullParams {
    text_document: TextDocumentIdentifier,
}

#[cfg(test)]
mod tests;

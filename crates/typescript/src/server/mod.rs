//! Owns one TypeScript language server, spoken to over async-lsp's client main loop on the
//! engine's tokio runtime: the project's native compiler run as `tsc --lsp --stdio` (TypeScript
//! 7 or later), or typescript-language-server over the project's `tsserver` (before 7). It knows
//! which documents it has opened with which text (the server's view of each file), counts every
//! change it sends (a generation, so an answer is reused only while nothing changed since), pulls
//! a document's diagnostics, reports the memory of its processes, and is stopped when dropped
//! (its process group is killed with it).
//!
//! Both are asked, never waited on: TypeScript 7 answers `textDocument/diagnostic`; for
//! `tsserver`, whose bridge only pushes (and pushes nothing for a file that stays clean), the
//! bridge's `typescript.tsserverRequest` command runs tsserver's own `syntacticDiagnosticsSync`
//! and `semanticDiagnosticsSync` for the file, so a clean file answers at once, with its
//! version's diagnostics and no settle to wait out.
//!
//! Every wait here is the caller's: a request is a future the caller bounds with its deadline.

mod edit;
pub(crate) mod output;

use crate::install::ServerCommand;
use async_lsp::router::Router;
use async_lsp::{MainLoop, ServerSocket};
use lsp_types::notification::{
    DidChangeTextDocument, DidChangeWatchedFiles, DidCloseTextDocument, DidOpenTextDocument, Exit,
    Initialized,
};
use lsp_types::request::{
    ExecuteCommand, Initialize, RegisterCapability, Shutdown, UnregisterCapability,
    WorkDoneProgressCreate, WorkspaceConfiguration,
};
use lsp_types::{
    ClientCapabilities, Diagnostic, DiagnosticClientCapabilities, DiagnosticSeverity,
    DidChangeTextDocumentParams, DidChangeWatchedFilesParams, DidCloseTextDocumentParams,
    DidOpenTextDocumentParams, DocumentDiagnosticReport, DocumentDiagnosticReportResult,
    ExecuteCommandParams, FileChangeType, FileEvent, InitializeParams, InitializedParams,
    NumberOrString, Position, Range, TextDocumentClientCapabilities,
    TextDocumentContentChangeEvent, TextDocumentIdentifier, TextDocumentItem,
    TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions, Url,
    VersionedTextDocumentIdentifier, WorkDoneProgressParams, WorkspaceFolder,
};
use output::{BoundedOutput, OutputBudget};
use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::io::AsyncReadExt;
use tokio::process::{Child, Command};
use tokio_util::compat::{TokioAsyncReadCompatExt, TokioAsyncWriteCompatExt};

/// The preferences that turn automatic type acquisition off.
static ATA_OFF: std::sync::LazyLock<serde_json::Value> = std::sync::LazyLock::new(
    || serde_json::json!({ "tsserver": { "automaticTypeAcquisition": { "enabled": false } } }),
);

/// The bytes of a server's standard error kept to explain why it stopped.
const STDERR_TAIL_BYTES: usize = 2048;
/// How long a stopping server is given to exit after `shutdown` and `exit`.
const EXIT_GRACE: Duration = Duration::from_secs(1);

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
}

/// A document the server holds open: the text it judges instead of the file on disk.
#[derive(Clone, Debug)]
struct OpenDocument {
    version: i32,
    text: Arc<str>,
}

/// How a server is asked for a file's diagnostics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dialect {
    /// `textDocument/diagnostic` (TypeScript 7).
    Pull,
    /// tsserver's own requests through typescript-language-server's `typescript.tsserverRequest`.
    Tsserver,
}

/// One running language server for one project.
pub(crate) struct LanguageServer {
    dialect: Dialect,
    socket: ServerSocket,
    child: Child,
    pid: Option<u32>,
    /// Set when the main loop ends: why the connection is gone.
    ended: Arc<Mutex<Option<String>>>,
    stderr_tail: Arc<Mutex<VecDeque<u8>>>,
    budget: OutputBudget,
    /// The repository root document paths are relative to.
    root: PathBuf,
    open: HashMap<String, OpenDocument>,
    generation: u64,
    /// Whether the server takes incremental changes (it says so when it starts); else every
    /// change sends the whole text.
    incremental: bool,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl LanguageServer {
    /// Starts the server `command` names in `project_dir` (in a process group of its own, so
    /// what it spawns stops with it) and initializes it for the workspace folder `project_dir`;
    /// documents are named relative to `root`. Spawns the main loop on the current tokio
    /// runtime. Unbounded in time: the caller bounds it.
    pub(crate) async fn start(
        command: &ServerCommand,
        project_dir: &Path,
        root: &Path,
        output_bytes: u64,
        memory_bytes: u64,
    ) -> Result<Self, ServerError> {
        let (mut process, executable, dialect, options) = match command {
            ServerCommand::Native { compiler } => {
                let mut process = Command::new(compiler);
                process.arg("--lsp").arg("--stdio");
                // No push diagnostics (the analyzer pulls) and no logs.
                let options = serde_json::json!({
                    "disablePushDiagnostics": true,
                    "logVerbosity": 0,
                    "userPreferences": ATA_OFF.clone(),
                });
                (process, compiler, Dialect::Pull, options)
            }
            ServerCommand::Tsserver { lib, bridge } => {
                let mut process = Command::new(&bridge.node);
                process.arg(&bridge.cli).arg("--stdio");
                // One tsserver (not a syntax and a semantic one), no logs, its heap bounded by the
                // memory budget, and the project's TypeScript, never the bridge's own search.
                let options = serde_json::json!({
                    "tsserver": {
                        "path": lib,
                        "useSyntaxServer": "never",
                        "logVerbosity": "off",
                    },
                    "disableAutomaticTypingAcquisition": true,
                    "maxTsServerMemory": memory_bytes / (1024 * 1024),
                    "hostInfo": "pi-native-hooks",
                });
                (process, &bridge.node, Dialect::Tsserver, options)
            }
        };
        let mut child = process
            .current_dir(project_dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true)
            .spawn()
            .map_err(|error| ServerError::Spawn {
                executable: executable.clone(),
                reason: error.to_string(),
            })?;
        let spawn_failed = |what: &str| ServerError::Spawn {
            executable: executable.clone(),
            reason: format!("no {what} pipe"),
        };
        let stdin = child.stdin.take().ok_or_else(|| spawn_failed("stdin"))?;
        let stdout = child.stdout.take().ok_or_else(|| spawn_failed("stdout"))?;
        let stderr = child.stderr.take().ok_or_else(|| spawn_failed("stderr"))?;
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        tokio::spawn(keep_tail(stderr, Arc::clone(&stderr_tail)));

        let (main_loop, socket) = MainLoop::new_client(|_| client_router());
        let budget = OutputBudget::new(output_bytes);
        let ended = Arc::new(Mutex::new(None));
        let reader = BoundedOutput::new(stdout, budget.clone()).compat();
        let ended_by_loop = Arc::clone(&ended);
        tokio::spawn(async move {
            let reason = match main_loop.run_buffered(reader, stdin.compat_write()).await {
                Ok(()) => "the connection closed".to_owned(),
                Err(async_lsp::Error::Eof) => "its output ended (the process exited)".to_owned(),
                Err(error) => error.to_string(),
            };
            *lock(&ended_by_loop) = Some(reason);
        });

        let mut server = Self {
            dialect,
            socket,
            pid: child.id(),
            child,
            ended,
            stderr_tail,
            budget,
            root: root.to_path_buf(),
            open: HashMap::new(),
            generation: 0,
            incremental: false,
        };
        server.initialize(project_dir, options).await?;
        Ok(server)
    }

    async fn initialize(
        &mut self,
        project_dir: &Path,
        options: serde_json::Value,
    ) -> Result<(), ServerError> {
        let folder = Url::from_file_path(project_dir).map_err(|()| ServerError::Spawn {
            executable: project_dir.to_path_buf(),
            reason: "the project folder is not an absolute path".to_owned(),
        })?;
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
                text_document: Some(TextDocumentClientCapabilities {
                    diagnostic: Some(DiagnosticClientCapabilities {
                        dynamic_registration: Some(false),
                        related_document_support: Some(false),
                    }),
                    ..TextDocumentClientCapabilities::default()
                }),
                ..ClientCapabilities::default()
            },
            // Never automatic type acquisition: left on, the server runs `npm install` for
            // types on its own, on the network and in the user's cache, whenever it makes an
            // inferred project.
            initialization_options: Some(options),
            ..InitializeParams::default()
        };
        let initialized = self
            .socket
            .request::<Initialize>(params)
            .await
            .map_err(|e| self.request_error("initialize", e))?;
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
    pub(crate) fn stopped(&mut self) -> Option<String> {
        if let Some(reason) = lock(&self.ended).clone() {
            return Some(self.with_stderr(reason));
        }
        match self.child.try_wait() {
            Ok(Some(status)) => Some(self.with_stderr(format!("the process exited ({status})"))),
            Ok(None) => None,
            Err(error) => Some(error.to_string()),
        }
    }

    fn with_stderr(&self, reason: String) -> String {
        let tail = lock(&self.stderr_tail);
        let text = String::from_utf8_lossy(tail.make_contiguous_copy().as_slice()).into_owned();
        let last = text.lines().rev().find(|l| !l.trim().is_empty());
        match last {
            Some(line) => format!("{reason}; it last wrote: {}", line.trim()),
            None => reason,
        }
    }

    fn request_error(&self, method: &'static str, error: async_lsp::Error) -> ServerError {
        match error {
            async_lsp::Error::Response(response) => ServerError::Answered {
                method,
                message: response.message,
            },
            async_lsp::Error::Deserialize(error) => ServerError::Answered {
                method,
                message: format!("an answer that cannot be read: {error}"),
            },
            other => {
                let reason = lock(&self.ended)
                    .clone()
                    .unwrap_or_else(|| other.to_string());
                ServerError::Stopped(self.with_stderr(reason))
            }
        }
    }

    /// Gives the server its whole output budget again (once per wave).
    pub(crate) fn renew_budget(&self) {
        self.budget.renew();
    }

    /// Counts every change sent; an answer pulled at one generation holds until the next.
    pub(crate) fn generation(&self) -> u64 {
        self.generation
    }

    /// The text the server holds open for `path`, if any.
    pub(crate) fn open_text(&self, path: &str) -> Option<Arc<str>> {
        self.open.get(path).map(|doc| Arc::clone(&doc.text))
    }

    /// How many documents the server holds open.
    pub(crate) fn open_count(&self) -> usize {
        self.open.len()
    }

    /// Makes the server judge `text` as the content of `path` (`None`: the file as on disk, or
    /// absent). Sends nothing when it already does.
    pub(crate) fn sync(&mut self, path: &str, text: Option<&Arc<str>>) -> Result<(), ServerError> {
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

    /// Tells the server `paths` changed on disk. TypeScript 7 never looks by itself, and judges
    /// a file it has not opened as it last read it; tsserver watches the files it has not been
    /// given itself, so only the generation moves.
    pub(crate) fn changed_on_disk(&mut self, paths: &[&str]) -> Result<(), ServerError> {
        if paths.is_empty() {
            return Ok(());
        }
        if self.dialect == Dialect::Tsserver {
            self.generation += 1;
            return Ok(());
        }
        let mut changes = Vec::with_capacity(paths.len());
        for path in paths {
            changes.push(FileEvent {
                uri: self.uri(path)?,
                typ: FileChangeType::CHANGED,
            });
        }
        self.socket
            .notify::<DidChangeWatchedFiles>(DidChangeWatchedFilesParams { changes })
            .map_err(|e| self.request_error("workspace/didChangeWatchedFiles", e))?;
        self.generation += 1;
        Ok(())
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
                let mut changes = Vec::with_capacity(paths.len());
                for path in paths {
                    let typ = if self.root.join(path).exists() {
                        FileChangeType::CHANGED
                    } else {
                        FileChangeType::DELETED
                    };
                    changes.push(FileEvent {
                        uri: self.uri(path)?,
                        typ,
                    });
                }
                self.socket
                    .notify::<DidChangeWatchedFiles>(DidChangeWatchedFilesParams { changes })
                    .map_err(|e| self.request_error("workspace/didChangeWatchedFiles", e))?;
            }
            Dialect::Tsserver => {
                // tsserver answers nothing to `reloadProjects`: the bridge must not wait for it.
                let params = ExecuteCommandParams {
                    command: TSSERVER_REQUEST.to_owned(),
                    arguments: vec![
                        serde_json::Value::from("reloadProjects"),
                        serde_json::json!({}),
                        serde_json::json!({ "expectsResult": false }),
                    ],
                    work_done_progress_params: WorkDoneProgressParams::default(),
                };
                // The bridge has queued the request for tsserver when it answers (at once: it
                // does not wait for tsserver), so every later request comes after it. Its 5.x
                // answers an error then (it expects a result where there is none): the request
                // went out all the same; only a lost connection is a failure.
                match self.socket.request::<ExecuteCommand>(params).await {
                    Ok(_) | Err(async_lsp::Error::Response(_)) => {}
                    Err(error) => return Err(self.request_error("reloadProjects", error)),
                }
            }
        }
        self.generation += 1;
        Ok(())
    }

    /// A request for the diagnostics of `path` as the server now sees it. The future owns what
    /// it needs, so several can run at once; the caller bounds each with its deadline.
    pub(crate) fn diagnostics(
        &self,
        path: &str,
    ) -> impl Future<Output = Result<Vec<Diagnostic>, ServerError>> + use<> {
        let socket = self.socket.clone();
        let uri = self.uri(path);
        let file = self.root.join(path);
        let ended = Arc::clone(&self.ended);
        let dialect = self.dialect;
        async move {
            let stopped = |other: async_lsp::Error| {
                ServerError::Stopped(lock(&ended).clone().unwrap_or_else(|| other.to_string()))
            };
            match dialect {
                Dialect::Pull => pull_diagnostics(&socket, uri?)
                    .await
                    .map_err(|e| e.or(stopped)),
                Dialect::Tsserver => {
                    let (syntactic, semantic) = futures::future::join(
                        tsserver_diagnostics(&socket, &file, "syntacticDiagnosticsSync"),
                        tsserver_diagnostics(&socket, &file, "semanticDiagnosticsSync"),
                    )
                    .await;
                    let mut diagnostics = syntactic.map_err(|e| e.or(stopped))?;
                    diagnostics.extend(semantic.map_err(|e| e.or(stopped))?);
                    Ok(diagnostics)
                }
            }
        }
    }

    /// The resident memory of the server and the processes it started (typescript-language-server
    /// runs tsserver as its child), in bytes, where the system tells it (Linux).
    pub(crate) fn resident_bytes(&self) -> Option<u64> {
        let pid = self.pid?;
        let mut total = resident_of(pid)?;
        let mut queue = children_of(pid);
        // A bound on the walk: a server that forks without end is not followed for ever.
        let mut visited = 0;
        while let Some(child) = queue.pop() {
            visited += 1;
            if visited > MAX_PROCESS_TREE {
                break;
            }
            total += resident_of(child).unwrap_or(0);
            queue.extend(children_of(child));
        }
        Some(total)
    }

    /// The server's process id.
    pub(crate) fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// Asks the server to shut down and exit, and kills it when it has not within a second.
    pub(crate) async fn stop(mut self) {
        let socket = self.socket.clone();
        let _ = tokio::time::timeout(EXIT_GRACE, async move {
            let _ = socket.request::<Shutdown>(()).await;
            let _ = socket.notify::<Exit>(());
        })
        .await;
        if tokio::time::timeout(EXIT_GRACE, self.child.wait())
            .await
            .is_err()
        {
            let _ = self.child.kill().await;
        }
    }

    /// Kills the process and what it started at once.
    pub(crate) fn kill(&mut self) {
        self.kill_group();
        let _ = self.child.start_kill();
    }

    /// Kills the server's process group (it leads one of its own), so a tsserver its bridge
    /// started does not outlive it.
    fn kill_group(&self) {
        if let Some(pid) = self.pid.and_then(|pid| i32::try_from(pid).ok()) {
            // The group the server leads (spawned with `process_group(0)`) holds only what it
            // started; it may be gone already.
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }

    fn uri(&self, path: &str) -> Result<Url, ServerError> {
        Url::from_file_path(self.root.join(path)).map_err(|()| ServerError::Answered {
            method: "uri",
            message: format!("{path} is not a file path"),
        })
    }
}

/// typescript-language-server's command that runs a request of tsserver's own protocol.
const TSSERVER_REQUEST: &str = "typescript.tsserverRequest";

/// At most this many processes below a server are counted for its memory.
const MAX_PROCESS_TREE: usize = 64;

/// The resident memory of process `pid` in bytes.
fn resident_of(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The children of process `pid`.
fn children_of(pid: u32) -> Vec<u32> {
    std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .map(|text| {
            text.split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// A request that failed: answered with an error or unreadable (named), or not answered at all
/// (the connection's reason decides).
enum RequestFailure {
    Named(ServerError),
    Connection(async_lsp::Error),
}

impl RequestFailure {
    fn of(method: &'static str, error: async_lsp::Error) -> Self {
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

    fn or(self, stopped: impl FnOnce(async_lsp::Error) -> ServerError) -> ServerError {
        match self {
            Self::Named(error) => error,
            Self::Connection(error) => stopped(error),
        }
    }
}

/// TypeScript 7's `textDocument/diagnostic` for the document `uri`.
async fn pull_diagnostics(
    socket: &ServerSocket,
    uri: Url,
) -> Result<Vec<Diagnostic>, RequestFailure> {
    let method = "textDocument/diagnostic";
    let params = PullParams {
        text_document: TextDocumentIdentifier { uri },
    };
    match socket.request::<PullDiagnostics>(params).await {
        Ok(DocumentDiagnosticReportResult::Report(DocumentDiagnosticReport::Full(report))) => {
            Ok(report.full_document_diagnostic_report.items)
        }
        Ok(_) => Err(RequestFailure::Named(ServerError::Answered {
            method,
            message: "a partial or unchanged report, which was not asked for".to_owned(),
        })),
        Err(error) => Err(RequestFailure::of(method, error)),
    }
}

/// tsserver's `command` (`syntacticDiagnosticsSync` or `semanticDiagnosticsSync`) for `file`, run
/// through typescript-language-server's `typescript.tsserverRequest`, as LSP diagnostics.
async fn tsserver_diagnostics(
    socket: &ServerSocket,
    file: &Path,
    command: &'static str,
) -> Result<Vec<Diagnostic>, RequestFailure> {
    let params = ExecuteCommandParams {
        command: TSSERVER_REQUEST.to_owned(),
        arguments: vec![
            serde_json::Value::from(command),
            serde_json::json!({ "file": file }),
        ],
        work_done_progress_params: WorkDoneProgressParams::default(),
    };
    let answer = socket
        .request::<ExecuteCommand>(params)
        .await
        .map_err(|error| RequestFailure::of(command, error))?;
    let unreadable = |message: String| {
        RequestFailure::Named(ServerError::Answered {
            method: command,
            message,
        })
    };
    let response: TsserverResponse = serde_json::from_value(answer.unwrap_or_default())
        .map_err(|error| unreadable(format!("an answer that cannot be read: {error}")))?;
    if !response.success {
        return Err(unreadable(
            response
                .message
                .unwrap_or_else(|| "it failed without saying why".to_owned()),
        ));
    }
    Ok(response
        .body
        .into_iter()
        .map(TsserverDiagnostic::into_lsp)
        .collect())
}

/// tsserver's answer to a request.
#[derive(serde::Deserialize)]
struct TsserverResponse {
    success: bool,
    message: Option<String>,
    #[serde(default)]
    body: Vec<TsserverDiagnostic>,
}

/// One diagnostic in tsserver's protocol: 1-based lines and UTF-16 offsets.
#[derive(serde::Deserialize)]
struct TsserverDiagnostic {
    start: TsserverLocation,
    end: TsserverLocation,
    text: String,
    code: Option<i32>,
    category: String,
}

#[derive(serde::Deserialize)]
struct TsserverLocation {
    line: u32,
    offset: u32,
}

impl TsserverLocation {
    fn into_lsp(self) -> Position {
        Position::new(self.line.saturating_sub(1), self.offset.saturating_sub(1))
    }
}

impl TsserverDiagnostic {
    /// As the language server protocol says it: categories become severities the way
    /// typescript-language-server maps them for its pushes.
    fn into_lsp(self) -> Diagnostic {
        let severity = match self.category.as_str() {
            "error" => DiagnosticSeverity::ERROR,
            "warning" => DiagnosticSeverity::WARNING,
            "suggestion" => DiagnosticSeverity::HINT,
            _ => DiagnosticSeverity::INFORMATION,
        };
        Diagnostic {
            range: Range::new(self.start.into_lsp(), self.end.into_lsp()),
            severity: Some(severity),
            code: self.code.map(NumberOrString::Number),
            source: Some("typescript".to_owned()),
            message: self.text,
            ..Diagnostic::default()
        }
    }
}

/// `textDocument/diagnostic` with only the document: lsp-types writes its optional fields as
/// `null`, which TypeScript 7 refuses (`null value is not allowed for field "identifier"`).
enum PullDiagnostics {}

impl lsp_types::request::Request for PullDiagnostics {
    type Params = PullParams;
    type Result = DocumentDiagnosticReportResult;
    const METHOD: &'static str = "textDocument/diagnostic";
}

#[derive(Debug, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct PullParams {
    text_document: TextDocumentIdentifier,
}

/// The language id of a document, from its extension.
fn language_id(path: &str) -> &'static str {
    let extension = Path::new(path)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("");
    match extension {
        "tsx" => "typescriptreact",
        "jsx" => "javascriptreact",
        "js" | "mjs" | "cjs" => "javascript",
        _ => "typescript",
    }
}

/// What the client answers the server: registrations and progress are accepted and ignored,
/// every configuration item turns automatic type acquisition off (the project's own config
/// decides the rest), notifications (logs, pushed diagnostics, progress) are dropped.
fn client_router() -> Router<()> {
    let mut router = Router::new(());
    router
        .request::<RegisterCapability, _>(|(), _| async { Ok(()) })
        .request::<UnregisterCapability, _>(|(), _| async { Ok(()) })
        .request::<WorkDoneProgressCreate, _>(|(), _| async { Ok(()) })
        .request::<WorkspaceConfiguration, _>(|(), params| {
            // Not asked for (the capability is not declared); were it asked, a `null` answer
            // would turn automatic type acquisition back on.
            let items = params.items.len();
            async move { Ok(vec![ATA_OFF.clone(); items]) }
        })
        // typescript-language-server stops when a request of its is refused: every other
        // request is answered with `null`.
        .unhandled_request(|(), _| async { Ok(serde_json::Value::Null) })
        .unhandled_notification(|(), _| ControlFlow::Continue(()))
        .event::<Stop>(|(), _| ControlFlow::Break(Ok(())));
    router
}

/// Ends the client main loop. Sent when the server is dropped: async-lsp's loop panics when
/// every socket is gone while it still runs, so it is told to stop first.
struct Stop;

impl Drop for LanguageServer {
    fn drop(&mut self) {
        let _ = self.socket.emit(Stop);
        self.kill_group();
    }
}

/// Keeps the last [`STDERR_TAIL_BYTES`] the server writes to its standard error.
async fn keep_tail(mut stderr: tokio::process::ChildStderr, tail: Arc<Mutex<VecDeque<u8>>>) {
    let mut chunk = vec![0u8; 4096];
    while let Ok(read) = stderr.read(&mut chunk).await {
        if read == 0 {
            break;
        }
        let mut tail = lock(&tail);
        tail.extend(&chunk[..read]);
        let excess = tail.len().saturating_sub(STDERR_TAIL_BYTES);
        tail.drain(..excess);
    }
}

/// A contiguous copy of a ring buffer's bytes.
trait ContiguousCopy {
    fn make_contiguous_copy(&self) -> Vec<u8>;
}

impl ContiguousCopy for VecDeque<u8> {
    fn make_contiguous_copy(&self) -> Vec<u8> {
        self.iter().copied().collect()
    }
}

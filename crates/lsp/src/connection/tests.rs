//! The session against a fake language server in this process (async-lsp's server side over an
//! in-memory pipe): what the client declares, documents kept in step through incremental edits,
//! pulled and pushed diagnostics (a stale push never taken for a fresh one), request deadlines,
//! the output budget and the end of a connection.

use super::*;
use async_lsp::router::Router;
use async_lsp::{AnyRequest, ClientSocket, ResponseError};
use lsp_types::notification::{LogMessage, PublishDiagnostics};
use lsp_types::request::{DocumentDiagnosticRequest, WorkspaceConfiguration};
use lsp_types::{
    ConfigurationItem, ConfigurationParams, FullDocumentDiagnosticReport, InitializeResult,
    LogMessageParams, MessageType, Position, PublishDiagnosticsParams,
    RelatedFullDocumentDiagnosticReport, ServerCapabilities,
};
use pi_native_hooks_base::lock;
use std::ops::ControlFlow;
use std::sync::Mutex as StdMutex;

/// What the fake server saw and holds.
#[derive(Default)]
struct Seen {
    capabilities: Option<ClientCapabilities>,
    options: Option<serde_json::Value>,
    texts: HashMap<Url, (i32, String)>,
    /// Whether each change came as a range (incremental) or the whole text.
    incremental_changes: usize,
    full_changes: usize,
}

/// How the fake server behaves.
#[derive(Clone, Copy, Default)]
struct Behaviour {
    /// Declares incremental sync.
    incremental: bool,
    pushing: Pushing,
}

/// What the fake server pushes for every change.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum Pushing {
    /// Nothing.
    #[default]
    Never,
    /// First an answer about the previous version, then, later, the answer about the new one.
    StaleThenFresh,
    /// Only an answer about the previous version.
    OnlyStale,
    /// Only an answer without a version.
    OnlyUnversioned,
}

/// The diagnostics the fake server finds: one per line containing `error`, its text the message.
fn judge(text: &str) -> Vec<Diagnostic> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| line.contains("error"))
        .map(|(n, line)| Diagnostic {
            range: lsp_types::Range::new(
                Position::new(u32::try_from(n).unwrap_or(u32::MAX), 0),
                Position::new(u32::try_from(n).unwrap_or(u32::MAX), 1),
            ),
            message: line.to_owned(),
            ..Diagnostic::default()
        })
        .collect()
}

/// The byte offset of an LSP position (UTF-16 units within the line) in `text`.
fn offset(text: &str, position: Position) -> usize {
    let mut start = 0;
    for (n, line) in text.split_inclusive('\n').enumerate() {
        if n == position.line as usize {
            let mut units = 0;
            for (i, c) in line.char_indices() {
                if units == position.character as usize {
                    return start + i;
                }
                units += c.len_utf16();
            }
            return start + line.len();
        }
        start += line.len();
    }
    start
}

struct Fake {
    client: ClientSocket,
    seen: Arc<StdMutex<Seen>>,
    behaviour: Behaviour,
}

/// Ends the fake server's main loop.
struct Quit;

impl Fake {
    fn changed(&self, uri: Url, version: i32, text: &str) {
        let pushing = self.behaviour.pushing;
        if pushing != Pushing::Never {
            let stale = PublishDiagnosticsParams {
                uri: uri.clone(),
                diagnostics: vec![Diagnostic {
                    message: "stale".to_owned(),
                    ..Diagnostic::default()
                }],
                version: (pushing != Pushing::OnlyUnversioned).then_some(version - 1),
            };
            let _ = self.client.notify::<PublishDiagnostics>(stale);
            if pushing == Pushing::StaleThenFresh {
                let client = self.client.clone();
                let diagnostics = judge(text);
                tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    let _ = client.notify::<PublishDiagnostics>(PublishDiagnosticsParams {
                        uri,
                        diagnostics,
                        version: Some(version),
                    });
                });
            }
        }
    }
}

/// A request of the tests' own, named `$method`.
macro_rules! request {
    ($name:ident, $method:literal, $params:ty, $result:ty) => {
        impl Request for $name {
            type Params = $params;
            type Result = $result;
            const METHOD: &'static str = $method;
        }
    };
}

/// The text the fake server holds for a document.
enum TextOf {}
request!(TextOf, "test/text", Url, Option<String>);

/// Never answered.
enum Never {}
request!(Never, "test/never", (), ());

/// Answered with more output than the client's budget.
enum Flood {}
request!(Flood, "test/flood", usize, ());

/// Makes the fake server ask the client a request, and answers with the client's answer.
enum Ask {}
request!(Ask, "test/ask", String, serde_json::Value);

/// Ends the fake server.
enum Hang {}
request!(Hang, "test/quit", (), ());

/// A request the fake server does not know.
enum Missing {}
request!(Missing, "test/missing", (), ());

/// A request of the server's own the client does not know.
enum Unknown {}
request!(Unknown, "test/unknown", (), serde_json::Value);

fn fake_router(fake: Fake) -> Router<Fake> {
    let mut router = Router::new(fake);
    documents(&mut router);
    test_requests(&mut router);
    router
}

/// The fake server's lifecycle and documents: what a language server does.
fn documents(router: &mut Router<Fake>) {
    router
        .request::<Initialize, _>(|fake, params| {
            let mut seen = lock(&fake.seen);
            seen.capabilities = Some(params.capabilities);
            seen.options = params.initialization_options;
            let sync = if fake.behaviour.incremental {
                TextDocumentSyncKind::INCREMENTAL
            } else {
                TextDocumentSyncKind::FULL
            };
            async move {
                Ok(InitializeResult {
                    capabilities: ServerCapabilities {
                        text_document_sync: Some(TextDocumentSyncCapability::Kind(sync)),
                        ..ServerCapabilities::default()
                    },
                    server_info: None,
                })
            }
        })
        .notification::<Initialized>(|_, _| ControlFlow::Continue(()))
        .notification::<DidOpenTextDocument>(|fake, params| {
            let doc = params.text_document;
            lock(&fake.seen)
                .texts
                .insert(doc.uri.clone(), (doc.version, doc.text.clone()));
            fake.changed(doc.uri, doc.version, &doc.text);
            ControlFlow::Continue(())
        })
        .notification::<DidChangeTextDocument>(|fake, params| {
            let uri = params.text_document.uri;
            let version = params.text_document.version;
            let text = {
                let mut seen = lock(&fake.seen);
                let mut text = seen
                    .texts
                    .get(&uri)
                    .map(|(_, t)| t.clone())
                    .unwrap_or_default();
                for change in params.content_changes {
                    if let Some(range) = change.range {
                        let (start, end) = (offset(&text, range.start), offset(&text, range.end));
                        text.replace_range(start..end, &change.text);
                        seen.incremental_changes += 1;
                    } else {
                        text = change.text;
                        seen.full_changes += 1;
                    }
                }
                seen.texts.insert(uri.clone(), (version, text.clone()));
                text
            };
            fake.changed(uri, version, &text);
            ControlFlow::Continue(())
        })
        .notification::<DidCloseTextDocument>(|fake, params| {
            lock(&fake.seen).texts.remove(&params.text_document.uri);
            ControlFlow::Continue(())
        })
        .notification::<DidChangeWatchedFiles>(|_, _| ControlFlow::Continue(()))
        .request::<Shutdown, _>(|_, ()| async { Ok(()) })
        .notification::<Exit>(|_, ()| ControlFlow::Break(Ok(())))
        .request::<DocumentDiagnosticRequest, _>(|fake, params| {
            let text = lock(&fake.seen)
                .texts
                .get(&params.text_document.uri)
                .map(|(_, t)| t.clone())
                .unwrap_or_default();
            let items = judge(&text);
            async move {
                Ok(DocumentDiagnosticReportResult::Report(
                    DocumentDiagnosticReport::Full(RelatedFullDocumentDiagnosticReport {
                        related_documents: None,
                        full_document_diagnostic_report: FullDocumentDiagnosticReport {
                            result_id: None,
                            items,
                        },
                    }),
                ))
            }
        });
}

/// What the tests ask the fake server to do.
fn test_requests(router: &mut Router<Fake>) {
    router
        .request::<TextOf, _>(|fake, uri| {
            let text = lock(&fake.seen).texts.get(&uri).map(|(_, t)| t.clone());
            async move { Ok(text) }
        })
        .request::<Never, _>(|_, ()| futures::future::pending())
        .request::<Flood, _>(|fake, bytes| {
            let _ = fake.client.notify::<LogMessage>(LogMessageParams {
                typ: MessageType::LOG,
                message: "x".repeat(bytes),
            });
            // Answered after the flood has gone out: the main loop may write a ready answer
            // before the notifications queued ahead of it.
            async {
                tokio::time::sleep(Duration::from_millis(200)).await;
                Ok(())
            }
        })
        .request::<Ask, _>(|fake, what| {
            let client = fake.client.clone();
            async move {
                let answer = if what == "configuration" {
                    let items = vec![ConfigurationItem::default(); 2];
                    client
                        .request::<WorkspaceConfiguration>(ConfigurationParams { items })
                        .await
                        .map(|answers| serde_json::json!(answers))
                } else {
                    client.request::<Unknown>(()).await
                };
                answer.map_err(|error| {
                    ResponseError::new(async_lsp::ErrorCode::INTERNAL_ERROR, error.to_string())
                })
            }
        })
        .request::<Hang, _>(|fake, ()| {
            let _ = fake.client.emit(Quit);
            futures::future::pending()
        })
        .unhandled_request(|_, request: AnyRequest| async move {
            Err(ResponseError::new(
                async_lsp::ErrorCode::METHOD_NOT_FOUND,
                format!("no {}", request.method),
            ))
        })
        .event::<Quit>(|_, _| ControlFlow::Break(Ok(())));
}

/// A client session with a fake server behaving as `behaviour`, and what the server sees.
async fn session(
    behaviour: Behaviour,
    mode: DiagnosticMode,
    output_bytes: u64,
) -> (LanguageServer, Arc<StdMutex<Seen>>) {
    let seen = Arc::new(StdMutex::new(Seen::default()));
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server_end);
    let server_seen = Arc::clone(&seen);
    let (server_loop, _) = MainLoop::new_server(move |client| {
        fake_router(Fake {
            client,
            seen: server_seen,
            behaviour,
        })
    });
    tokio::spawn(async move {
        let _ = server_loop
            .run_buffered(server_read.compat(), server_write.compat_write())
            .await;
    });
    let (client_read, client_write) = tokio::io::split(client_end);
    let mut launch = Launch::new("fake-server", Path::new("/repo"));
    launch.diagnostics = mode;
    launch.initialization_options = Some(serde_json::json!({ "told": true }));
    launch.configuration = serde_json::json!({ "setting": 1 });
    let server = LanguageServer::connect(
        client_read,
        client_write,
        &launch,
        Path::new("/repo"),
        output_bytes,
    )
    .await
    .expect("the fake server initializes");
    (server, seen)
}

fn uri(path: &str) -> Url {
    Url::from_file_path(Path::new("/repo").join(path)).expect("a file URI")
}

fn deadline() -> tokio::time::Instant {
    tokio::time::Instant::now() + Duration::from_secs(10)
}

async fn server_text(server: &LanguageServer, path: &str) -> Option<String> {
    within(
        deadline(),
        TextOf::METHOD,
        server.request::<TextOf>(uri(path)),
    )
    .await
    .expect("the fake server answers")
}

/// The text document capabilities and initialization options a session in `mode` declares.
async fn declared(
    mode: DiagnosticMode,
) -> (TextDocumentClientCapabilities, Option<serde_json::Value>) {
    let (_server, seen) = session(Behaviour::default(), mode, 1 << 20).await;
    let seen = lock(&seen);
    let text = seen
        .capabilities
        .as_ref()
        .and_then(|c| c.text_document.clone())
        .expect("text document capabilities");
    (text, seen.options.clone())
}

#[tokio::test]
async fn pull_mode_declares_pull_diagnostics_and_passes_the_launch_options() {
    let (text, options) = declared(DiagnosticMode::Pull).await;
    assert!(text.diagnostic.is_some());
    assert!(text.publish_diagnostics.is_none());
    assert_eq!(options, Some(serde_json::json!({ "told": true })));
}

#[tokio::test]
async fn push_mode_declares_versioned_pushes() {
    let (text, _) = declared(DiagnosticMode::Push).await;
    assert!(text.diagnostic.is_none());
    assert_eq!(
        text.publish_diagnostics
            .as_ref()
            .and_then(|p| p.version_support),
        Some(true)
    );
}

#[tokio::test]
async fn documents_stay_in_step_through_incremental_edits() {
    let behaviour = Behaviour {
        incremental: true,
        ..Behaviour::default()
    };
    let (mut server, seen) = session(behaviour, DiagnosticMode::Pull, 1 << 20).await;
    let texts = [
        "const a = 1;\nconst b = 2;\n",
        "const a = 1;\nconst b = 3;\n",
        "// first\nconst a = 1;\nconst b = 3;\n",
        "const s = \"héllo 🎉 x\";\r\nconst t = 2;\r\n",
        "const s = \"héllo 🎉 y\";\r\nconst t = 2;\r\n",
        "const s = \"🎊\";\r\n\r\nconst t = 2;\r\n",
        "",
        "again\n",
    ];
    for (n, text) in texts.iter().enumerate() {
        let text: Arc<str> = Arc::from(*text);
        server.sync("src/a.ts", Some(&text)).expect("sent");
        assert_eq!(server.generation(), n as u64 + 1);
        assert_eq!(
            server_text(&server, "src/a.ts").await.as_deref(),
            Some(&*text)
        );
    }
    let same: Arc<str> = Arc::from("again\n");
    server
        .sync("src/a.ts", Some(&same))
        .expect("nothing to send");
    assert_eq!(
        server.generation(),
        texts.len() as u64,
        "no change, no generation"
    );
    let seen_changes = {
        let seen = lock(&seen);
        (seen.incremental_changes, seen.full_changes)
    };
    assert_eq!(
        seen_changes,
        (texts.len() - 1, 0),
        "every change was one edit"
    );
    assert_eq!(server.open_count(), 1);
    server.sync("src/a.ts", None).expect("closed");
    assert_eq!(server_text(&server, "src/a.ts").await, None);
    assert_eq!(server.open_count(), 0);
}

#[tokio::test]
async fn a_server_without_incremental_sync_gets_the_whole_text() {
    let (mut server, seen) = session(Behaviour::default(), DiagnosticMode::Pull, 1 << 20).await;
    for text in ["a\n", "a\nb\n"] {
        server.sync("a.ts", Some(&Arc::from(text))).expect("sent");
    }
    assert_eq!(
        server_text(&server, "a.ts").await.as_deref(),
        Some("a\nb\n")
    );
    let changes = {
        let seen = lock(&seen);
        (seen.incremental_changes, seen.full_changes)
    };
    assert_eq!(changes, (0, 1));
}

#[tokio::test]
async fn a_pull_answers_with_the_diagnostics_of_the_text_sent() {
    let (mut server, _) = session(Behaviour::default(), DiagnosticMode::Pull, 1 << 20).await;
    server
        .sync("a.ts", Some(&Arc::from("fine\nan error\nanother error\n")))
        .expect("sent");
    let diagnostics = within(deadline(), "pull", server.pull("a.ts"))
        .await
        .expect("pulled");
    let messages: Vec<&str> = diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(messages, ["an error", "another error"]);
    let error = server
        .pushed("a.ts")
        .await
        .expect_err("pull mode has no pushes");
    assert!(matches!(error, ServerError::Answered { .. }), "{error}");
}

#[tokio::test]
async fn a_push_about_an_older_version_is_never_taken_for_the_current_one() {
    let behaviour = Behaviour {
        pushing: Pushing::StaleThenFresh,
        ..Behaviour::default()
    };
    let (mut server, _) = session(behaviour, DiagnosticMode::Push, 1 << 20).await;
    for text in ["v1 error\n", "v2 fine\n", "v3 error error\n"] {
        server.sync("a.ts", Some(&Arc::from(text))).expect("sent");
        let pushed = within(deadline(), "push", server.pushed("a.ts"))
            .await
            .expect("the fresh push arrives");
        let messages: Vec<&str> = pushed.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(
            messages,
            judge(text)
                .iter()
                .map(|d| d.message.as_str())
                .collect::<Vec<_>>()
        );
        assert!(!messages.contains(&"stale"));
    }
    assert!(
        server.pushes_received("a.ts") >= 6,
        "a stale and a fresh push per version"
    );
}

#[tokio::test]
async fn a_push_that_never_comes_for_the_current_version_times_out_named() {
    for pushing in [Pushing::OnlyStale, Pushing::OnlyUnversioned] {
        let behaviour = Behaviour {
            pushing,
            ..Behaviour::default()
        };
        let (mut server, _) = session(behaviour, DiagnosticMode::Push, 1 << 20).await;
        server.sync("a.ts", Some(&Arc::from("x\n"))).expect("sent");
        let soon = tokio::time::Instant::now() + Duration::from_millis(200);
        let error = within(
            soon,
            "textDocument/publishDiagnostics",
            server.pushed("a.ts"),
        )
        .await
        .expect_err("only a stale push came");
        assert_eq!(
            error,
            ServerError::TimedOut {
                method: "textDocument/publishDiagnostics"
            }
        );
        assert_eq!(server.pushes_received("a.ts"), 1);
        let error = server.pushed("b.ts").await.expect_err("b.ts is not open");
        assert!(error.to_string().contains("b.ts is not open"), "{error}");
    }
}

#[tokio::test]
async fn a_request_not_answered_by_its_deadline_is_named() {
    let (server, _) = session(Behaviour::default(), DiagnosticMode::Pull, 1 << 20).await;
    let soon = tokio::time::Instant::now() + Duration::from_millis(50);
    let error = within(soon, Never::METHOD, server.request::<Never>(()))
        .await
        .expect_err("never answered");
    assert_eq!(
        error,
        ServerError::TimedOut {
            method: "test/never"
        }
    );
    assert_eq!(
        error.to_string(),
        "the server did not answer `test/never` in time"
    );
}

#[tokio::test]
async fn an_error_the_server_answers_names_the_request() {
    let (server, _) = session(Behaviour::default(), DiagnosticMode::Pull, 1 << 20).await;
    let error = server.request::<Missing>(()).await.expect_err("refused");
    assert_eq!(
        error,
        ServerError::Answered {
            method: "test/missing",
            message: "no test/missing".to_owned()
        }
    );
}

#[tokio::test]
async fn the_servers_requests_are_answered_as_the_launch_says() {
    let (server, _) = session(Behaviour::default(), DiagnosticMode::Pull, 1 << 20).await;
    let configuration = server
        .request::<Ask>("configuration".to_owned())
        .await
        .expect("answered");
    assert_eq!(
        configuration,
        serde_json::json!([{ "setting": 1 }, { "setting": 1 }])
    );
    let unknown = server
        .request::<Ask>("unknown".to_owned())
        .await
        .expect("answered");
    assert_eq!(
        unknown,
        serde_json::Value::Null,
        "an unknown request is answered null"
    );
}

#[tokio::test]
async fn a_server_flooding_its_output_is_cut_off_and_named() {
    let (mut server, _) = session(Behaviour::default(), DiagnosticMode::Pull, 64 * 1024).await;
    server.renew_budget();
    let error = within(
        deadline(),
        Flood::METHOD,
        server.request::<Flood>(256 * 1024),
    )
    .await
    .expect_err("the connection is cut");
    let ServerError::Stopped(reason) = &error else {
        panic!("not a stopped server: {error}");
    };
    assert!(reason.contains("more than 65536 bytes"), "{reason}");
    let stopped = server.stopped().expect("the server is gone");
    assert!(stopped.contains("more than 65536 bytes"), "{stopped}");
    let error = server
        .sync("a.ts", Some(&Arc::from("x")))
        .expect_err("nothing can be sent");
    assert!(matches!(error, ServerError::Stopped(_)), "{error}");
}

#[tokio::test]
async fn a_wait_for_a_push_ends_when_the_server_goes_away() {
    let behaviour = Behaviour {
        pushing: Pushing::OnlyStale,
        ..Behaviour::default()
    };
    let (mut server, _) = session(behaviour, DiagnosticMode::Push, 1 << 20).await;
    server.sync("a.ts", Some(&Arc::from("x\n"))).expect("sent");
    let waiting = server.pushed("a.ts");
    let quit = server.request::<Hang>(());
    let (waited, ()) = tokio::join!(within(deadline(), "push", waiting), async {
        let _ = tokio::time::timeout(Duration::from_millis(500), quit).await;
    });
    let error = waited.expect_err("the server went away");
    assert!(matches!(error, ServerError::Stopped(_)), "{error}");
    assert!(server.stopped().is_some());
}

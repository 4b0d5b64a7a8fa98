//! Owns what the client answers a server: registrations and progress are accepted and ignored,
//! every `workspace/configuration` item gets the launch's answer, pushed diagnostics are kept when
//! the server runs in push mode, and everything else is answered `null` (a request) or dropped (a
//! notification: logs, progress, telemetry).

use crate::shared::Shared;
use async_lsp::router::Router;
use lsp_types::notification::PublishDiagnostics;
use lsp_types::request::{
    RegisterCapability, UnregisterCapability, WorkDoneProgressCreate, WorkspaceConfiguration,
};
use std::ops::ControlFlow;
use std::sync::Arc;

/// What the client's handlers read.
pub(crate) struct ClientState {
    /// The answer to every configuration item.
    configuration: serde_json::Value,
    /// Where pushed diagnostics go, in push mode.
    pushes: Option<Arc<Shared>>,
}

/// Ends the client main loop. Sent when the server is dropped: async-lsp's loop panics when
/// every socket is gone while it still runs, so it is told to stop first.
pub(crate) struct Stop;

/// The client's router: `configuration` answers every configuration item; pushed diagnostics are
/// kept in `pushes` when it is given.
pub(crate) fn router(
    configuration: serde_json::Value,
    pushes: Option<Arc<Shared>>,
) -> Router<ClientState> {
    let mut router = Router::new(ClientState {
        configuration,
        pushes,
    });
    router
        .request::<RegisterCapability, _>(|_, _| async { Ok(()) })
        .request::<UnregisterCapability, _>(|_, _| async { Ok(()) })
        .request::<WorkDoneProgressCreate, _>(|_, _| async { Ok(()) })
        .request::<WorkspaceConfiguration, _>(|state, params| {
            let answers = vec![state.configuration.clone(); params.items.len()];
            async move { Ok(answers) }
        })
        .notification::<PublishDiagnostics>(|state, params| {
            if let Some(shared) = &state.pushes {
                shared
                    .pushes
                    .received(&params.uri, params.version, params.diagnostics);
            }
            ControlFlow::Continue(())
        })
        // A server may stop when a request of its is refused (typescript-language-server does):
        // every other request is answered with `null`.
        .unhandled_request(|_, _| async { Ok(serde_json::Value::Null) })
        .unhandled_notification(|_, _| ControlFlow::Continue(()))
        .event::<Stop>(|_, _| ControlFlow::Break(Ok(())));
    router
}

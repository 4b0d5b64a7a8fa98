//! Owns speaking tsserver's own protocol through typescript-language-server's
//! `typescript.tsserverRequest` command: a file's syntactic and semantic diagnostics (tsserver's
//! 1-based lines and UTF-16 offsets, its categories) as the language server protocol says them,
//! and `reloadProjects`.

use futures::FutureExt;
use pi_native_hooks_lsp::lsp_types::request::ExecuteCommand;
use pi_native_hooks_lsp::lsp_types::{
    Diagnostic, DiagnosticSeverity, ExecuteCommandParams, NumberOrString, Position, Range,
    WorkDoneProgressParams,
};
use pi_native_hooks_lsp::{LanguageServer, ServerError};
use std::future::Future;

/// typescript-language-server's command that runs a request of tsserver's own protocol.
const TSSERVER_REQUEST: &str = "typescript.tsserverRequest";

/// tsserver's syntactic and semantic diagnostics of `path`, through `server`'s bridge.
pub(super) fn diagnostics(
    server: &LanguageServer,
    path: &str,
) -> impl Future<Output = Result<Vec<Diagnostic>, ServerError>> + Send + use<> {
    let file = serde_json::json!({ "file": server.file(path) });
    let syntactic = request(server, "syntacticDiagnosticsSync", file.clone());
    let semantic = request(server, "semanticDiagnosticsSync", file);
    async move {
        let (syntactic, semantic) = futures::future::join(syntactic, semantic).await;
        let mut diagnostics = syntactic?;
        diagnostics.extend(semantic?);
        Ok(diagnostics)
    }
}

/// Asks tsserver to reload its projects. tsserver answers nothing to `reloadProjects`: the bridge
/// must not wait for it.
pub(super) async fn reload_projects(server: &LanguageServer) -> Result<(), ServerError> {
    let params = ExecuteCommandParams {
        command: TSSERVER_REQUEST.to_owned(),
        arguments: vec![
            serde_json::Value::from("reloadProjects"),
            serde_json::json!({}),
            serde_json::json!({ "expectsResult": false }),
        ],
        work_done_progress_params: WorkDoneProgressParams::default(),
    };
    // The bridge has queued the request for tsserver when it answers (at once: it does not wait
    // for tsserver), so every later request comes after it. Its 5.x answers an error then (it
    // expects a result where there is none): the request went out all the same; only a lost
    // connection is a failure.
    match server.request::<ExecuteCommand>(params).await {
        Ok(_) | Err(ServerError::Answered { .. }) => Ok(()),
        Err(error) => Err(error),
    }
}

/// tsserver's `command` (`syntacticDiagnosticsSync` or `semanticDiagnosticsSync`) with
/// `arguments`, as LSP diagnostics; a failure names `command`.
fn request(
    server: &LanguageServer,
    command: &'static str,
    arguments: serde_json::Value,
) -> impl Future<Output = Result<Vec<Diagnostic>, ServerError>> + Send + use<> {
    let params = ExecuteCommandParams {
        command: TSSERVER_REQUEST.to_owned(),
        arguments: vec![serde_json::Value::from(command), arguments],
        work_done_progress_params: WorkDoneProgressParams::default(),
    };
    server.request::<ExecuteCommand>(params).map(move |answer| {
        let answer = answer.map_err(|error| match error {
            ServerError::Answered { message, .. } => ServerError::Answered {
                method: command,
                message,
            },
            other => other,
        })?;
        let unreadable = |message: String| ServerError::Answered {
            method: command,
            message,
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
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tsserver_diagnostic_reads_as_the_protocol_says_it() {
        let diagnostic: TsserverDiagnostic = serde_json::from_value(serde_json::json!({
            "start": { "line": 2, "offset": 5 },
            "end": { "line": 2, "offset": 9 },
            "text": "Type 'string' is not assignable to type 'number'.",
            "code": 2322,
            "category": "error",
        }))
        .expect("a tsserver diagnostic");
        let lsp = diagnostic.into_lsp();
        assert_eq!(
            lsp.range,
            Range::new(Position::new(1, 4), Position::new(1, 8))
        );
        assert_eq!(lsp.severity, Some(DiagnosticSeverity::ERROR));
        assert_eq!(lsp.code, Some(NumberOrString::Number(2322)));
        let suggestion: TsserverDiagnostic = serde_json::from_value(serde_json::json!({
            "start": { "line": 0, "offset": 0 },
            "end": { "line": 1, "offset": 1 },
            "text": "could be async",
            "category": "suggestion",
        }))
        .expect("a suggestion");
        let lsp = suggestion.into_lsp();
        assert_eq!(lsp.severity, Some(DiagnosticSeverity::HINT));
        assert_eq!(
            lsp.range.start,
            Position::new(0, 0),
            "never below the first line"
        );
    }
}

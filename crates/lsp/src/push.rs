//! Owns the diagnostics a server pushes (`textDocument/publishDiagnostics`), for a server run in
//! [`DiagnosticMode::Push`](crate::DiagnosticMode::Push): for each document the client holds open,
//! the last push with the version the server says it judged, and a wake-up for whoever waits for
//! one. A push for a document that is not open, or once it closed, is dropped, so what is kept is
//! bounded by the open documents. A push without a version is kept but never taken as the answer
//! for a version: it cannot be told apart from an answer about an older text.

use lsp_types::{Diagnostic, Url};
use pi_native_hooks_base::lock;
use std::collections::HashMap;
use std::sync::Mutex;
use tokio::sync::Notify;

/// The last push for one open document.
#[derive(Debug, Default)]
struct Pushed {
    /// The version the server judged, if it said.
    version: Option<i32>,
    diagnostics: Vec<Diagnostic>,
    /// Pushes received for the document since it was opened.
    count: usize,
}

/// What the servers pushed for the open documents.
#[derive(Debug, Default)]
pub(crate) struct Pushes {
    latest: Mutex<HashMap<Url, Pushed>>,
    changed: Notify,
}

impl Pushes {
    /// Starts keeping the pushes for `uri` (it was opened).
    pub(crate) fn watch(&self, uri: &Url) {
        lock(&self.latest).entry(uri.clone()).or_default();
    }

    /// Stops keeping the pushes for `uri` (it was closed).
    pub(crate) fn forget(&self, uri: &Url) {
        lock(&self.latest).remove(uri);
    }

    /// Keeps a push, when its document is open, and wakes the waiters.
    pub(crate) fn received(&self, uri: &Url, version: Option<i32>, diagnostics: Vec<Diagnostic>) {
        if let Some(pushed) = lock(&self.latest).get_mut(uri) {
            pushed.version = version;
            pushed.diagnostics = diagnostics;
            pushed.count += 1;
        } else {
            return;
        }
        self.changed.notify_waiters();
    }

    /// The diagnostics pushed for `uri` at `version`, if that is the last push.
    pub(crate) fn at(&self, uri: &Url, version: i32) -> Option<Vec<Diagnostic>> {
        lock(&self.latest)
            .get(uri)
            .filter(|pushed| pushed.version == Some(version))
            .map(|pushed| pushed.diagnostics.clone())
    }

    /// Pushes received for `uri` since it was opened.
    pub(crate) fn count(&self, uri: &Url) -> usize {
        lock(&self.latest).get(uri).map_or(0, |pushed| pushed.count)
    }

    /// A future that completes at the next push or when the connection ends ([`Pushes::wake`]).
    /// Created before looking, so a push between the look and the wait is not missed.
    pub(crate) fn next(&self) -> tokio::sync::futures::Notified<'_> {
        self.changed.notified()
    }

    /// Wakes every waiter (the connection ended).
    pub(crate) fn wake(&self) {
        self.changed.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uri(name: &str) -> Url {
        Url::parse(&format!("file:///repo/{name}")).expect("a URI")
    }

    #[test]
    fn only_a_push_for_the_version_asked_about_answers_it() {
        let pushes = Pushes::default();
        let a = uri("a.ts");
        pushes.watch(&a);
        assert_eq!(pushes.at(&a, 1), None, "nothing pushed yet");
        pushes.received(&a, Some(1), vec![Diagnostic::default()]);
        assert_eq!(pushes.at(&a, 1).map(|d| d.len()), Some(1));
        assert_eq!(
            pushes.at(&a, 2),
            None,
            "a push for version 1 does not answer version 2"
        );
        pushes.received(&a, None, Vec::new());
        assert_eq!(
            pushes.at(&a, 1),
            None,
            "a push without a version answers nothing"
        );
        assert_eq!(pushes.count(&a), 2);
    }

    #[test]
    fn pushes_for_documents_that_are_not_open_are_dropped() {
        let pushes = Pushes::default();
        let a = uri("a.ts");
        pushes.received(&a, Some(1), vec![Diagnostic::default()]);
        pushes.watch(&a);
        assert_eq!(pushes.count(&a), 0);
        pushes.received(&a, Some(1), Vec::new());
        pushes.forget(&a);
        pushes.received(&a, Some(2), Vec::new());
        assert_eq!(pushes.count(&a), 0);
        assert!(lock(&pushes.latest).is_empty());
    }
}

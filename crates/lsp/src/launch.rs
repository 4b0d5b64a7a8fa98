//! Owns what starting a language server takes: the program and its arguments, the directory it
//! runs in (also its one workspace folder), what it is told at `initialize`, what it is answered
//! when it asks for its configuration, and how its diagnostics are had — pulled, or pushed.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// How a server's diagnostics are had.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiagnosticMode {
    /// The client declares `textDocument/diagnostic` and asks for each document's diagnostics
    /// (what the server pushes is dropped).
    Pull,
    /// The client declares push diagnostics with version support and keeps, for each open
    /// document, what the server last pushed with the version it judged: an answer is taken only
    /// for the version the document holds, never an older one.
    Push,
}

/// How to start one language server.
#[derive(Clone, Debug, PartialEq)]
pub struct Launch {
    /// The executable.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// The directory it runs in, given to it as its one workspace folder.
    pub dir: PathBuf,
    /// The `initializationOptions` of `initialize`.
    pub initialization_options: Option<serde_json::Value>,
    /// The answer to every item of a `workspace/configuration` request (`null` leaves each
    /// setting to the server's own default).
    pub configuration: serde_json::Value,
    /// Pulled or pushed diagnostics.
    pub diagnostics: DiagnosticMode,
}

impl Launch {
    /// `program` with no arguments, run in `dir`, pulled, with nothing to tell it.
    pub fn new(program: impl Into<PathBuf>, dir: &Path) -> Self {
        Self {
            program: program.into(),
            args: Vec::new(),
            dir: dir.to_path_buf(),
            initialization_options: None,
            configuration: serde_json::Value::Null,
            diagnostics: DiagnosticMode::Pull,
        }
    }

    /// With `args` appended.
    #[must_use]
    pub fn args<I: IntoIterator<Item = S>, S: Into<OsString>>(mut self, args: I) -> Self {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }
}

/// The LSP language id of a document of the TypeScript and JavaScript family, from its extension
/// (`plaintext` for any other).
pub fn language_id(path: &str) -> &'static str {
    let extension = Path::new(path)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("");
    match extension {
        "ts" | "mts" | "cts" => "typescript",
        "tsx" => "typescriptreact",
        "js" | "mjs" | "cjs" => "javascript",
        "jsx" => "javascriptreact",
        "json" => "json",
        _ => "plaintext",
    }
}

//! The project's own TypeScript as a second analyzer: for the TypeScript (and, where the project
//! checks them, JavaScript) files a wave changed, and the unchanged files that import them, the
//! type errors the project's TypeScript language server reports, as findings of the
//! `typescript:project` analyzer in the same kind of immutable snapshot the ast-grep analyzer
//! produces. Running a language server is the lsp crate's; this crate keeps what is TypeScript's.
//!
//! - [`install`]: which project a file belongs to and which TypeScript it has installed.
//! - `server`: how its server is started (`tsc --lsp --stdio` for TypeScript 7 or later,
//!   typescript-language-server over the project's `tsserver` before 7) and asked (`tsserver`:
//!   tsserver's own protocol through the bridge).
//! - `imports`: the reverse import index that finds the dependents of a change; `surface`: the
//!   export surface that decides whether a change can reach them.
//! - `convert`: diagnostics to findings (codes, positions, the identity that is compared).
//! - [`analyzer`]: the analyzer a wave runs, with the before/after comparison's "before" and
//!   every bound (wait, servers, dependents, memory, output); `port`: the analyzer port's
//!   implementation; `status`: what it shows of itself.

pub mod analyzer;
mod convert;
mod imports;
pub mod install;
mod port;
mod server;
mod status;
mod surface;

pub use analyzer::{PriorTexts, TypeScriptAnalyzer, TypeScriptLimits};
pub use convert::TYPE_ERROR_GUIDANCE;
pub use install::{Installed, Project, ProjectLookup, ServerCommand, TsserverBridge, Unavailable};
pub use pi_native_hooks_lsp::ServerError;
pub use server::launch;
pub use status::{ProjectState, ProjectStatus, StatusHandle, TypeScriptStatus, disabled};

/// The analyzer key of the project's TypeScript.
pub const ANALYZER_KEY: &str = "typescript:project";

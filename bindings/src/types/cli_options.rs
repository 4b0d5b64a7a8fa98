use super::{EntryPoint, TsserverBridge};
use napi_derive::napi;

/// How to run the command line (the npm package's `bin` passes none).
#[napi(object)]
pub struct CliOptions {
    /// typescript-language-server for `check --types` on projects with a TypeScript before 7
    /// (omitted: only one installed beside such a project serves it).
    pub tsserver_bridge: Option<TsserverBridge>,
    /// Tests only: `runCli` panics inside the addon once the command has run.
    pub panic_in: Option<EntryPoint>,
}

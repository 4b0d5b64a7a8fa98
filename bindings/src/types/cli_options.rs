use super::EntryPoint;
use napi_derive::napi;

/// How to run the command line (the npm package's `bin` passes none).
#[napi(object)]
pub struct CliOptions {
    /// Tests only: `runCli` panics inside the addon once the command has run.
    pub panic_in: Option<EntryPoint>,
}

use napi_derive::napi;
use std::path::PathBuf;

/// typescript-language-server, which serves projects with a TypeScript before 7 (TypeScript 7 and
/// later are their own language server): the Node that runs it and its `lib/cli.mjs`. The
/// extension and the package's command pass the one the package depends on, run by their own
/// Node (`process.execPath`).
#[napi(object)]
pub struct TsserverBridge {
    /// The Node executable.
    pub node: String,
    /// typescript-language-server's `lib/cli.mjs`.
    pub cli: String,
}

impl From<TsserverBridge> for pi_native_hooks_session::TsserverBridge {
    fn from(bridge: TsserverBridge) -> Self {
        Self {
            node: PathBuf::from(bridge.node),
            cli: PathBuf::from(bridge.cli),
        }
    }
}

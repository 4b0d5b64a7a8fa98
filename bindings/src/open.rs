//! Opening a session: resolves the config root (explicit, or from the OS user record) and loads
//! it on napi's async runtime, off the JS thread. A panic while opening is answered as a
//! `PNH_PANIC` [`BindingError`]; there is no session yet to stop.

use crate::contain::{contain_async, test_seam};
use crate::session::HookSession;
use crate::types::{BindingError, EntryPoint, ErrorCode, SessionOptions};
use napi::Either;
use napi_derive::napi;
use pi_native_hooks_session::host::personal_root;
use pi_native_hooks_session::{Session, SessionOptions as EngineOptions};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// Opens the hooks session for one Pi session. Loads the config root once (rules, policies,
/// settings, trust checks); an absent root gives a session over the built-in pack (no verification) whose status
/// explains `/hooks-init`.
/// Resolves to a [`BindingError`] (`PNH_CONFIG_ROOT`) when the personal root cannot be found,
/// `PNH_PANIC` when opening panicked.
#[napi]
pub async fn open_session(options: SessionOptions) -> Either<HookSession, BindingError> {
    let panic_in = options.panic_in;
    let opened = contain_async(EntryPoint::OpenSession, async move {
        let session = open(options);
        test_seam(EntryPoint::OpenSession, panic_in);
        session
    })
    .await;
    opened.unwrap_or_else(|panicked| Either::B(BindingError::new(ErrorCode::Panic, panicked)))
}

fn open(options: SessionOptions) -> Either<HookSession, BindingError> {
    let root = match options.config_root {
        Some(root) => PathBuf::from(root),
        None => match personal_root() {
            Ok(root) => root,
            Err(error) => return Either::B(BindingError::new(ErrorCode::ConfigRoot, error)),
        },
    };
    let mut engine = EngineOptions::new(&options.cwd, root);
    // Test options only: production passes none, so the config root's settings file decides.
    engine.tsserver_bridge = options.tsserver_bridge.map(Into::into);
    engine.overrides.continuation_cap = options.continuation_cap;
    engine.overrides.wave_timeout = options
        .wave_timeout_ms
        .map(|millis| Duration::from_millis(u64::from(millis)));
    Either::A(HookSession::new(
        Arc::new(Session::open(engine)),
        options.panic_in,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_panic_while_opening_is_answered_as_pnh_panic() {
        let dir = tempfile::TempDir::new().expect("a temporary directory");
        let options = |panic_in| SessionOptions {
            cwd: dir.path().display().to_string(),
            config_root: Some(dir.path().join("config").display().to_string()),
            tsserver_bridge: None,
            continuation_cap: None,
            wave_timeout_ms: None,
            panic_in,
        };
        let Either::B(error) = open_session(options(Some(EntryPoint::OpenSession))).await else {
            panic!("opened despite the panic");
        };
        assert_eq!(error.code, ErrorCode::Panic);
        assert!(
            error.message.starts_with(
                "engine panicked in openSession: panicked on purpose (the panicIn test option) (at bindings/src/contain.rs:"
            ),
            "{}",
            error.message
        );
        assert!(matches!(open_session(options(None)).await, Either::A(_)));
    }
}

//! Opening a session: resolves the config root (explicit, or from the OS user record) and loads
//! it on napi's async runtime, off the JS thread.

use crate::session::HookSession;
use crate::types::{BindingError, ErrorCode, SessionOptions};
use napi::Either;
use napi_derive::napi;
use pi_native_hooks_config::personal_root;
use pi_native_hooks_session::{Session, SessionOptions as EngineOptions};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// Opens the hooks session for one Pi session. Loads the config root once (rules, policies,
/// settings, trust checks); an absent root gives a session over the built-in pack (no verification) whose status
/// explains `/hooks-init`.
/// Resolves to a [`BindingError`] (`PNH_CONFIG_ROOT`) when the personal root cannot be found.
#[napi]
pub async fn open_session(options: SessionOptions) -> Either<HookSession, BindingError> {
    let root = match options.config_root {
        Some(root) => PathBuf::from(root),
        None => match personal_root() {
            Ok(root) => root,
            Err(error) => return Either::B(BindingError::new(ErrorCode::ConfigRoot, error)),
        },
    };
    let mut engine = EngineOptions::new(&options.cwd, root);
    // Test options only: production passes none, so the config root's settings file decides.
    engine.overrides.continuation_cap = options.continuation_cap;
    engine.overrides.wave_timeout = options
        .wave_timeout_ms
        .map(|millis| Duration::from_millis(u64::from(millis)));
    Either::A(HookSession::new(Arc::new(Session::open(engine))))
}

use napi_derive::napi;
use pi_native_hooks_base::escape;

/// What went wrong, as the JS error's `code`.
#[napi(string_enum)]
#[derive(Debug, PartialEq, Eq)]
pub enum ErrorCode {
    /// The personal config root could not be resolved from the OS user record.
    #[napi(value = "PNH_CONFIG_ROOT")]
    ConfigRoot,
    /// `/hooks-init` could not create the config root (what it created was removed).
    #[napi(value = "PNH_INIT_FAILED")]
    InitFailed,
    /// `/reload` could not read the config root again; the session keeps its previous config.
    #[napi(value = "PNH_RELOAD_FAILED")]
    ReloadFailed,
    /// The engine panicked inside the call (a defect): the message names the call and what the
    /// panic said. The session stops running the hooks (see `HookSession`).
    #[napi(value = "PNH_PANIC")]
    Panic,
}

/// An engine error returned as data: the extension turns it into a JS `Error` whose `code` is
/// [`ErrorCode`] (napi-rs gives a rejected promise no custom code).
#[napi(object)]
pub struct BindingError {
    /// What went wrong.
    pub code: ErrorCode,
    /// What happened and what to do, control characters escaped (the extension shows it).
    pub message: String,
}

impl BindingError {
    pub(crate) fn new(code: ErrorCode, message: impl std::fmt::Display) -> Self {
        Self {
            code,
            message: escape(&message.to_string()).into_owned(),
        }
    }
}

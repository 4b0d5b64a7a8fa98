//! Node binding of the pi-native-hooks engine, loaded by the Pi extension.
//!
//! One bound type per file: [`HookSession`](session::HookSession) wraps the engine's
//! [`Session`](pi_native_hooks_session::Session) (one per Pi session), [`open_session`] creates
//! it, [`run_cli`] runs the `pi-native-hooks` command line for the npm package's `bin`, and
//! `types/` holds the plain objects crossing the boundary (one per file): Pi's events converted
//! into engine types, the engine's decisions, footer and init plan as typed data (the status
//! crosses as its `/hooks-status` text). Every method only translates: the logic lives in the
//! engine, where it is tested. The engine is reached through the session crate (its `host`
//! module names what the binding uses of the layers below) and the command line's. Engine errors come
//! back as `BindingError` data, which the extension throws as JS errors with `code` set.
//!
//! No panic leaves the addon: every entry point runs inside `contain`, answers a panic as a
//! `PNH_PANIC` `BindingError`, and a session a panic stopped answers without touching the engine
//! from then on (see `session`).

mod cli;
mod contain;
mod open;
mod release;
mod session;
mod types;

#[global_allocator]
static ALLOCATOR: pi_native_hooks_session::host::CountingAllocator =
    pi_native_hooks_session::host::CountingAllocator;

pub use cli::run_cli;
pub use open::open_session;
pub use session::HookSession;

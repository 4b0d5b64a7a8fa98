//! One synchronisation with the watcher: the cookie that marks it (`cookie`), what the event
//! handler recorded before it (`events`), what it compares outside the worktree (`guard`), and the
//! watched snapshot it yields (`update`).

pub(crate) mod cookie;
pub(crate) mod events;
pub(crate) mod guard;
pub(crate) mod update;

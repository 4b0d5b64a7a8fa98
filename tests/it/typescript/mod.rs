//! The TypeScript analyzer against the real language servers (the pinned `typescript` 7.0.2, and
//! `typescript` 5.9.3 served by `typescript-language-server` 5.3.0), on temp projects: what a wave introduces, the dependents of a change,
//! line shifts, and every way a server can fail (killed, never answering, flooding, a config
//! that extends into a FIFO).

mod analyzer;
mod hostile;
mod policy;
mod tsserver;

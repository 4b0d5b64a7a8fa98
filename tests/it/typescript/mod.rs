//! The TypeScript analyzer against the real TypeScript 7 language server (the pinned
//! `typescript` 7.0.2), on temp projects: what a wave introduces, the dependents of a change,
//! line shifts, and every way a server can fail (killed, never answering, flooding, a config
//! that extends into a FIFO).

mod analyzer;
mod hostile;
mod policy;

//! Durable, branch-aware gate state: the versioned JSON entries the binding appends to the Pi
//! session (`pi.appendEntry`) on meaningful transitions, and restoring a gate from the entries of
//! the current branch (`ctx.sessionManager.getBranch()`), so forks and `/tree` navigation each
//! restore their own branch and an abandoned branch's evidence never leaks.
//!
//! Files: `entry` (the versioned format, encoding and decoding), `restore` (choosing the latest
//! valid entry of a branch and applying it).

mod entry;
mod restore;

pub use entry::{
    STATE_ENTRY_TYPE, STATE_VERSION, StateEntry, StateError, StateProblem, take_entry,
};
pub use restore::{BranchEntry, RestoreReport, StateWarning, restore};

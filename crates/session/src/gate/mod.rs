//! The gate side of a session: the gate and the one-at-a-time worker that runs its operations
//! (`worker`), the operations themselves with their bounded waits (`calls`), and a finished wave
//! turned into the gate's input (`observe`).

pub(crate) mod calls;
pub(crate) mod observe;
pub(crate) mod worker;

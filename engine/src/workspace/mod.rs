//! Git workspace snapshots read in process with `gix`, and the changed paths between two of them.

//! Git's status of a worktree read with gix, as [`DirtyEntry`](super::DirtyEntry) values: the
//! whole-worktree run (`full`), with its stat pass over the tracked entries (`stat_scan`) and its
//! `HEAD` ↔ index diff (`staged`, skipping directories the cache-tree shows unchanged), the
//! path-limited run (`limited`) with its lookups in `HEAD`'s tree (`head_lookup`), and the entries
//! both assemble (`entries`). Nothing here writes the index.

mod entries;
mod full;
mod head_lookup;
mod limited;
mod staged;
mod stat_scan;

pub(crate) use full::full_status;
pub(crate) use limited::{Limited, limited_status};

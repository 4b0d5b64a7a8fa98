//! Owns how a bounded per-session store says how full it is, for the status.

/// How much of a bounded per-session store is in use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StoreUse {
    /// Entries held.
    pub held: usize,
    /// The most it holds.
    pub capacity: usize,
    /// Entries it let go of to stay within the capacity, since the session started.
    pub dropped: u64,
}

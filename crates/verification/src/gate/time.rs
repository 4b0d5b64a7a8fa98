//! Owns [`Timestamp`]: the moment the caller says an event happened. The gate never reads a clock;
//! every method that records something takes the time as an argument, so tests inject it.

use serde::{Deserialize, Serialize};

/// Milliseconds since the Unix epoch, as given by the caller (e.g. `Date.now()` in the binding).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Timestamp(pub u64);

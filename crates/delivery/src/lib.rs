//! Delivery: which diagnostics of a wave reach the model, and the one block that carries them.
//!
//! * [`fingerprint`]: the identity of a diagnostic (policy, rule, path, range, hash of the matched
//!   text), so an unchanged finding is recognised across waves.
//! * [`introduced`]: which findings a wave introduced (absent from the file before it, compared as
//!   a multiset per rule and whitespace-normalised text), and the findings each file held when
//!   last analyzed; only introduced findings are listed, pre-existing ones counted per file.
//! * [`memory`]: what was delivered per file, so only new or changed diagnostics are sent, resolved
//!   ones are forgotten and a file no wave touched is never reported again.
//! * [`render`]: the block appended to the carrier's tool result, grouped by rule and bounded in
//!   model tokens.
//! * [`tokens`]: the block's measure, `o200k_base` tokens, counted only when a text is longer in
//!   bytes than its budget.
//!
//! Delivery is pure: the wave coordinator decides which call carries the block and feeds the
//! analysis results in; nothing here touches the file system or the clock.

// What is not re-exported from this root is `pub(crate)`: the curated list below is the API.
#![warn(unreachable_pub)]

mod fingerprint;
mod introduced;
mod memory;
mod render;
#[cfg(test)]
mod test_support;
pub mod tokens;

pub use fingerprint::{FindingIndex, Fingerprint, KeyedDiagnostic};
pub use introduced::{
    FindingHistory, PriorFinding, Start, diagnostic_start, finding_start, findings_by_path,
    introduced,
};
pub use memory::{Coverage, DELIVERY_MEMORY_CAPACITY, DeliveryMemory, Selection, WaveDiagnostics};
pub use render::{Block, CarrierInfo, RenderLimits, Warnings, render, render_late};
pub use tokens::TokenCount;

//! Owns how work runs: the cancellation flag every long task checks ([`cancel`]) and the one way
//! async code runs blocking work ([`blocking`]).

pub(crate) mod blocking;
pub(crate) mod cancel;

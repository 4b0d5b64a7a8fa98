//! Owns how work runs: the cancellation flag every long task checks ([`cancel`]), the one way
//! async code runs blocking work ([`blocking`]) and reading a panic that work raised ([`panic`]).

pub(crate) mod blocking;
pub(crate) mod cancel;
pub(crate) mod panic;

//! The execution-wave runtime: fake events in Pi's order, a property test over random
//! interleavings, real git repositories, one analysis per wave and the event types.

mod analysis;
mod events;
mod git;
mod harness;
mod interleavings;

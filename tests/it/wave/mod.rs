//! The execution-wave runtime: fake events in Pi's order, a property test over random
//! interleavings, real git repositories, and one analysis per wave. The event types and the tool
//! classification are unit tests in `wave::event` and `wave::tools`.

mod analysis;
mod block;
mod git;
mod harness;
mod interleavings;
mod introduced;
mod unconsumed;

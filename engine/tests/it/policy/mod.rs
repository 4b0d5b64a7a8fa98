//! Rhai policies: the contract, the sandbox and its bounds, the registry, fixtures, `init` and
//! `doctor`, and the examples in the docs.

mod contract;
mod docs_examples;
mod fixtures;
mod hostile;
mod registry;
mod sandbox;
mod setup;

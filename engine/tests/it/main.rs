//! The engine's integration tests, one crate (one link step) with a module per layer of
//! `docs/architecture.md`, in the order data flows: `config → analysis/policy → workspace →
//! delivery → wave → verification → state/status → session`, then the `cli` on top. `support`
//! holds what the areas share.

use pi_native_hooks::policy::budget::CountingAllocator;

// The allocator the CLI and the Node addon install, so policy memory budgets are enforced here
// as they are in production (`policy::hostile` checks it is installed).
#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

mod support;

mod config;

mod analysis;
mod policy;

mod workspace;

mod wave;

mod verification;

mod state;
mod status;

mod session;

mod cli;

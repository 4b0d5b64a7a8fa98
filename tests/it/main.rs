//! The engine's integration tests: one crate (one link step) with a module per layer of
//! `docs/architecture.md`, in the order data flows, `config → analysis/policy → workspace →
//! delivery → wave → verification → doctor → state/status → session`, then the `cli` on top, and
//! `unprivileged`, the permission tests `scripts/test-unprivileged` runs as a normal user. The
//! delivery layer is pure and unit-tested inline, like every test that builds no repository,
//! spawns no process and calls one module's functions; only the block's rendered cases live here,
//! as snapshots. `support` holds what the areas share: [`support::TestRepo`] and
//! [`support::ConfigRoot`] build every repository and config root, and rendered text is compared
//! with snapshots in `tests/snapshots/` (`support::snapshot`). The "Tests" section of
//! `docs/architecture.md` describes the layout.

// Pedantic lints that do not fit test code, each with the reason.
#![expect(
    clippy::case_sensitive_file_extension_comparisons,
    reason = "fixtures and corpora are named `.ts`/`.tsx` exactly; the engine's own matching is tested"
)]
#![expect(
    clippy::cast_possible_truncation,
    reason = "test input sizes are small constants, far below 32 bits"
)]
#![expect(
    clippy::format_push_string,
    clippy::format_collect,
    reason = "test text is built for comparison; allocation does not matter"
)]
#![expect(
    clippy::match_wildcard_for_single_variants,
    reason = "a test's catch-all arm is the failure message for anything unexpected"
)]
#![expect(
    clippy::unnecessary_wraps,
    reason = "helpers return the exact type the assertion compares against"
)]
#![expect(
    clippy::too_many_lines,
    reason = "a scenario test reads top to bottom; splitting it hides the sequence"
)]

use pi_native_hooks_policy::CountingAllocator;

// The allocator the CLI and the Node addon install, so policy memory budgets are enforced here
// as they are in production (`policy::hostile` checks it is installed).
#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

mod support;

mod config;

mod analysis;
mod policy;
mod typescript;

mod workspace;

mod delivery;

mod wave;

mod verification;

mod doctor;

mod state;
mod status;

mod session;

mod cli;

mod layers;

mod unprivileged;

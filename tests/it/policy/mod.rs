//! Rhai policies: the registry, fixtures and what `test` prints, `init` and `doctor`, the examples
//! in the docs, and
//! hostile policies under the counting allocator. The contract and the sandbox's single limits are
//! unit tests in `policy::contract` and `policy::sandbox`.

mod docs_examples;
mod fixtures;
mod hostile;
mod registry;
mod setup;
mod test_output;

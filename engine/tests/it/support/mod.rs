//! Helpers shared by the integration tests: the generated corpus, the ast-grep CLI lookup and
//! throw-away git repositories.
#![allow(
    dead_code,
    reason = "each test crate uses its own part of the shared helpers"
)]

pub mod ast_grep;
pub mod corpus;
pub mod gate;
pub mod repo;
pub mod wave;
pub mod workspace;

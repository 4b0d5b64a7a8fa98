//! Helpers shared by the integration tests: the generated corpus and the ast-grep CLI lookup.

pub mod ast_grep;
pub mod corpus;

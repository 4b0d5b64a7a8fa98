//! One Pi session end to end on real repositories, and the gate under hostile input through it.
//! Both open sessions on [`node_project`] with the built-in pack plus the example Node verification
//! policy ([`node_config`]).

use crate::support::{ConfigRoot, TestRepo};

mod end_to_end;
mod held_trees;
mod hostile;
mod late;
mod reload;

/// The example verification policy for a Node project named `my-node-project` (`npm test`).
pub const NODE_VERIFICATION: &str =
    include_str!("../../../examples/policies/node-project-verification.rhai");

/// A config root with the built-in pack as `init` lays it down and [`NODE_VERIFICATION`].
fn node_config() -> ConfigRoot {
    ConfigRoot::builder()
        .builtin()
        .policy("node-project-verification.rhai", NODE_VERIFICATION)
        .build()
}

/// A Node project the example verification policy matches (`npm test`).
fn node_project() -> TestRepo {
    TestRepo::with_commit(&[
        ("package.json", "{ \"name\": \"my-node-project\" }\n"),
        ("src/app.ts", "export const app = 1;\n"),
        ("docs/notes.md", "notes\n"),
    ])
}

//! One Pi session end to end on real repositories, and the gate under hostile input through it.
//! Both open sessions on [`node_project`] with the built-in pack (`ConfigRoot::builtin`).

use crate::support::TestRepo;

mod end_to_end;
mod hostile;

/// A Node project the shipped example verification policy matches (`npm test`).
fn node_project() -> TestRepo {
    TestRepo::with_commit(&[
        ("package.json", "{ \"name\": \"my-node-project\" }\n"),
        ("src/app.ts", "export const app = 1;\n"),
        ("docs/notes.md", "notes\n"),
    ])
}

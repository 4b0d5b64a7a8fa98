//! The verification gate: project matching, evidence, revisions and drift, policy changes, the
//! settle decision, waivers and checks that write files.

mod evidence;
mod globs;
mod monorepo;
mod policies;
mod project;
mod revisions;
mod settle;
mod waiver;
mod writes;

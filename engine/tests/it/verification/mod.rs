//! The verification gate: project matching, evidence, revisions and drift, policy changes, the
//! settle decision and waivers.

mod evidence;
mod policies;
mod project;
mod revisions;
mod settle;
mod waiver;

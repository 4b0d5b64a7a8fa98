//! Policy tests (`pi-native-hooks test`): fixtures under `<root>/policies/tests/*.yml` run each
//! policy on valid and invalid inputs and report pass, noisy (fires on valid input) or missing
//! (silent on invalid input), plus a snapshot of the rendered results that `--update` rewrites.

mod fixture;
mod frame;
mod given;
mod render;
mod runner;

pub use fixture::{
    ExpectedDiagnostic, FIXTURE_DIR, FixtureCase, FixtureFile, FixtureSyntaxError, GivenFinding,
    SourceFile, fixture_schema,
};
pub use runner::{
    CaseOutcome, CaseReport, FixtureAnalyzer, FixtureReport, ProblemKind, RunOptions,
    SnapshotStatus, TestProblem, TestReport, TestSummary, run_fixtures, run_fixtures_with,
};

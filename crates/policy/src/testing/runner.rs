//! Runs fixture files against a registry: each case through the real analyzer (or any
//! [`FixtureAnalyzer`]) and the policy under test, compared with the expectations and with the
//! snapshot of rendered results.

use super::fixture::{ExpectedDiagnostic, FIXTURE_DIR, FixtureCase, FixtureFile};
use super::frame::code_frame;
use super::given::{given_snapshot, runner_analyzes};
use super::render;
use crate::registry::contract::PolicySpec;
use crate::registry::failure::{FailureReason, PolicyFailure, PolicyProblem, ProblemReason};
use crate::registry::{LoadedPolicy, PolicyRegistry};
use crate::run::AffectedRequirement;
use crate::sandbox::RunError;
use pi_native_hooks_analysis::PolicyDiagnostic;
use pi_native_hooks_analysis::{AnalysisSnapshot, Analyzer};
use pi_native_hooks_base::CancelToken;
use pi_native_hooks_base::PolicyId;
use pi_native_hooks_base::did_you_mean;
use pi_native_hooks_config::trust::{TrustError, TrustedDir};
use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Produces the snapshot a diagnostic fixture case is evaluated on.
pub trait FixtureAnalyzer {
    /// Analyzes in-memory `(path, source)` files as one wave.
    fn analyze(&mut self, files: &[(String, String)]) -> Arc<AnalysisSnapshot>;
}

impl FixtureAnalyzer for Analyzer {
    fn analyze(&mut self, files: &[(String, String)]) -> Arc<AnalysisSnapshot> {
        self.scan_sources(files)
    }
}

impl<F: FnMut(&[(String, String)]) -> Arc<AnalysisSnapshot>> FixtureAnalyzer for F {
    fn analyze(&mut self, files: &[(String, String)]) -> Arc<AnalysisSnapshot> {
        self(files)
    }
}

/// The result of one case.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CaseReport {
    /// As the fixture names the case; it heads the case's snapshot section.
    pub name: String,
    /// Results produced but not expected (the policy fires on valid input): for diagnostics
    /// `path:line:column rule: message`, for requirements the id.
    pub noisy: Vec<String>,
    /// Results expected but not produced (the policy is silent on invalid input): for
    /// diagnostics `path:line[:column] rule`, with the column the policy reported it at when only
    /// the column differs; for requirements the id.
    pub missing: Vec<String>,
    /// The policy or the analysis failed, or the case is malformed.
    pub error: Option<String>,
    /// The code frame of the policy line that failed, when the error names one.
    pub error_frame: Option<String>,
}

/// How a test case ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaseOutcome {
    /// Every expected result, nothing else.
    Pass,
    /// Results that were not expected.
    Noisy,
    /// Expected results that were not produced.
    Missing,
    /// Both.
    NoisyAndMissing,
    /// The policy or the analysis failed, or the case is malformed.
    Error,
}

impl CaseOutcome {
    /// As `test` prints it: `pass`, `noisy`, `missing`, `noisy+missing` or `error`.
    pub fn as_str(self) -> &'static str {
        match self {
            CaseOutcome::Pass => "pass",
            CaseOutcome::Noisy => "noisy",
            CaseOutcome::Missing => "missing",
            CaseOutcome::NoisyAndMissing => "noisy+missing",
            CaseOutcome::Error => "error",
        }
    }
}

impl fmt::Display for CaseOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl CaseReport {
    /// How the case ended.
    pub fn outcome(&self) -> CaseOutcome {
        match (&self.error, self.noisy.is_empty(), self.missing.is_empty()) {
            (Some(_), _, _) => CaseOutcome::Error,
            (None, true, true) => CaseOutcome::Pass,
            (None, false, true) => CaseOutcome::Noisy,
            (None, true, false) => CaseOutcome::Missing,
            (None, false, false) => CaseOutcome::NoisyAndMissing,
        }
    }

    /// True when the case passed.
    pub fn passed(&self) -> bool {
        self.outcome() == CaseOutcome::Pass
    }
}

/// How a fixture file's rendered results compare with its snapshot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SnapshotStatus {
    /// Identical.
    Matches,
    /// Written by `--update`.
    Updated,
    /// No snapshot yet: run with `--update`.
    Missing,
    /// Differs: the unified diff from the stored snapshot to the rendered results.
    Differs {
        /// The diff, with `---`/`+++` headers naming the snapshot file.
        diff: String,
    },
    /// The snapshot could not be read or written.
    Failed(String),
}

/// The result of one fixture file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FixtureReport {
    /// Joined to the fixture directory.
    pub path: PathBuf,
    /// The policy under test.
    pub policy: String,
    /// One report per case.
    pub cases: Vec<CaseReport>,
    /// The rendered results against the `.snap` file beside the fixture.
    pub snapshot: SnapshotStatus,
}

/// What kind of problem stopped part of a run; the summary counts each kind separately.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProblemKind {
    /// A policy file did not load (does not compile, breaks the contract, untrusted, duplicate).
    PolicyLoad,
    /// A fixture file could not be run (unreadable, malformed, names an unknown policy).
    Fixture,
    /// Anything else: the root or the fixture directory, no tests at all.
    Other,
}

/// A problem of a test run, with the code frame of the line it names when there is one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestProblem {
    /// What it is about.
    pub kind: ProblemKind,
    /// One or more lines, each naming the file (and line and column when known).
    pub message: String,
    /// The code frame(s) of the lines the message names.
    pub frame: Option<String>,
}

impl fmt::Display for TestProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl TestProblem {
    fn other(message: impl Into<String>) -> Self {
        Self {
            kind: ProblemKind::Other,
            message: message.into(),
            frame: None,
        }
    }
}

/// Which fixtures a run covers and whether it rewrites snapshots.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunOptions {
    /// Rewrite the snapshots instead of comparing them.
    pub update: bool,
    /// Run only the fixtures of this policy (problems loading any policy are still reported).
    pub filter: Option<PolicyId>,
}

/// The result of a whole test run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TestReport {
    /// One report per fixture file that could be run.
    pub files: Vec<FixtureReport>,
    /// Fixture files that could not be run (untrusted, malformed, unknown policy) and registry
    /// problems (a policy that does not load fails the run).
    pub problems: Vec<TestProblem>,
    /// Loaded policies that have no fixture file.
    pub untested: Vec<PolicyId>,
}

/// The counts a run ends with, each kind of failure separately.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TestSummary {
    /// Cases for which [`CaseReport::passed`] holds.
    pub cases_passed: usize,
    /// Cases that were noisy, missing or failed.
    pub cases_failed: usize,
    /// Snapshots that differ from the rendered results.
    pub snapshot_mismatches: usize,
    /// Fixture files without a snapshot.
    pub snapshots_missing: usize,
    /// Snapshots that could not be read or written.
    pub snapshot_errors: usize,
    /// Policy files that did not load.
    pub policies_not_loaded: usize,
    /// Fixture files that could not be run.
    pub fixtures_not_run: usize,
    /// Problems with the root or the fixture directory, or a run with no tests.
    pub other_problems: usize,
    /// True when the run passed ([`TestReport::passed`]).
    pub passed: bool,
}

fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

impl fmt::Display for TestSummary {
    /// `policy tests ok: 47 cases passed, 0 failed`, or `policy tests FAILED: ` with every
    /// non-zero kind of failure, e.g. `14 cases passed, 0 failed, 1 snapshot mismatch, 1 policy
    /// failed to load`. A failed run always names at least one failure.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verdict = if self.passed { "ok" } else { "FAILED" };
        write!(
            f,
            "policy tests {verdict}: {} passed, {} failed",
            count(self.cases_passed, "case", "cases"),
            self.cases_failed
        )?;
        let parts = [
            (
                self.snapshot_mismatches,
                "snapshot mismatch",
                "snapshot mismatches",
            ),
            (
                self.snapshots_missing,
                "snapshot missing",
                "snapshots missing",
            ),
            (
                self.snapshot_errors,
                "snapshot could not be read or written",
                "snapshots could not be read or written",
            ),
            (
                self.policies_not_loaded,
                "policy failed to load",
                "policies failed to load",
            ),
            (
                self.fixtures_not_run,
                "fixture file could not be run",
                "fixture files could not be run",
            ),
            (self.other_problems, "other problem", "other problems"),
        ];
        for (n, one, many) in parts {
            if n > 0 {
                write!(f, ", {}", count(n, one, many))?;
            }
        }
        if !self.passed
            && self.cases_passed + self.cases_failed == 0
            && parts.iter().all(|p| p.0 == 0)
        {
            f.write_str(", no cases ran")?;
        }
        Ok(())
    }
}

impl TestReport {
    /// The counts of this run.
    pub fn summary(&self) -> TestSummary {
        let cases = self.files.iter().flat_map(|f| &f.cases);
        let passed = cases.clone().filter(|c| c.passed()).count();
        let snapshots = |wanted: fn(&SnapshotStatus) -> bool| {
            self.files.iter().filter(|f| wanted(&f.snapshot)).count()
        };
        let problems = |kind: ProblemKind| self.problems.iter().filter(|p| p.kind == kind).count();
        TestSummary {
            cases_passed: passed,
            cases_failed: cases.count() - passed,
            snapshot_mismatches: snapshots(|s| matches!(s, SnapshotStatus::Differs { .. })),
            snapshots_missing: snapshots(|s| matches!(s, SnapshotStatus::Missing)),
            snapshot_errors: snapshots(|s| matches!(s, SnapshotStatus::Failed(_))),
            policies_not_loaded: problems(ProblemKind::PolicyLoad),
            fixtures_not_run: problems(ProblemKind::Fixture),
            other_problems: problems(ProblemKind::Other),
            passed: self.passed(),
        }
    }

    /// How many cases ran.
    pub fn case_count(&self) -> usize {
        self.files.iter().map(|f| f.cases.len()).sum()
    }

    /// True when at least one case ran, every case passed, every snapshot matched (or was
    /// updated) and there were no problems.
    pub fn passed(&self) -> bool {
        self.case_count() > 0
            && self.problems.is_empty()
            && self.files.iter().all(|file| {
                file.cases.iter().all(CaseReport::passed)
                    && matches!(
                        file.snapshot,
                        SnapshotStatus::Matches | SnapshotStatus::Updated
                    )
            })
    }
}

/// Runs every fixture in `<root>/policies/tests/*.yml` against `registry`. With `update`, the
/// snapshots (`<fixture>.snap` beside each fixture) are rewritten instead of compared.
pub fn run_fixtures(
    root: &Path,
    registry: &PolicyRegistry,
    analyzer: &mut dyn FixtureAnalyzer,
    update: bool,
) -> TestReport {
    let options = RunOptions {
        update,
        filter: None,
    };
    run_fixtures_with(root, registry, analyzer, &options)
}

/// [`run_fixtures`] with [`RunOptions`]: with a filter, only the fixtures of that policy run
/// (every fixture file is still read, since only its `policy:` says whose it is), and only that
/// policy can be untested.
pub fn run_fixtures_with(
    root: &Path,
    registry: &PolicyRegistry,
    analyzer: &mut dyn FixtureAnalyzer,
    options: &RunOptions,
) -> TestReport {
    let mut report = TestReport {
        problems: registry
            .problems()
            .iter()
            .map(|problem| load_problem(registry, problem))
            .collect(),
        ..TestReport::default()
    };
    let mut others = Vec::new();
    if let Some(guidance) = registry.guidance() {
        others.push(guidance);
    }
    let mut tested = BTreeSet::new();
    let fixtures = fixture_dir(root, &mut others).map(|dir| {
        let names = fixture_names(&dir, &mut others);
        (dir, names)
    });
    let fixtures = fixtures
        .iter()
        .flat_map(|(dir, names)| names.iter().map(move |name| (dir, name)));
    for (dir, name) in fixtures {
        let path = dir.path().join(name);
        let fixture = match dir.read_file(OsStr::new(name)) {
            Ok(text) => FixtureFile::parse(&text).map_err(|error| {
                fixture_problem(&path, error.line, error.column, &error.message, &text)
            }),
            Err(error) => Err(TestProblem {
                kind: ProblemKind::Fixture,
                message: error.to_string(),
                frame: None,
            }),
        };
        let fixture = match fixture {
            Ok(fixture) => fixture,
            Err(problem) => {
                report.problems.push(problem);
                continue;
            }
        };
        if options
            .filter
            .as_ref()
            .is_some_and(|id| *id != fixture.policy)
        {
            continue;
        }
        let Some(policy) = registry.policy(&fixture.policy) else {
            report.problems.push(TestProblem {
                kind: ProblemKind::Fixture,
                message: format!(
                    "{}: names unknown policy {:?}{}",
                    path.display(),
                    fixture.policy,
                    unknown_policy_hint(registry, &fixture.policy)
                ),
                frame: None,
            });
            continue;
        };
        tested.insert(policy.contract.id.clone());
        report.files.push(run_file(
            dir,
            name,
            &fixture,
            registry,
            policy,
            analyzer,
            options.update,
        ));
    }
    if report.case_count() == 0 {
        let whose = options
            .filter
            .as_ref()
            .map(|id| format!(" for policy {id:?}"))
            .unwrap_or_default();
        others.push(format!(
            "no policy tests{whose} found in {}; add fixtures (see docs/policies.md)",
            root.join(FIXTURE_DIR).display()
        ));
    }
    report
        .problems
        .extend(others.into_iter().map(TestProblem::other));
    report.untested = registry
        .policies()
        .iter()
        .map(|p| p.contract.id.clone())
        .filter(|id| options.filter.as_ref().is_none_or(|wanted| wanted == id))
        .filter(|id| !tested.contains(id))
        .collect();
    report
}

/// Why a fixture's policy id is unknown: the file named after it failed to load, or a loaded id
/// it probably meant.
fn unknown_policy_hint(registry: &PolicyRegistry, id: &str) -> String {
    let failed = registry
        .problems()
        .iter()
        .find(|problem| problem.path.file_stem().is_some_and(|stem| stem == id));
    match failed {
        Some(problem) => format!(" (its file {} failed to load)", problem.path.display()),
        None => did_you_mean(
            id,
            registry.policies().iter().map(|p| p.contract.id.as_str()),
        ),
    }
}

/// The text of the policy file at `path`, as the registry read it.
fn policy_source<'a>(registry: &'a PolicyRegistry, path: &Path) -> Option<&'a str> {
    registry
        .files()
        .find(|(relative, _)| path.ends_with(relative))
        .map(|(_, text)| text)
}

/// A policy that did not load, with the code frame of each line its reason names.
fn load_problem(registry: &PolicyRegistry, problem: &PolicyProblem) -> TestProblem {
    let source = policy_source(registry, &problem.path);
    let name = problem.path.display().to_string();
    let frames: Vec<String> = match (&problem.reason, source) {
        (
            ProblemReason::Compile(RunError::Script {
                line: Some(line),
                column,
                ..
            }),
            Some(source),
        ) => code_frame(&name, source, *line, column.map(|c| c as usize), "")
            .into_iter()
            .collect(),
        (
            ProblemReason::Compile(RunError::Limit {
                line: Some(line), ..
            }),
            Some(source),
        ) => code_frame(&name, source, *line, None, "")
            .into_iter()
            .collect(),
        (ProblemReason::Contract(errors), Some(source)) => errors
            .iter()
            .filter_map(|error| code_frame(&name, source, error.line?, None, ""))
            .collect(),
        _ => Vec::new(),
    };
    TestProblem {
        kind: ProblemKind::PolicyLoad,
        message: problem.to_string(),
        frame: (!frames.is_empty()).then(|| frames.concat()),
    }
}

/// A fixture file that is not a fixture: `path:line:column: message` and the code frame.
fn fixture_problem(
    path: &Path,
    line: Option<usize>,
    column: Option<usize>,
    message: &str,
    text: &str,
) -> TestProblem {
    let name = path.display().to_string();
    let (at, frame) = match (line, column) {
        (Some(line), Some(column)) => (
            format!(":{line}:{column}"),
            code_frame(&name, text, line, Some(column), ""),
        ),
        (Some(line), None) => (format!(":{line}"), code_frame(&name, text, line, None, "")),
        _ => (String::new(), None),
    };
    TestProblem {
        kind: ProblemKind::Fixture,
        message: format!("{name}{at}: {message}"),
        frame,
    }
}

/// The code frame of the policy line a run-time failure names.
fn failure_frame(registry: &PolicyRegistry, failure: &PolicyFailure) -> Option<String> {
    let (line, column) = match &failure.reason {
        FailureReason::Run(RunError::Script {
            line: Some(line),
            column,
            ..
        }) => (*line, column.map(|c| c as usize)),
        FailureReason::Run(RunError::Limit {
            line: Some(line), ..
        }) => (*line, None),
        _ => return None,
    };
    let source = policy_source(registry, &failure.path)?;
    code_frame(
        &failure.path.display().to_string(),
        source,
        line,
        column,
        "",
    )
}

/// `<root>/policies/tests`, opened below the checked root; `None` when it does not exist.
fn fixture_dir(root: &Path, problems: &mut Vec<String>) -> Option<TrustedDir> {
    let opened = TrustedDir::open_root_if_exists(root).and_then(|root| {
        let Some(root) = root else { return Ok(None) };
        let mut dir = Some(root);
        for name in Path::new(FIXTURE_DIR) {
            dir = match dir {
                Some(dir) => dir.open_dir_if_exists(name)?,
                None => return Ok(None),
            };
        }
        Ok(dir)
    });
    opened.unwrap_or_else(|error: TrustError| {
        problems.push(error.to_string());
        None
    })
}

/// The `*.yml`/`*.yaml` names in the fixture directory, sorted; names that are not UTF-8 are
/// reported.
fn fixture_names(dir: &TrustedDir, problems: &mut Vec<String>) -> Vec<String> {
    match dir.entries() {
        Ok(entries) => entries
            .iter()
            .filter_map(|entry| match entry.utf8_name(dir) {
                Ok(name) => Some(name.to_owned()),
                Err(error) => {
                    problems.push(error.to_string());
                    None
                }
            })
            .filter(|name| {
                Path::new(name)
                    .extension()
                    .is_some_and(|ext| ext == "yml" || ext == "yaml")
            })
            .collect(),
        Err(error) => {
            problems.push(error.to_string());
            Vec::new()
        }
    }
}

fn run_file(
    dir: &TrustedDir,
    name: &str,
    fixture: &FixtureFile,
    registry: &PolicyRegistry,
    policy: &LoadedPolicy,
    analyzer: &mut dyn FixtureAnalyzer,
    update: bool,
) -> FixtureReport {
    let mut rendered = render::header(&fixture.policy);
    let cases = fixture
        .cases
        .iter()
        .map(|case| {
            let (report, text) = run_case(case, registry, policy, analyzer);
            rendered.push_str(&render::case(&case.name, &text));
            report
        })
        .collect();
    let snapshot = Path::new(name).with_extension("snap");
    FixtureReport {
        path: dir.path().join(name),
        policy: fixture.policy.clone(),
        cases,
        snapshot: compare_snapshot(dir, snapshot.as_os_str(), &rendered, update),
    }
}

/// Runs one case; returns its report and its rendered results for the snapshot.
fn run_case(
    case: &FixtureCase,
    registry: &PolicyRegistry,
    policy: &LoadedPolicy,
    analyzer: &mut dyn FixtureAnalyzer,
) -> (CaseReport, String) {
    let mut report = CaseReport {
        name: case.name.clone(),
        ..CaseReport::default()
    };
    let cancel = CancelToken::new();
    match (&policy.contract.spec, &case.expect, &case.requires) {
        (PolicySpec::Diagnostic(spec), Some(expect), None) if case.changed.is_empty() => {
            let snapshot = match &case.findings {
                Some(given) => given_snapshot(spec, &case.files, given),
                None if runner_analyzes(spec) => {
                    let files: Vec<(String, String)> = case
                        .files
                        .iter()
                        .map(|f| (f.path.clone(), f.source.clone()))
                        .collect();
                    Ok(analyzer.analyze(&files))
                }
                None => Err(format!(
                    "the test runner does not run the `{}` analyzer: give its findings in \
                     `findings`",
                    spec.analyzer
                )),
            };
            let snapshot = match snapshot {
                Ok(snapshot) => snapshot,
                Err(error) => {
                    report.error = Some(error);
                    return (report, String::new());
                }
            };
            if let Some(failure) = &snapshot.failure {
                report.error = Some(format!("the analysis failed: {failure}"));
            }
            let run = registry.evaluate_policy(policy, &snapshot, &cancel);
            if let Some(failure) = run.failures.first() {
                report.error = Some(failure.to_string());
                report.error_frame = failure_frame(registry, failure);
            }
            compare_diagnostics(&run.diagnostics, expect, &mut report);
            (report, render::diagnostics(&run.diagnostics))
        }
        (PolicySpec::Verification(_), None, Some(requires))
            if case.files.is_empty() && case.findings.is_none() =>
        {
            let mut run = registry.affected_requirements(&case.changed, &cancel);
            run.requirements.retain(|r| r.policy == policy.contract.id);
            run.failures.retain(|f| f.policy == policy.contract.id);
            if let Some(failure) = run.failures.first() {
                report.error = Some(failure.to_string());
                report.error_frame = failure_frame(registry, failure);
            }
            compare_requirements(&run.requirements, requires, &mut report);
            (report, render::requirements(&run.requirements))
        }
        (PolicySpec::Diagnostic(_), ..) => {
            report.error = Some(
                "a diagnostic case needs `files` and `expect` (and, for an analyzer the runner \
                 does not run, `findings`) only"
                    .to_owned(),
            );
            (report, String::new())
        }
        (PolicySpec::Verification(_), ..) => {
            report.error =
                Some("a verification case needs `changed` and `requires` only".to_owned());
            (report, String::new())
        }
    }
}

fn matches(diagnostic: &PolicyDiagnostic, expected: &ExpectedDiagnostic) -> bool {
    diagnostic.rule == expected.rule
        && diagnostic.path == expected.path
        && diagnostic.line == expected.line
        && expected
            .column
            .is_none_or(|column| column == diagnostic.column)
}

fn compare_diagnostics(
    produced: &[PolicyDiagnostic],
    expect: &[ExpectedDiagnostic],
    report: &mut CaseReport,
) {
    let mut unmatched: Vec<&PolicyDiagnostic> = produced.iter().collect();
    let mut missed = Vec::new();
    for expected in expect {
        match unmatched.iter().position(|d| matches(d, expected)) {
            Some(index) => {
                unmatched.remove(index);
            }
            None => missed.push(expected),
        }
    }
    report.missing = missed
        .iter()
        .map(|expected| {
            let column = expected.column.map(|c| format!(":{c}")).unwrap_or_default();
            // Only the column differs: say where the policy reported it.
            let near = unmatched
                .iter()
                .filter(|d| {
                    d.rule == expected.rule && d.path == expected.path && d.line == expected.line
                })
                .map(|d| d.column.to_string())
                .collect::<Vec<_>>();
            let near = if near.is_empty() {
                String::new()
            } else {
                format!(" (reported at column {})", near.join(", "))
            };
            format!(
                "{}:{}{column} {}{near}",
                expected.path, expected.line, expected.rule
            )
        })
        .collect();
    report.noisy = unmatched
        .iter()
        .map(|d| {
            format!(
                "{}:{}:{} {}: {}",
                d.path, d.line, d.column, d.rule, d.message
            )
        })
        .collect();
}

fn compare_requirements(
    produced: &[AffectedRequirement],
    requires: &[String],
    report: &mut CaseReport,
) {
    let produced: BTreeSet<&str> = produced.iter().map(|r| r.requirement.id.as_str()).collect();
    let expected: BTreeSet<&str> = requires.iter().map(String::as_str).collect();
    report.noisy = produced
        .difference(&expected)
        .map(|id| (*id).to_owned())
        .collect();
    report.missing = expected
        .difference(&produced)
        .map(|id| (*id).to_owned())
        .collect();
}

fn compare_snapshot(
    dir: &TrustedDir,
    name: &OsStr,
    rendered: &str,
    update: bool,
) -> SnapshotStatus {
    if update {
        return match dir.write_private(name, rendered.as_bytes()) {
            Ok(()) => SnapshotStatus::Updated,
            Err(error) => SnapshotStatus::Failed(error.to_string()),
        };
    }
    match dir.contains(name) {
        Ok(false) => return SnapshotStatus::Missing,
        Ok(true) => {}
        Err(error) => return SnapshotStatus::Failed(error.to_string()),
    }
    match dir.read_file(name) {
        Ok(stored) if stored == rendered => SnapshotStatus::Matches,
        Ok(stored) => {
            let path = dir.path().join(name);
            SnapshotStatus::Differs {
                diff: unified_diff(&stored, rendered, &path),
            }
        }
        Err(error) => SnapshotStatus::Failed(error.to_string()),
    }
}

/// The unified diff (3 lines of context) from the stored snapshot at `path` to `rendered`.
fn unified_diff(stored: &str, rendered: &str, path: &Path) -> String {
    let name = path.display();
    similar::TextDiff::from_lines(stored, rendered)
        .unified_diff()
        .context_radius(3)
        .missing_newline_hint(true)
        .header(
            &format!("{name} (snapshot)"),
            &format!("{name} (rendered now)"),
        )
        .to_string()
}

//! Runs fixture files against a registry: each case through the real analyzer (or any
//! [`FixtureAnalyzer`]) and the policy under test, compared with the expectations and with the
//! snapshot of rendered results.

use super::fixture::{ExpectedDiagnostic, FIXTURE_DIR, FixtureCase, FixtureFile};
use super::render;
use crate::analysis::{AnalysisSnapshot, Analyzer};
use crate::cancel::CancelToken;
use crate::config::trust::{TrustError, TrustedDir};
use crate::ids::PolicyId;
use crate::policy::contract::PolicySpec;
use crate::policy::diagnostic::PolicyDiagnostic;
use crate::policy::registry::{LoadedPolicy, PolicyRegistry};
use crate::policy::run::AffectedRequirement;
use std::collections::BTreeSet;
use std::ffi::OsStr;
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
    /// The case's name.
    pub name: String,
    /// Results produced but not expected (the policy fires on valid input).
    pub noisy: Vec<String>,
    /// Results expected but not produced (the policy is silent on invalid input).
    pub missing: Vec<String>,
    /// The policy or the analysis failed, or the case is malformed.
    pub error: Option<String>,
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

impl std::fmt::Display for CaseOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
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
    /// Differs; the first differing line of each side.
    Differs {
        /// 1-based line number.
        line: usize,
        /// The snapshot's line.
        expected: String,
        /// The rendered line.
        actual: String,
    },
    /// The snapshot could not be read or written.
    Failed(String),
}

/// The result of one fixture file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FixtureReport {
    /// The fixture file.
    pub path: PathBuf,
    /// The policy under test.
    pub policy: String,
    /// One report per case.
    pub cases: Vec<CaseReport>,
    /// The snapshot comparison.
    pub snapshot: SnapshotStatus,
}

/// The result of a whole test run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TestReport {
    /// One report per fixture file that could be run.
    pub files: Vec<FixtureReport>,
    /// Fixture files that could not be run (untrusted, malformed, unknown policy) and registry
    /// problems (a policy that does not load fails the run).
    pub problems: Vec<String>,
    /// Loaded policies that have no fixture file.
    pub untested: Vec<PolicyId>,
}

impl TestReport {
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
    let mut report = TestReport {
        problems: registry
            .problems()
            .iter()
            .map(ToString::to_string)
            .collect(),
        ..TestReport::default()
    };
    if let Some(guidance) = registry.guidance() {
        report.problems.push(guidance);
    }
    let mut tested = BTreeSet::new();
    let fixtures = fixture_dir(root, &mut report.problems).map(|dir| {
        let names = fixture_names(&dir, &mut report.problems);
        (dir, names)
    });
    let fixtures = fixtures
        .iter()
        .flat_map(|(dir, names)| names.iter().map(move |name| (dir, name)));
    for (dir, name) in fixtures {
        let path = dir.path().join(name);
        let fixture = dir
            .read_file(OsStr::new(name))
            .map_err(|error| error.to_string())
            .and_then(|text| {
                FixtureFile::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
            });
        let fixture = match fixture {
            Ok(fixture) => fixture,
            Err(problem) => {
                report.problems.push(problem);
                continue;
            }
        };
        let Some(policy) = registry.policy(&fixture.policy) else {
            report.problems.push(format!(
                "{}: names unknown policy {:?}",
                path.display(),
                fixture.policy
            ));
            continue;
        };
        tested.insert(policy.contract.id.clone());
        report.files.push(run_file(
            dir, name, &fixture, registry, policy, analyzer, update,
        ));
    }
    if report.case_count() == 0 {
        report.problems.push(format!(
            "no policy tests found in {}; add fixtures (see docs/policies.md)",
            root.join(FIXTURE_DIR).display()
        ));
    }
    report.untested = registry
        .policies()
        .iter()
        .map(|p| p.contract.id.clone())
        .filter(|id| !tested.contains(id))
        .collect();
    report
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
        (PolicySpec::Diagnostic(_), Some(expect), None) if case.changed.is_empty() => {
            let files: Vec<(String, String)> = case
                .files
                .iter()
                .map(|f| (f.path.clone(), f.source.clone()))
                .collect();
            let snapshot = analyzer.analyze(&files);
            if let Some(failure) = &snapshot.failure {
                report.error = Some(format!("the analysis failed: {failure}"));
            }
            let run = registry.evaluate_policy(policy, &snapshot, &cancel);
            if let Some(failure) = run.failures.first() {
                report.error = Some(failure.to_string());
            }
            compare_diagnostics(&run.diagnostics, expect, &mut report);
            (report, render::diagnostics(&run.diagnostics))
        }
        (PolicySpec::Verification(_), None, Some(requires)) if case.files.is_empty() => {
            let mut run = registry.affected_requirements(&case.changed, &cancel);
            run.requirements.retain(|r| r.policy == policy.contract.id);
            run.failures.retain(|f| f.policy == policy.contract.id);
            if let Some(failure) = run.failures.first() {
                report.error = Some(failure.to_string());
            }
            compare_requirements(&run.requirements, requires, &mut report);
            (report, render::requirements(&run.requirements))
        }
        (PolicySpec::Diagnostic(_), ..) => {
            report.error = Some("a diagnostic case needs `files` and `expect` only".to_owned());
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
    for expected in expect {
        match unmatched.iter().position(|d| matches(d, expected)) {
            Some(index) => {
                unmatched.remove(index);
            }
            None => report.missing.push(format!(
                "{}:{} {}",
                expected.path, expected.line, expected.rule
            )),
        }
    }
    report.noisy = unmatched
        .iter()
        .map(|d| format!("{}:{} {}", d.path, d.line, d.rule))
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
        Ok(stored) => first_difference(&stored, rendered),
        Err(error) => SnapshotStatus::Failed(error.to_string()),
    }
}

fn first_difference(expected: &str, actual: &str) -> SnapshotStatus {
    let mut expected_lines = expected.lines();
    let mut actual_lines = actual.lines();
    let mut line = 1;
    loop {
        match (expected_lines.next(), actual_lines.next()) {
            (Some(a), Some(b)) if a == b => line += 1,
            (a, b) => {
                return SnapshotStatus::Differs {
                    line,
                    expected: a.unwrap_or("<end of snapshot>").to_owned(),
                    actual: b.unwrap_or("<end of output>").to_owned(),
                };
            }
        }
    }
}

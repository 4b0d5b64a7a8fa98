//! The shipped rules (`rules/`) tested from their files alone, so that a rule added with its
//! fixtures needs no change here:
//!
//! * every rule file has a `valid` and an `invalid` fixture in `tests/fixtures/rules/<family>/`,
//!   the family being the rule id without its `-ts`/`-tsx` suffix and the extension the rule's
//!   language's (`.ts` for TypeScript, `.tsx` for Tsx);
//! * every fixture there, run through the real ast-grep engine with the built-in rule pack: one
//!   whose name starts with `valid` has no finding; one whose name starts with `invalid` has
//!   findings of its own rule only, and what `check` prints for it (the human form: code frame,
//!   note, fix mark, summary) and the text `check --fix` writes are snapshot-tested, one snapshot
//!   per fixture (`…__rule_fixtures__check@<family>__<file>.snap`);
//! * every `-tsx` twin generated from its `-ts` rule is exactly what `scripts/rule-twins` writes,
//!   and one kept by hand differs from it in more than its `id` and `language`
//!   (docs/rules.md says why both files exist);
//!
//! and what the files cannot say: paths that exempt a file, unused suppressions, columns counted
//! in characters, and the embedded pack being the files on disk.

use crate::support::snapshot::assert_snapshot;
use crate::support::{checkout, test_data};
use pi_native_hooks_analysis::{Analyzer, Finding, RuleSet, ScanLimits};
use pi_native_hooks_cli::fix;
use pi_native_hooks_cli::format::{self, Diagnostic, Format, Report, Summary};
use pi_native_hooks_config::builtin;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

fn analyzer() -> Analyzer {
    let load = RuleSet::load(&builtin::rule_files(), &[]);
    assert!(
        load.errors.is_empty(),
        "built-in rules must load: {:?}",
        load.errors
    );
    Analyzer::new(
        "ast-grep:builtin",
        Arc::new(load.rules),
        ScanLimits::default(),
        1,
    )
    .expect("analyzer starts")
}

/// The findings of the built-in pack in `text`, analyzed as the file `path`.
fn scan(path: &str, text: &str) -> Vec<Finding> {
    let snapshot = analyzer().scan_sources(&[(path.to_owned(), text.to_owned())]);
    assert!(snapshot.is_complete(), "{path}: {snapshot:?}");
    snapshot.findings.clone()
}

fn scan_fixture(relative: &str) -> Vec<String> {
    let dir = test_data("fixtures");
    let text = std::fs::read_to_string(dir.join(relative)).expect("fixture is readable");
    scan(relative, &text)
        .iter()
        .map(|f| {
            format!(
                "{f} [{}..{}:{}]",
                f.severity,
                f.range.end.line + 1,
                f.range.end.column + 1
            )
        })
        .collect()
}

/// A shipped rule file, and where its fixtures are.
struct ShippedRule {
    file: String,
    id: String,
    family: String,
    extension: &'static str,
}

/// The value of the top-level `key: value` line of a rule file.
fn top_level<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines()
        .find_map(|line| line.strip_prefix(key)?.strip_prefix(": "))
        .map(str::trim)
}

/// The names of the entries of `rules/`, sorted.
fn rule_file_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("rules/ is readable")
        .map(|e| {
            e.expect("a rules/ entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

/// The rule files in `rules/` (what the built-in pack embeds, see
/// [`every_shipped_rule_file_is_embedded`]), keyed by fixture family and extension.
fn shipped_rules() -> BTreeMap<(String, &'static str), ShippedRule> {
    let mut rules = BTreeMap::new();
    let dir = checkout().join("rules");
    let files: Vec<(String, String)> = rule_file_names(&dir)
        .into_iter()
        .filter(|name| name.ends_with(".yml"))
        .map(|name| {
            let text = std::fs::read_to_string(dir.join(&name)).expect("a rule is readable");
            (name, text)
        })
        .collect();
    for (file, text) in &files {
        let id = top_level(text, "id").unwrap_or_else(|| panic!("rules/{file} has no `id:`"));
        let language = top_level(text, "language")
            .unwrap_or_else(|| panic!("rules/{file} has no `language:`"));
        // A language without an entry here needs one: its fixtures' extension.
        let extension = match language {
            "TypeScript" => "ts",
            "Tsx" => "tsx",
            other => panic!("rules/{file}: no fixture extension is known for {other}"),
        };
        let family = id
            .strip_suffix(&format!("-{extension}"))
            .unwrap_or(id)
            .to_owned();
        let rule = ShippedRule {
            file: file.clone(),
            id: id.to_owned(),
            family: family.clone(),
            extension,
        };
        if let Some(other) = rules.insert((family, extension), rule) {
            panic!("rules/{file} shares its fixtures with rules/{}", other.file);
        }
    }
    rules
}

#[test]
fn every_shipped_rule_has_a_valid_and_an_invalid_fixture() {
    let fixtures = test_data("fixtures/rules");
    let missing: Vec<String> = shipped_rules()
        .values()
        .flat_map(|rule| {
            ["valid", "invalid"].map(|kind| {
                let fixture = format!("{}/{kind}.{}", rule.family, rule.extension);
                (rule, fixture)
            })
        })
        .filter(|(_, fixture)| !fixtures.join(fixture).is_file())
        .map(|(rule, fixture)| format!("rules/{}: tests/fixtures/rules/{fixture}", rule.file))
        .collect();
    assert!(
        missing.is_empty(),
        "every shipped rule needs a valid and an invalid fixture; missing:\n{}",
        missing.join("\n")
    );
}

/// What `check` prints for `findings` of the file `path` holding `text`, in the human form
/// without colour, then, when a rule has a fix, the text `check --fix` writes.
fn check_output(path: &str, text: &str, findings: &[Finding]) -> String {
    let diagnostics: Vec<Diagnostic<'_>> = findings.iter().map(Diagnostic::from).collect();
    let root = test_data("fixtures");
    let sources = |shown: &str| (shown == path).then(|| text.to_owned());
    let mut out = Vec::new();
    format::write(
        Format::Human,
        &Report {
            diagnostics: &diagnostics,
            summary: Summary {
                analyzed: 1,
                ..Summary::default()
            },
            root: &root,
            cwd: &root,
            sources: &sources,
            color: false,
        },
        &mut out,
    )
    .expect("writes to memory");
    let mut shown = String::from_utf8(out).expect("utf-8");
    let fixable: Vec<&Finding> = findings.iter().collect();
    let (fixes, left_out) = fix::plan(&fixable);
    if !fixes.is_empty() {
        let fixed = fix::rewrite(text.as_bytes(), &fixes);
        shown.push_str("\n`check --fix` writes:\n");
        shown.push_str(&String::from_utf8(fixed).expect("utf-8 fix"));
        if left_out > 0 {
            shown.push_str(&format!(
                "\n{left_out} overlapping fixes are left for the next run.\n"
            ));
        }
    }
    shown
}

#[test]
fn each_fixture_fires_only_its_own_rule_and_what_check_prints_is_snapshot_tested() {
    let rules = shipped_rules();
    let fixtures = test_data("fixtures");
    let fixtures = fixtures.canonicalize().unwrap_or(fixtures);
    insta::glob!("../../fixtures/rules", "**/*.{ts,tsx}", |file| {
        check_fixture(&rules, &fixtures, file);
    });
}

/// The checks of one fixture `file` under `fixtures`; the snapshot is named after the file.
fn check_fixture(
    rules: &BTreeMap<(String, &'static str), ShippedRule>,
    fixtures: &Path,
    file: &Path,
) {
    let relative = file
        .strip_prefix(fixtures)
        .expect("a fixture is under tests/fixtures")
        .to_str()
        .expect("a fixture's path is UTF-8")
        .to_owned();
    let family = relative
        .split('/')
        .nth(1)
        .expect("a fixture is in its rule's directory");
    let extension = file.extension().and_then(|e| e.to_str()).unwrap_or("");
    let Some(rule) = rules.get(&(family.to_owned(), extension)) else {
        panic!("{relative}: no shipped rule has its fixtures in {family}/ for .{extension}")
    };
    let name = file
        .file_name()
        .and_then(|n| n.to_str())
        .expect("a fixture has a name");
    let text = std::fs::read_to_string(file).expect("fixture is readable");
    let findings = scan(&relative, &text);
    let shown = check_output(&relative, &text, &findings);
    if name.starts_with("valid") {
        assert!(
            findings.is_empty(),
            "{relative} must be clean, got:\n{shown}"
        );
    } else if name.starts_with("invalid") {
        assert!(
            !findings.is_empty() && findings.iter().all(|f| f.rule == rule.id.as_str()),
            "{relative}: {} must fire, and only it:\n{shown}",
            rule.id
        );
        assert_snapshot!("check", shown);
    } else {
        panic!("{relative}: a fixture's name starts with `valid` or `invalid`");
    }
}

/// The first line of a generated `-tsx` twin.
fn twin_header(ts_file: &str) -> String {
    format!("# Generated by scripts/rule-twins from {ts_file}: edit that file, not this one.\n")
}

/// The `-tsx` twin of the `-ts` rule `ts_text` of `family`: the same text with the rule id
/// (wherever it is named: `id`, the suppression form in `note`) and the language changed.
fn generated_twin(family: &str, ts_file: &str, ts_text: &str) -> String {
    let (ts_id, tsx_id) = (format!("{family}-ts"), format!("{family}-tsx"));
    let mut body = String::new();
    let mut rest = ts_text;
    while let Some(at) = rest.find(&ts_id) {
        let after = &rest[at + ts_id.len()..];
        let whole = !after
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        body.push_str(&rest[..at]);
        body.push_str(if whole { &tsx_id } else { &ts_id });
        rest = after;
    }
    body.push_str(rest);
    let body: Vec<&str> = body
        .split_inclusive('\n')
        .map(|line| match line.trim_end() {
            "language: TypeScript" => "language: Tsx\n",
            _ => line,
        })
        .collect();
    twin_header(ts_file) + body.concat().as_str()
}

/// Checks every `-tsx` twin in `rules/` against its `-ts` rule: generated, or kept by hand because
/// it differs in more than id and language. With `UPDATE_RULE_TWINS=1` (what `scripts/rule-twins`
/// sets) writes the twins that are not kept by hand instead.
#[test]
fn tsx_twins_are_generated_from_their_ts_rule_unless_they_differ() {
    let dir = checkout().join("rules");
    let update = std::env::var_os("UPDATE_RULE_TWINS").is_some_and(|v| v == "1");
    let names = rule_file_names(&dir);
    let mut problems = Vec::new();
    for ts_file in &names {
        let Some(family) = ts_file.strip_suffix("-ts.yml") else {
            continue;
        };
        let tsx_file = format!("{family}-tsx.yml");
        let ts_text = std::fs::read_to_string(dir.join(ts_file)).expect("a rule is readable");
        let generated = generated_twin(family, ts_file, &ts_text);
        let twin = std::fs::read_to_string(dir.join(&tsx_file)).ok();
        let header = twin_header(ts_file);
        let kept_by_hand = twin.as_deref().is_some_and(|twin| {
            !twin.starts_with(&header) && Some(twin) != generated.strip_prefix(&header)
        });
        if kept_by_hand || twin.as_deref() == Some(generated.as_str()) {
            continue;
        }
        if update {
            std::fs::write(dir.join(&tsx_file), &generated).expect("write a twin");
        } else if twin.is_none() {
            problems.push(format!(
                "rules/{tsx_file} is missing: run scripts/rule-twins to generate it from \
                 rules/{ts_file}"
            ));
        } else {
            problems.push(format!(
                "rules/{tsx_file} is not what scripts/rule-twins generates from rules/{ts_file}: \
                 edit the -ts rule and run scripts/rule-twins (a twin that must differ in more \
                 than id and language is kept by hand, without the generated first line)"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn explicit_any_is_not_steered_in_declaration_files() {
    let findings = scan_fixture("rules/typescript-no-explicit-any/valid.d.ts");
    assert!(findings.is_empty(), "{}", findings.join("\n"));
    // The same text as a source file is flagged: the file name, not the content, exempts it.
    let dir = test_data("fixtures");
    let text = std::fs::read_to_string(dir.join("rules/typescript-no-explicit-any/valid.d.ts"))
        .expect("fixture is readable");
    let snapshot = analyzer().scan_sources(&[("src/legacy.ts".to_owned(), text)]);
    assert!(snapshot.is_complete(), "{snapshot:?}");
    assert_eq!(snapshot.findings.len(), 3, "{:?}", snapshot.findings);
    assert!(
        snapshot
            .findings
            .iter()
            .all(|f| f.rule == "typescript-no-explicit-any-ts")
    );
}

/// The fixtures under `__tests__/` and `scripts/` are clean (checked with every fixture above);
/// here the same text is placed under each kind of exempt path, and two that are not.
#[test]
fn console_output_in_test_and_script_paths_is_not_steered() {
    let dir = test_data("fixtures");
    let text =
        std::fs::read_to_string(dir.join("rules/typescript-no-console-log/__tests__/valid.ts"))
            .expect("fixture is readable");
    let mut sources = Vec::new();
    for path in [
        "src/parser.test.ts",
        "src/parser.spec.tsx",
        "test/parser.ts",
        "packages/a/tests/parser.ts",
        "src/__tests__/parser.ts",
        "src/__mocks__/fs.ts",
        "e2e/login.ts",
        "src/fixtures/input.ts",
        "scripts/release.ts",
        "bin/cli.ts",
        "bench/parse.ts",
        "src/parse.bench.ts",
        "benchmarks/parse.ts",
        "examples/basic.tsx",
    ] {
        sources.push((path.to_owned(), text.clone()));
    }
    // Not a test or script path: both dumps are reported.
    sources.push(("src/parser.ts".to_owned(), text.clone()));
    sources.push(("src/testing/parser.ts".to_owned(), text));
    let snapshot = analyzer().scan_sources(&sources);
    assert!(snapshot.is_complete(), "{snapshot:?}");
    let flagged: Vec<&str> = snapshot.findings.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        flagged,
        [
            "src/parser.ts",
            "src/parser.ts",
            "src/testing/parser.ts",
            "src/testing/parser.ts"
        ]
    );
}

#[test]
fn unused_suppressions_are_hints_and_other_rule_ids_do_not_suppress() {
    let findings = scan_fixture("suppressions/unused.ts");
    assert_snapshot!("suppressions__unused.ts", findings.join("\n"));
    assert_eq!(findings.len(), 3, "{}", findings.join("\n"));
    assert!(
        findings[0].starts_with("suppressions/unused.ts:3:1 unused-suppression"),
        "{}",
        findings[0]
    );
    assert!(
        findings[1].starts_with("suppressions/unused.ts:6:1 unused-suppression"),
        "{}",
        findings[1]
    );
    assert!(
        findings[2].starts_with("suppressions/unused.ts:7:24 typescript-no-non-null-assertion-ts"),
        "{}",
        findings[2]
    );
}

#[test]
fn unicode_before_a_match_counts_characters_not_bytes() {
    let findings = scan_fixture("rules/typescript-no-non-null-assertion/invalid.ts");
    // `export const label = "日本語のテキスト"; export const late = ` is 53 characters but 69 bytes.
    assert!(
        findings
            .iter()
            .any(|f| f.starts_with("rules/typescript-no-non-null-assertion/invalid.ts:7:54 ")),
        "{findings:#?}"
    );
}

#[test]
fn every_shipped_rule_file_is_embedded() {
    let dir = checkout().join("rules");
    let mut on_disk: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".yml"))
        .collect();
    on_disk.sort();
    let embedded: Vec<String> = builtin::RULE_FILES
        .iter()
        .map(|(n, _)| (*n).to_owned())
        .collect();
    assert_eq!(on_disk, embedded);
}

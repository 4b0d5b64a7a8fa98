//! Parity with the ast-grep CLI, the reference implementation of the rules: `ast-grep scan
//! --json=stream` and `pi-native-hooks check --json` run over the same files with the same config
//! root must report the same findings: the same (path, rule, start, end) multiset, unused
//! suppression hints included, suppressed matches absent from both.
//!
//! The ast-grep CLI is required: `. scripts/provision.sh` installs the pinned version and exports
//! `AST_GREP_BIN`. A missing CLI fails the test; it is never skipped.

use crate::support::{ast_grep, cli, corpus, test_data};
use pi_native_hooks_config::builtin;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The id ast-grep reports unused `ast-grep-ignore` comments under.
const UNUSED_SUPPRESSION: &str = "unused-suppression";

/// One reported finding, 1-based, columns in characters.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Hit {
    path: String,
    rule: String,
    line: u64,
    column: u64,
    end_line: u64,
    end_column: u64,
}

impl std::fmt::Display for Hit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}:{}-{}:{} {}",
            self.path, self.line, self.column, self.end_line, self.end_column, self.rule
        )
    }
}

fn ast_grep_binary() -> PathBuf {
    ast_grep::find_binary().unwrap_or_else(|why| {
        panic!(
            "{why}.\nThe parity test needs the pinned ast-grep CLI: run `. scripts/provision.sh` \
             from the repository root (it installs it and exports AST_GREP_BIN), then rerun."
        )
    })
}

fn describe(output: &Output) -> String {
    format!(
        "status {}\n--- stderr ---\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    )
}

fn number(value: &serde_json::Value, pointer: &str, line: &str) -> u64 {
    value
        .pointer(pointer)
        .and_then(serde_json::Value::as_u64)
        .unwrap_or_else(|| panic!("no number at {pointer} in {line}"))
}

fn string(value: &serde_json::Value, pointer: &str, line: &str) -> String {
    value
        .pointer(pointer)
        .and_then(serde_json::Value::as_str)
        .unwrap_or_else(|| panic!("no string at {pointer} in {line}"))
        .trim_start_matches("./")
        .to_owned()
}

fn json_lines(stdout: &[u8]) -> Vec<(serde_json::Value, String)> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("not a JSON line ({e}): {line}"));
            (value, line.to_owned())
        })
        .collect()
}

/// `ast-grep scan --json=stream -c <config> <files>` from `cwd`; positions made 1-based.
fn ast_grep_hits(config: &Path, cwd: &Path, files: &[String]) -> Vec<Hit> {
    let output = Command::new(ast_grep_binary())
        .args(["scan", "--json=stream", "-c"])
        .arg(config)
        .args(files)
        .current_dir(cwd)
        .output()
        .expect("run the ast-grep CLI");
    assert!(
        output.status.success(),
        "ast-grep scan failed: {}",
        describe(&output)
    );
    let mut hits: Vec<Hit> = json_lines(&output.stdout)
        .iter()
        .map(|(value, line)| Hit {
            path: string(value, "/file", line),
            rule: string(value, "/ruleId", line),
            line: number(value, "/range/start/line", line) + 1,
            column: number(value, "/range/start/column", line) + 1,
            end_line: number(value, "/range/end/line", line) + 1,
            end_column: number(value, "/range/end/column", line) + 1,
        })
        .collect();
    hits.sort();
    hits
}

/// `pi-native-hooks check --json --config <root> <files>` from `cwd`.
fn check_hits(config_root: &Path, cwd: &Path, files: &[String]) -> Vec<Hit> {
    let output = cli::binary()
        .args(["check", "--json", "--config"])
        .arg(config_root)
        .args(files)
        .current_dir(cwd)
        .output()
        .expect("run pi-native-hooks check");
    let mut hits: Vec<Hit> = json_lines(&output.stdout)
        .iter()
        .map(|(value, line)| Hit {
            path: string(value, "/path", line),
            rule: string(value, "/rule", line),
            line: number(value, "/line", line),
            column: number(value, "/column", line),
            end_line: number(value, "/endLine", line),
            end_column: number(value, "/endColumn", line),
        })
        .collect();
    hits.sort();
    let expected = i32::from(!hits.is_empty());
    assert_eq!(
        output.status.code(),
        Some(expected),
        "check must exit {expected} with {} findings: {}",
        hits.len(),
        describe(&output)
    );
    assert!(
        output.stderr.is_empty(),
        "check warned about the scan: {}",
        describe(&output)
    );
    hits
}

/// Hits in `a` that `b` lacks, as a multiset difference.
fn missing_from(a: &[Hit], b: &[Hit]) -> Vec<Hit> {
    let mut counts: BTreeMap<&Hit, i64> = BTreeMap::new();
    for hit in b {
        *counts.entry(hit).or_default() += 1;
    }
    let mut missing = Vec::new();
    for hit in a {
        let count = counts.entry(hit).or_default();
        if *count > 0 {
            *count -= 1;
        } else {
            missing.push(hit.clone());
        }
    }
    missing
}

fn listing(hits: &[Hit]) -> String {
    let mut lines: Vec<String> = hits.iter().take(30).map(ToString::to_string).collect();
    if hits.len() > 30 {
        lines.push(format!("... and {} more", hits.len() - 30));
    }
    lines.join("\n")
}

/// What one parity run saw, for the non-vacuity assertions of each case.
struct Parity {
    /// The findings both tools reported (identical), unused-suppression hints included.
    hits: Vec<Hit>,
    /// Matches the suppression comments removed: reported by neither tool.
    suppressed: Vec<Hit>,
    /// How many `ast-grep-ignore` comments the files hold.
    directives: usize,
}

impl Parity {
    fn count(&self, rule: &str) -> usize {
        self.hits.iter().filter(|h| h.rule == rule).count()
    }
}

/// Copies `files` from `dir` to `to` with every `ast-grep-ignore` comment disabled (same length,
/// so no position moves).
fn copy_without_suppressions(dir: &Path, to: &Path, files: &[String]) -> usize {
    let mut directives = 0;
    for file in files {
        let text = std::fs::read_to_string(dir.join(file)).expect("read a scanned file");
        directives += text.matches("ast-grep-ignore").count();
        let target = to.join(file);
        std::fs::create_dir_all(target.parent().expect("a file has a parent"))
            .expect("create a directory for the unsuppressed copy");
        std::fs::write(target, text.replace("ast-grep-ignore", "ast-grep-ignorX"))
            .expect("write the unsuppressed copy");
    }
    directives
}

/// Runs both tools over `files` (relative to `dir`, which is also the working directory) and
/// asserts identical findings.
fn assert_parity(dir: &Path, files: &[String]) -> Parity {
    assert!(!files.is_empty());
    let config_root = tempfile::Builder::new()
        .prefix("pnh-parity-config-")
        .tempdir()
        .expect("create the config root");
    let config = ast_grep::write_config_root(config_root.path());

    let reference = ast_grep_hits(&config, dir, files);
    let ours = check_hits(config_root.path(), dir, files);
    let only_reference = missing_from(&reference, &ours);
    let only_ours = missing_from(&ours, &reference);
    assert!(
        only_reference.is_empty() && only_ours.is_empty(),
        "pi-native-hooks check and ast-grep disagree over {} files ({} vs {} findings)\n\
         --- only ast-grep ---\n{}\n--- only pi-native-hooks ---\n{}",
        files.len(),
        reference.len(),
        ours.len(),
        listing(&only_reference),
        listing(&only_ours),
    );

    // The same files with the suppressions disabled: what they hide must be absent from both.
    let unsuppressed_dir = tempfile::Builder::new()
        .prefix("pnh-parity-unsuppressed-")
        .tempdir()
        .expect("create the unsuppressed copy");
    let directives = copy_without_suppressions(dir, unsuppressed_dir.path(), files);
    let unsuppressed = ast_grep_hits(&config, unsuppressed_dir.path(), files);
    assert!(
        unsuppressed.iter().all(|h| h.rule != UNUSED_SUPPRESSION),
        "disabled suppressions must not be reported"
    );
    let reported: Vec<Hit> = ours
        .iter()
        .filter(|h| h.rule != UNUSED_SUPPRESSION)
        .cloned()
        .collect();
    let stray = missing_from(&reported, &unsuppressed);
    assert!(
        stray.is_empty(),
        "findings that appear only with suppressions on:\n{}",
        listing(&stray)
    );
    let suppressed = missing_from(&unsuppressed, &reported);
    Parity {
        hits: ours,
        suppressed,
        directives,
    }
}

/// The ids of the shipped rules, sorted.
fn shipped_rule_ids() -> Vec<String> {
    let mut ids: Vec<String> = builtin::RULE_FILES
        .iter()
        .map(|(name, text)| {
            text.lines()
                .find_map(|line| line.strip_prefix("id: "))
                .unwrap_or_else(|| panic!("{name} has no `id:` line"))
                .trim()
                .to_owned()
        })
        .collect();
    ids.sort();
    ids
}

/// Generates `files` corpus files with `seed` and checks parity, with findings of every rule,
/// used and unused suppressions, and every file scanned by both tools. Returns a summary line.
fn corpus_case(files: usize, seed: u64) -> String {
    let dir = tempfile::Builder::new()
        .prefix("pnh-parity-corpus-")
        .tempdir()
        .expect("create the corpus directory");
    let paths = corpus::generate(dir.path(), files, seed);
    assert_eq!(paths.len(), files);
    let parity = assert_parity(dir.path(), &paths);

    for rule in shipped_rule_ids()
        .iter()
        .map(String::as_str)
        .chain([UNUSED_SUPPRESSION])
    {
        assert!(
            parity.count(rule) > 0,
            "seed {seed}: the corpus must exercise {rule}"
        );
    }
    for family in shipped_rule_ids()
        .iter()
        .filter_map(|id| id.strip_suffix("-tsx"))
    {
        assert!(
            parity.suppressed.iter().any(|h| h
                .rule
                .strip_suffix("-ts")
                .or(h.rule.strip_suffix("-tsx"))
                == Some(family)),
            "seed {seed}: the corpus must suppress a finding of {family}"
        );
    }
    let unused = parity.count(UNUSED_SUPPRESSION);
    assert!(
        parity.directives > unused && !parity.suppressed.is_empty(),
        "seed {seed}: some of the {} suppressions must be used ({unused} unused, {} suppressed)",
        parity.directives,
        parity.suppressed.len()
    );
    for path in &paths {
        assert!(
            parity.hits.iter().any(|h| &h.path == path),
            "seed {seed}: {path} has no finding: was it scanned?"
        );
    }
    format!(
        "seed {seed}: {files} files, {} findings identical ({unused} unused-suppression hints), \
         {} matches suppressed by {} comments",
        parity.hits.len(),
        parity.suppressed.len(),
        parity.directives
    )
}

#[test]
fn generated_corpus_seed_1_matches_the_cli() {
    eprintln!("{}", corpus_case(40, 1));
}

#[test]
fn generated_corpus_seed_2_matches_the_cli() {
    eprintln!("{}", corpus_case(40, 2));
}

/// Every file under `dir`, relative, sorted.
fn files_under(dir: &Path, prefix: &Path, out: &mut Vec<String>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("list the fixtures")
        .map(|e| e.expect("list the fixtures").path())
        .collect();
    entries.sort();
    for path in entries {
        let relative = prefix.join(path.file_name().expect("an entry has a name"));
        if path.is_dir() {
            files_under(&path, &relative, out);
        } else {
            out.push(relative.to_string_lossy().replace('\\', "/"));
        }
    }
}

#[test]
fn rule_fixtures_match_the_cli() {
    let fixtures = test_data("fixtures");
    let mut files = Vec::new();
    files_under(&fixtures, Path::new(""), &mut files);
    files.retain(|f| f.ends_with(".ts") || f.ends_with(".tsx"));
    let dir = tempfile::Builder::new()
        .prefix("pnh-parity-fixtures-")
        .tempdir()
        .expect("create the fixtures directory");
    for file in &files {
        let target = dir.path().join(file);
        std::fs::create_dir_all(target.parent().expect("a fixture has a parent"))
            .expect("create a fixture directory");
        std::fs::copy(fixtures.join(file), target).expect("copy a fixture");
    }
    let parity = assert_parity(dir.path(), &files);

    for file in files.iter().filter(|f| f.contains("/invalid.")) {
        assert!(
            parity.hits.iter().any(|h| &h.path == file),
            "{file} must have findings"
        );
    }
    for file in files.iter().filter(|f| f.contains("/valid.")) {
        assert!(
            parity.hits.iter().all(|h| &h.path != file),
            "{file} must be clean"
        );
    }
    assert_eq!(
        parity.count(UNUSED_SUPPRESSION),
        2,
        "suppressions/unused.ts holds two unused suppressions"
    );
    assert!(
        !parity.suppressed.is_empty(),
        "the valid fixtures hold suppressed matches"
    );
    eprintln!(
        "fixtures: {} files, {} findings identical, {} matches suppressed by {} comments",
        files.len(),
        parity.hits.len(),
        parity.suppressed.len(),
        parity.directives
    );
}

/// Suppression forms the generated corpus does not write: file-level suppressions (first line,
/// then a blank line), a trailing comment after a multi-line statement, a leading and a trailing
/// comment keyed to the same line, block and multi-line doc comments, prose that mentions the
/// directive, a comment inside JSX, CRLF line endings and tabs.
const EDGE_CASES: &[(&str, &str)] = &[
    (
        "file_level.ts",
        "// ast-grep-ignore: typescript-no-non-null-assertion-ts\n\n\
         declare const user: { name?: string } | undefined;\n\
         export const a = user!.name;\n\
         export const b = import(\"./b\");\n",
    ),
    (
        "file_level_all.ts",
        "// ast-grep-ignore\n\n\
         declare const user: { name?: string } | undefined;\n\
         export const a = user!.name;\n\
         // ast-grep-ignore: typescript-no-dynamic-import-ts -- not reported: the file is suppressed\n\
         export const b = 1;\n",
    ),
    (
        "file_level_unused.ts",
        "// ast-grep-ignore: typescript-no-dynamic-import-ts\n\n\
         declare const user: { name?: string } | undefined;\n\
         export const a = user!.name;\n",
    ),
    (
        "first_line.ts",
        "// ast-grep-ignore: typescript-no-non-null-assertion-ts\n\
         export const a = (globalThis as { user?: { name: string } }).user!.name;\n\
         export const b = (globalThis as { user?: { name: string } }).user!.name;\n",
    ),
    (
        "multi_line.ts",
        "declare const user: { name?: string } | undefined;\n\
         export const joined = [user!.name,\n  \"x\"].join(\"/\"); \
         // ast-grep-ignore: typescript-no-non-null-assertion-ts -- keyed by the statement's first line\n\
         export const late = [\n  user!.name,\n].join(\"/\"); \
         // ast-grep-ignore: typescript-no-non-null-assertion-ts -- does not reach the second line\n\
         // ast-grep-ignore: typescript-no-non-null-assertion-ts -- leading\n\
         export const twice = user!.name; \
         // ast-grep-ignore: typescript-no-non-null-assertion-ts -- trailing\n\
         /* ast-grep-ignore: typescript-no-non-null-assertion-ts -- block comment */\n\
         export const block = user!.name;\n\
         /**\n * ast-grep-ignore: typescript-no-non-null-assertion-ts -- doc comment\n */\n\
         export const doc = user!.name;\n\
         // a comment that mentions ast-grep-ignore in prose does not suppress\n\
         export const prose = user!.name;\n",
    ),
    (
        "jsx.tsx",
        "declare const user: { name?: string } | undefined;\n\
         export function View() {\n  return (\n    <div>\n      \
         {/* ast-grep-ignore: typescript-no-non-null-assertion-tsx -- inside JSX */}\n      \
         {user!.name}\n      {user!.name}\n    </div>\n  );\n}\n",
    ),
    (
        "crlf_tabs.ts",
        "declare const user: { name?: string } | undefined;\r\n\
         // ast-grep-ignore: typescript-no-non-null-assertion-ts -- CRLF\r\n\
         export const a = user!.name;\r\n\
         export const b = \"é\" + user!.name;\r\n\
         \tconst c = user!.name;\r\n",
    ),
];

#[test]
fn suppression_edge_cases_match_the_cli() {
    let dir = tempfile::Builder::new()
        .prefix("pnh-parity-edge-")
        .tempdir()
        .expect("create the edge-case directory");
    let files: Vec<String> = EDGE_CASES
        .iter()
        .map(|(name, text)| {
            std::fs::write(dir.path().join(name), text).expect("write an edge case");
            (*name).to_owned()
        })
        .collect();
    let parity = assert_parity(dir.path(), &files);

    let in_file =
        |file: &str| -> Vec<&Hit> { parity.hits.iter().filter(|h| h.path == file).collect() };
    assert!(
        in_file("file_level_all.ts").is_empty(),
        "a bare first-line suppression silences the whole file, unused directives included"
    );
    assert!(
        in_file("file_level.ts")
            .iter()
            .all(|h| h.rule == "typescript-no-dynamic-import-ts"),
        "a first-line suppression names the rules it silences in the whole file"
    );
    assert_eq!(
        in_file("multi_line.ts")
            .iter()
            .filter(|h| h.rule == UNUSED_SUPPRESSION)
            .count(),
        3,
        "multi_line.ts: the trailing comment after the second line, the overwritten leading \
         comment and the multi-line doc comment are unused"
    );
    assert!(!parity.suppressed.is_empty());
    eprintln!(
        "edge cases: {} files, {} findings identical, {} matches suppressed by {} comments",
        files.len(),
        parity.hits.len(),
        parity.suppressed.len(),
        parity.directives
    );
}

/// The config root `pi-native-hooks init` creates stays a plain ast-grep project: the ast-grep
/// CLI runs on it unchanged (`-c <root>/sgconfig.yml`) and finds what `check --config <root>`
/// finds.
#[test]
fn an_initialized_config_root_is_a_valid_ast_grep_project() {
    let home = tempfile::tempdir().expect("create a home");
    let root = home.path().join("pi-native-hooks");
    let init = cli::binary()
        .args(["init", "--config"])
        .arg(&root)
        .output()
        .expect("run init");
    assert!(init.status.success(), "{}", describe(&init));
    let dir = tempfile::tempdir().expect("create the files");
    std::fs::write(
        dir.path().join("a.ts"),
        "declare const u: { n?: string };\nexport const a = u!.n;\n// ast-grep-ignore: typescript-no-dynamic-import-ts -- stale\nexport const b = 1;\n",
    )
    .expect("write a.ts");
    std::fs::write(
        dir.path().join("b.tsx"),
        "export const B = () => <i>{String(import(\"./c\"))}</i>;\n",
    )
    .expect("write b.tsx");
    let files = vec!["a.ts".to_owned(), "b.tsx".to_owned()];
    let reference = ast_grep_hits(&root.join("sgconfig.yml"), dir.path(), &files);
    let ours = check_hits(&root, dir.path(), &files);
    assert_eq!(reference.len(), 3, "{}", listing(&reference));
    assert!(
        missing_from(&reference, &ours).is_empty() && missing_from(&ours, &reference).is_empty(),
        "{}\n---\n{}",
        listing(&reference),
        listing(&ours)
    );
}

/// The rules that report something in the public TypeScript measured in `docs/rules.md`; the
/// vendored sample holds findings of each.
const RULES_FIRING_ON_REAL_CODE: &[&str] = &[
    "typescript-no-dynamic-import-ts",
    "typescript-no-dynamic-import-tsx",
    "typescript-no-empty-catch-ts",
    "typescript-no-empty-catch-tsx",
    "typescript-no-explicit-any-ts",
    "typescript-no-explicit-any-tsx",
    "typescript-no-lint-suppression-ts",
    "typescript-no-lint-suppression-tsx",
    "typescript-no-non-null-assertion-ts",
    "typescript-no-non-null-assertion-tsx",
    "typescript-no-skipped-test-ts",
    "typescript-no-ts-suppression-ts",
    "typescript-no-ts-suppression-tsx",
];

/// Parity on real code: the sample of public TypeScript vendored under `tests/real-corpus/` (its
/// README names the repositories and commits). It is part of the repository so that every machine
/// runs this test; a missing or truncated sample fails it.
#[test]
fn real_code_sample_matches_the_cli() {
    let sample = test_data("real-corpus");
    assert!(
        sample.join("README.md").is_file(),
        "the vendored real-code sample is missing: {} has no README.md",
        sample.display()
    );
    let mut files = Vec::new();
    files_under(&sample, Path::new(""), &mut files);
    files.retain(|f| f.ends_with(".ts") || f.ends_with(".tsx") || f.ends_with(".mts"));
    assert_eq!(
        files.len(),
        240,
        "the vendored real-code sample must hold its 240 files (see its README)"
    );
    // Scanned from a copy outside the repository, so both tools see the same relative paths (inside
    // the repository `check` would report paths from the repository root).
    let dir = tempfile::Builder::new()
        .prefix("pnh-parity-real-")
        .tempdir()
        .expect("create the real-code directory");
    for file in &files {
        let target = dir.path().join(file);
        std::fs::create_dir_all(target.parent().expect("a file has a parent"))
            .expect("create a sample directory");
        std::fs::copy(sample.join(file), target).expect("copy a sample file");
    }
    let parity = assert_parity(dir.path(), &files);
    for rule in RULES_FIRING_ON_REAL_CODE {
        assert!(
            parity.count(rule) > 0,
            "the real-code sample must exercise {rule}"
        );
    }
    assert_eq!(
        parity.count(UNUSED_SUPPRESSION),
        0,
        "real code has no ast-grep-ignore comments"
    );
    eprintln!(
        "real code: {} files, {} findings identical",
        files.len(),
        parity.hits.len()
    );
}

/// The rules' `fix:` rewrites, applied by the ast-grep CLI (`scan --update-all`): a focused test
/// loses its focus, a `debugger` statement disappears (or becomes `;` where it is a whole `if`
/// body), the result is clean for those rules, and files of rules without a fix are left byte for
/// byte.
#[test]
fn fixes_remove_the_focus_and_debugger_statements() {
    let fixtures = test_data("fixtures/rules");
    let dir = tempfile::tempdir().expect("create the fix directory");
    let files: Vec<String> = [
        "typescript-no-focused-test/invalid.ts",
        "typescript-no-focused-test/invalid.tsx",
        "typescript-no-debugger/invalid.ts",
        "typescript-no-debugger/invalid.tsx",
        "typescript-no-skipped-test/invalid.ts",
        "typescript-no-explicit-any/invalid.ts",
    ]
    .iter()
    .map(|file| {
        let target = dir.path().join(file);
        std::fs::create_dir_all(target.parent().expect("a fixture has a parent"))
            .expect("create a fixture directory");
        std::fs::copy(fixtures.join(file), &target).expect("copy a fixture");
        (*file).to_owned()
    })
    .collect();
    let config_root = tempfile::tempdir().expect("create the config root");
    let config = ast_grep::write_config_root(config_root.path());
    let output = Command::new(ast_grep_binary())
        .args(["scan", "--update-all", "-c"])
        .arg(&config)
        .args(&files)
        .current_dir(dir.path())
        .output()
        .expect("run the ast-grep CLI");
    assert!(output.status.success(), "{}", describe(&output));

    let read = |file: &str| std::fs::read_to_string(dir.path().join(file)).expect("read a file");
    let focused = read("typescript-no-focused-test/invalid.ts");
    assert_eq!(
        focused.lines().take(7).collect::<Vec<_>>(),
        [
            "describe(\"parser\", () => {",
            "  it(\"parses\", () => {});",
            "  test(\"tokens\", () => {});",
            "  it(\"jasmine focus\", () => {});",
            "  it.each([1, 2])(\"value %i\", () => {});",
            "});",
            "describe(\"jasmine\", () => {});",
        ]
    );
    assert!(
        focused.contains("test.describe(\"playwright\"")
            && focused.contains("describe.concurrent(\"vitest\"")
            && !focused.contains(".only"),
        "{focused}"
    );
    let debugger = read("typescript-no-debugger/invalid.ts");
    assert!(!debugger.contains("debugger"), "{debugger}");
    // A statement in a block is removed; the whole body of an `if` becomes an empty statement, so
    // the next statement does not become the body.
    assert!(
        debugger.contains("\n  if (value > 1) ;\n  return value;\n"),
        "{debugger}"
    );
    for file in [
        "typescript-no-skipped-test/invalid.ts",
        "typescript-no-explicit-any/invalid.ts",
    ] {
        assert_eq!(
            read(file),
            std::fs::read_to_string(fixtures.join(file)).expect("read a fixture"),
            "{file} has no fix and must be unchanged"
        );
    }

    let after = ast_grep_hits(&config, dir.path(), &files);
    assert!(
        after
            .iter()
            .all(|h| !h.rule.starts_with("typescript-no-focused-test")
                && !h.rule.starts_with("typescript-no-debugger")),
        "{}",
        listing(&after)
    );
    assert_eq!(
        after
            .iter()
            .filter(|h| h.rule == "typescript-no-skipped-test-ts")
            .count(),
        12,
        "{}",
        listing(&after)
    );
}

//! `pi-native-hooks check --fix`: byte-identical with `ast-grep scan --update-all` (the pinned CLI,
//! the reference implementation of `fix:`) on the same files with the same config root, and the
//! command's own behaviour: what it reports, how it exits, what it refuses to write.
//!
//! The ast-grep CLI is required: `. scripts/provision.sh` installs the pinned version and exports
//! `AST_GREP_BIN`. A missing CLI fails the test; it is never skipped.

use crate::support::cli::check;
use crate::support::{TestRepo, ast_grep, test_data};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Rules used only here, beside the shipped ones, so that real code has fixes to apply: nested
/// member expressions (a fix enclosing another at the same start), arguments removed with their
/// comma (`expandEnd`), a parameter replaced from its name (`expandStart`), a multi-line template
/// re-indented at its match, and a list of fixes (the first one applies).
const EXTRA_RULES: &[(&str, &str)] = &[
    (
        "fix-optional-member",
        "severity: info\nmessage: member\nrule:\n  pattern: $A.$B\nfix: $A?.$B\n",
    ),
    (
        "fix-drop-string-argument",
        "severity: info\nmessage: string argument\nrule:\n  kind: string\n  inside:\n    kind: arguments\nfix:\n  template: ''\n  expandEnd:\n    regex: ^,$\n",
    ),
    (
        "fix-rename-parameter",
        "severity: info\nmessage: typed parameter\nrule:\n  kind: type_annotation\n  inside:\n    kind: required_parameter\nfix:\n  template: renamed\n  expandStart:\n    kind: identifier\n",
    ),
    (
        "fix-block-return",
        "severity: hint\nmessage: return\nrule:\n  pattern: return $A;\nfix: |-\n  {\n    return $A;\n  }\n",
    ),
    (
        "fix-void-undefined",
        "severity: info\nmessage: undefined\nrule:\n  kind: undefined\nfix:\n  - template: void 0\n    title: void\n  - template: (undefined)\n    title: parenthesized\n",
    ),
    (
        "fix-wrap-f",
        "severity: info\nmessage: f\nrule:\n  pattern: f($A)\nfix: g($A)\n",
    ),
];

fn ast_grep_binary() -> PathBuf {
    ast_grep::find_binary().unwrap_or_else(|why| {
        panic!(
            "{why}.\nThe fix parity test needs the pinned ast-grep CLI: run `. scripts/provision.sh` \
             from the repository root (it installs it and exports AST_GREP_BIN), then rerun."
        )
    })
}

/// A config root with the shipped rules and, when `extra`, [`EXTRA_RULES`] for both languages.
/// Returns the directory (kept alive) and its `sgconfig.yml`.
fn config_root(extra: bool) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix("pnh-fix-config-")
        .tempdir()
        .expect("create the config root");
    let config = ast_grep::write_config_root(dir.path());
    if extra {
        for (id, body) in EXTRA_RULES {
            for (suffix, language) in [("ts", "TypeScript"), ("tsx", "Tsx")] {
                let path = dir.path().join(format!("rules/{id}-{suffix}.yml"));
                std::fs::write(
                    &path,
                    format!("id: {id}-{suffix}\nlanguage: {language}\n{body}"),
                )
                .expect("write a test rule");
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644))
                    .expect("set the mode of a test rule");
            }
        }
    }
    (dir, config)
}

/// Writes `files` under `dir`.
fn write_files(dir: &Path, files: &[(String, Vec<u8>)]) {
    for (path, bytes) in files {
        let target = dir.join(path);
        std::fs::create_dir_all(target.parent().expect("a file has a parent"))
            .expect("create a directory");
        std::fs::write(target, bytes).expect("write a file");
    }
}

/// What one parity run saw.
struct FixParity {
    /// Files the fixes changed (identically in both copies).
    changed: usize,
    /// Fixes applied, from `check`'s summary line.
    applied: usize,
    /// `check`'s stderr.
    stderr: String,
}

/// `applied N fix(es) in M file(s)` from `check`'s stderr.
fn applied(stderr: &str) -> (usize, usize) {
    let line = stderr
        .lines()
        .find_map(|line| line.strip_prefix("pi-native-hooks: note: applied "))
        .unwrap_or_else(|| panic!("no summary line in:\n{stderr}"));
    let words: Vec<&str> = line.split(' ').collect();
    let number = |index: usize| {
        words
            .get(index)
            .and_then(|w| w.parse().ok())
            .unwrap_or_else(|| panic!("unexpected summary line: {line}"))
    };
    (number(0), number(3))
}

/// The first line where `ours` and `reference` differ, for the failure message.
fn first_difference(ours: &[u8], reference: &[u8]) -> String {
    let ours = String::from_utf8_lossy(ours);
    let reference = String::from_utf8_lossy(reference);
    let (mut a, mut b) = (ours.split('\n'), reference.split('\n'));
    for line in 1.. {
        match (a.next(), b.next()) {
            (Some(x), Some(y)) if x == y => {}
            (None, None) => break,
            (x, y) => {
                return format!("line {line}:\n  check --fix: {x:?}\n  ast-grep:    {y:?}");
            }
        }
    }
    "identical".to_owned()
}

/// Copies `files` twice, runs `ast-grep scan --update-all -c <config>` on one copy and
/// `pi-native-hooks check --fix --config <root>` on the other, and asserts every file is
/// byte-identical afterwards.
fn assert_fix_parity(files: &[(String, Vec<u8>)], extra: bool) -> FixParity {
    assert!(!files.is_empty());
    let (root, config) = config_root(extra);
    let reference = tempfile::Builder::new()
        .prefix("pnh-fix-reference-")
        .tempdir()
        .expect("create the reference copy");
    let ours = tempfile::Builder::new()
        .prefix("pnh-fix-ours-")
        .tempdir()
        .expect("create our copy");
    write_files(reference.path(), files);
    write_files(ours.path(), files);
    let names: Vec<&str> = files.iter().map(|(path, _)| path.as_str()).collect();

    let output = Command::new(ast_grep_binary())
        .args(["scan", "--update-all", "-c"])
        .arg(&config)
        .args(&names)
        .current_dir(reference.path())
        .output()
        .expect("run the ast-grep CLI");
    assert!(
        output.status.success(),
        "ast-grep scan --update-all failed: {}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );

    let root_arg = root.path().to_str().expect("a UTF-8 temp path");
    let mut args = vec!["--fix", "--config", root_arg];
    args.extend(&names);
    let (code, _stdout, stderr) = check(ours.path(), &args);
    assert!(
        code == 0 || code == 1,
        "check --fix exited {code}:\n{stderr}"
    );
    assert!(
        !stderr.contains("limit"),
        "check reached its findings limit, so some fixes were not applied:\n{stderr}"
    );
    let (applied, fixed_files) = applied(&stderr);

    let mut changed = 0;
    let mut mismatched = Vec::new();
    for (path, original) in files {
        let theirs = std::fs::read(reference.path().join(path)).expect("read the reference copy");
        let mine = std::fs::read(ours.path().join(path)).expect("read our copy");
        if mine != theirs {
            mismatched.push(format!("{path}: {}", first_difference(&mine, &theirs)));
        } else if &mine != original {
            changed += 1;
        }
    }
    assert!(
        mismatched.is_empty(),
        "check --fix and ast-grep --update-all wrote different files ({} of {}):\n{}",
        mismatched.len(),
        files.len(),
        mismatched.join("\n")
    );
    assert_eq!(
        fixed_files, changed,
        "the summary counts the files that changed:\n{stderr}"
    );
    FixParity {
        changed,
        applied,
        stderr,
    }
}

/// Every file under `dir` whose name ends with one of `extensions`, relative, sorted.
fn files_under(dir: &Path, extensions: &[&str]) -> Vec<(String, Vec<u8>)> {
    fn walk(dir: &Path, prefix: &str, extensions: &[&str], out: &mut Vec<(String, Vec<u8>)>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .expect("list test data")
            .map(|entry| entry.expect("list test data").path())
            .collect();
        entries.sort();
        for path in entries {
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .expect("a UTF-8 name");
            let relative = format!("{prefix}{name}");
            if path.is_dir() {
                walk(&path, &format!("{relative}/"), extensions, out);
            } else if extensions.iter().any(|ext| name.ends_with(ext)) {
                out.push((relative, std::fs::read(&path).expect("read test data")));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, "", extensions, &mut out);
    out
}

#[test]
fn shipped_rule_fixtures_are_fixed_as_ast_grep_fixes_them() {
    let files = files_under(&test_data("fixtures"), &[".ts", ".tsx"]);
    let parity = assert_fix_parity(&files, false);
    // The focused-test and debugger fixtures (four files) and the unused suppressions.
    assert!(
        parity.changed >= 5,
        "{} files changed:\n{}",
        parity.changed,
        parity.stderr
    );
    assert!(parity.applied >= 17, "{}", parity.stderr);
}

#[test]
fn real_code_is_fixed_as_ast_grep_fixes_it() {
    let sample = test_data("real-corpus");
    let files = files_under(&sample, &[".ts", ".tsx", ".mts"]);
    let count = files.len();
    assert_eq!(count, 240, "the vendored sample holds 240 files");
    // In batches of at most 24 KiB of source, so that no run reaches the findings limit (about 19
    // findings per KiB with the extra rules): every fix of every file is compared.
    let mut batches: Vec<Vec<(String, Vec<u8>)>> = vec![Vec::new()];
    for file in files {
        let size: usize = batches
            .last()
            .map_or(0, |b| b.iter().map(|(_, t)| t.len()).sum());
        if size + file.1.len() > 24 * 1024 && batches.last().is_some_and(|b| !b.is_empty()) {
            batches.push(Vec::new());
        }
        batches.last_mut().expect("a batch").push(file);
    }
    let (mut changed, mut applied, mut overlapped) = (0, 0, 0);
    for batch in &batches {
        let parity = assert_fix_parity(batch, true);
        changed += parity.changed;
        applied += parity.applied;
        // Nested member expressions: the enclosing one was applied, the others wait.
        overlapped += usize::from(
            parity
                .stderr
                .contains("overlapped a fix applied in this run"),
        );
    }
    assert!(
        changed >= 150 && applied >= 4_500 && overlapped > 0,
        "{changed} files changed, {applied} fixes, {overlapped} batches with overlaps"
    );
    eprintln!(
        "real code: {count} files in {} runs, {changed} changed identically by {applied} fixes",
        batches.len()
    );
}

/// Crafted edge cases: overlapping and adjacent matches, CRLF line ends, multi-byte characters,
/// used and unused suppressions, a fix at the end of a file without a final newline.
fn crafted_files() -> Vec<(String, Vec<u8>)> {
    let files: [(&str, &str); 6] = [
        (
            "overlap.ts",
            "f(f(f(1)));\nf(1);f(2);f(3);\nconst v = a.b.c.d(f(x.y));\nf(f(1)) + f(f(2));\n",
        ),
        (
            "crlf.test.ts",
            "describe(\"crlf\", () => {\r\n  it.only(\"one\", () => {\r\n    debugger;\r\n    return f(1);\r\n  });\r\n  if (ok) debugger;\r\n});\r\n",
        ),
        (
            "multibyte.test.ts",
            "const s = \"héllo 🎉\"; const t = \"日本語\";\nfit(\"ü → ö\", () => { debugger; return f(\"🎉\", \"é\"); });\nconst e = \"e\u{301}\"; f(e);\n",
        ),
        (
            "suppressions.test.ts",
            "// ast-grep-ignore: typescript-no-debugger-ts\ndebugger;\n// ast-grep-ignore: typescript-no-explicit-any-ts\nconst n = 1;\nit.only(\"kept\", () => {}); // ast-grep-ignore: typescript-no-focused-test-ts\n  // ast-grep-ignore\n\tdebugger;\n",
        ),
        ("eof.ts", "function x() {\n  return 1;\n}\ndebugger"),
        (
            "adjacent.tsx",
            "debugger;debugger;debugger;\nexport const V = () => <b>{f(1)}{f(2)}</b>;\nfdescribe(\"x\", () => { it.only(\"y\", () => {}); });\n",
        ),
    ];
    files
        .iter()
        .map(|(path, text)| ((*path).to_owned(), text.as_bytes().to_vec()))
        .collect()
}

#[test]
fn crafted_edge_cases_are_fixed_as_ast_grep_fixes_them() {
    let files = crafted_files();
    let parity = assert_fix_parity(&files, true);
    assert_eq!(parity.changed, files.len(), "{}", parity.stderr);
    assert!(
        parity
            .stderr
            .contains("overlapped a fix applied in this run"),
        "{}",
        parity.stderr
    );
}

#[test]
fn crafted_edge_cases_with_the_shipped_rules_alone_match_too() {
    let files = crafted_files();
    let parity = assert_fix_parity(&files, false);
    // Every file but overlap.ts has a focused test, a debugger or an unused suppression.
    assert_eq!(parity.changed, files.len() - 1, "{}", parity.stderr);
}

/// A test file with two fixable findings (a focus, a `debugger`) and one without a fix.
const MIXED: &str =
    "declare const u: { n?: string };\nit.only(\"a\", () => {\n  debugger;\n  return u!.n;\n});\n";
const MIXED_FIXED: &str =
    "declare const u: { n?: string };\nit(\"a\", () => {\n  \n  return u!.n;\n});\n";

#[test]
fn fix_reports_what_it_applied_and_exits_as_what_remains() {
    let repo = TestRepo::init();
    repo.write("src/a.test.ts", MIXED);
    let (code, stdout, stderr) = check(
        repo.path(),
        &["--builtin", "--format", "concise", "--fix", "src/a.test.ts"],
    );
    assert_eq!(code, 1, "the non-null assertion remains:\n{stderr}");
    assert_eq!(
        stdout,
        "src/a.test.ts:4:10 typescript-no-non-null-assertion-ts Non-null assertion `!` hides a \
         possibly null or undefined value.\n"
    );
    assert_eq!(stderr, "pi-native-hooks: note: applied 2 fixes in 1 file\n");
    assert_eq!(repo.read("src/a.test.ts"), MIXED_FIXED);

    // Nothing left to fix: the file is not touched again.
    let (code, _, stderr) = check(
        repo.path(),
        &["--builtin", "--format", "concise", "--fix", "src/a.test.ts"],
    );
    assert_eq!(code, 1);
    assert_eq!(
        stderr,
        "pi-native-hooks: note: applied 0 fixes in 0 files\n"
    );
    assert_eq!(repo.read("src/a.test.ts"), MIXED_FIXED);
}

#[test]
fn fixing_every_finding_exits_zero_and_keeps_the_mode() {
    let repo = TestRepo::init();
    repo.write("src/a.ts", "export function f() {\n  debugger;\n}\n");
    let path = repo.abs("src/a.ts");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o751)).expect("chmod");
    let (code, stdout, stderr) = check(
        repo.path(),
        &[
            "--builtin",
            "--quiet",
            "--format",
            "concise",
            "--fix",
            "src/a.ts",
        ],
    );
    assert_eq!((code, stdout.as_str()), (0, ""), "{stderr}");
    assert_eq!(repo.read("src/a.ts"), "export function f() {\n  \n}\n");
    let mode = std::fs::metadata(&path).expect("stat").permissions().mode();
    assert_eq!(mode & 0o7777, 0o751);
    let left: Vec<String> = std::fs::read_dir(repo.abs("src"))
        .expect("list src")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["a.ts"], "no temporary file is left behind");
}

#[test]
fn json_carries_the_replacement_and_human_lines_mark_it() {
    let repo = TestRepo::init();
    repo.write("src/a.test.ts", MIXED);
    let (code, stdout, _) = check(repo.path(), &["--builtin", "--json", "src/a.test.ts"]);
    assert_eq!(code, 1);
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    let replacements: Vec<(&str, &serde_json::Value)> = lines
        .iter()
        .map(|l| (l["rule"].as_str().expect("rule"), &l["replacement"]))
        .collect();
    assert_eq!(
        replacements,
        [
            (
                "typescript-no-focused-test-ts",
                &serde_json::json!({
                    "line": 2, "column": 1, "endLine": 2, "endColumn": 8,
                    "byteStart": 33, "byteEnd": 40, "text": "it"
                })
            ),
            (
                "typescript-no-debugger-ts",
                &serde_json::json!({
                    "line": 3, "column": 3, "endLine": 3, "endColumn": 12,
                    "byteStart": 56, "byteEnd": 65, "text": ""
                })
            ),
            (
                "typescript-no-non-null-assertion-ts",
                &serde_json::Value::Null
            ),
        ]
    );
    assert_eq!(&MIXED[33..40], "it.only");
    assert_eq!(&MIXED[56..65], "debugger;");

    let (_, human, _) = check(
        repo.path(),
        &["--builtin", "--format", "concise", "src/a.test.ts"],
    );
    let marked: Vec<bool> = human
        .lines()
        .map(|l| l.ends_with(" (fix available: check --fix)"))
        .collect();
    assert_eq!(marked, [true, true, false], "{human}");
}

#[test]
fn fix_never_writes_through_a_symlink() {
    let repo = TestRepo::init();
    let text = "debugger;\n";
    repo.write("real/a.ts", text);
    std::fs::create_dir(repo.abs("src")).expect("create src");
    repo.symlink("../real/a.ts", "src/link.ts");
    repo.symlink("real", "dir");
    let (code, stdout, stderr) = check(
        repo.path(),
        &[
            "--builtin",
            "--format",
            "concise",
            "--fix",
            "src/link.ts",
            "dir/a.ts",
        ],
    );
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(
        stdout.lines().count(),
        2,
        "both findings are still reported:\n{stdout}"
    );
    for path in ["dir/a.ts", "src/link.ts"] {
        assert!(
            stderr.contains(&format!(
                "pi-native-hooks: warning: {path}: not fixed: it is reached through a symlink"
            )),
            "{stderr}"
        );
    }
    assert!(
        stderr.contains("pi-native-hooks: error: 2 files with fixes not written"),
        "{stderr}"
    );
    assert_eq!(repo.read("real/a.ts"), text);
    assert!(
        std::fs::symlink_metadata(repo.abs("src/link.ts"))
            .expect("lstat")
            .file_type()
            .is_symlink()
    );
}

#[test]
fn fix_conflicts_with_new_since() {
    let repo = TestRepo::init();
    repo.write("a.ts", "debugger;\n");
    let (code, _, stderr) = check(
        repo.path(),
        &["--builtin", "--fix", "--new-since", "HEAD", "a.ts"],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("'--fix' cannot be used with '--new-since <REV>'"),
        "{stderr}"
    );
    assert_eq!(repo.read("a.ts"), "debugger;\n");
}

#[test]
fn replacement_positions_count_characters_and_follow_expansions() {
    let (root, _) = config_root(true);
    let dir = tempfile::tempdir().expect("tempdir");
    let text = "const é = \"🎉\";\r\nfunction g(naïve: string, b: number) {}\r\n";
    std::fs::write(dir.path().join("a.ts"), text).expect("write");
    let root_arg = root.path().to_str().expect("a UTF-8 temp path");
    let (code, stdout, stderr) = check(
        dir.path(),
        &["--json", "--error-on", "hint", "--config", root_arg, "a.ts"],
    );
    assert_eq!(code, 1, "{stderr}");
    let renamed: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("a JSON line"))
        .filter(|l| l["rule"] == "fix-rename-parameter-ts")
        .collect();
    assert_eq!(renamed.len(), 2, "{stdout}");
    let first = &renamed[0];
    // The match is the annotation `: string`; `expandStart` widens the fix to the name before it.
    assert_eq!(
        (first["line"].as_u64(), first["column"].as_u64()),
        (Some(2), Some(17))
    );
    let replacement = &first["replacement"];
    let start = text.find("naïve").expect("the parameter");
    let end = start + "naïve: string".len();
    assert_eq!(
        replacement,
        &serde_json::json!({
            "line": 2, "column": 12, "endLine": 2, "endColumn": 25,
            "byteStart": start, "byteEnd": end, "text": "renamed"
        })
    );
}

//! `check` fails closed on its input: no silent limits (every requested file is analyzed unless a
//! limit is given as a flag), anything requested and not analyzed is named and exits 2 (unless
//! `--allow-skipped`), odd file names are analyzed under their real names or named, a broken rule
//! or policy never hides the others, directory walks honour ignore files, and `--staged` checks
//! the index's content. Results are read from `--json`, whose lines are stable across the human
//! formats.

use crate::support::cli::check;
use crate::support::repo::write;
use crate::support::{ConfigRoot, TestRepo};

/// One `typescript-no-non-null-assertion-ts` finding on line 2.
const BANG: &str = "declare const u: { n?: string };\nexport const a = u!.n;\n";
const BANG_RULE: &str = "typescript-no-non-null-assertion-ts";
const CLEAN: &str = "export const a = 1;\n";
const INCOMPLETE: &str = "pi-native-hooks: error: the check is incomplete:";

/// The `(path, rule)` of each `--json` line.
fn hits(stdout: &str) -> Vec<(String, String)> {
    stdout
        .lines()
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line).expect("one JSON object");
            (
                value["path"].as_str().expect("path").to_owned(),
                value["rule"].as_str().expect("rule").to_owned(),
            )
        })
        .collect()
}

fn bang_at(path: &str) -> Vec<(String, String)> {
    vec![(path.to_owned(), BANG_RULE.to_owned())]
}

#[test]
fn five_hundred_and_five_files_are_all_analyzed_and_the_last_finding_shown() {
    let repo = TestRepo::with_commit(&[("README.md", "# x\n")]);
    for i in 0..505 {
        repo.write(&format!("src/f{i:03}.ts"), CLEAN);
    }
    repo.write("src/f505.ts", BANG);
    for args in [
        &["--builtin", "--json"][..],
        &["--builtin", "--json", "src"][..],
    ] {
        let (code, stdout, stderr) = check(repo.path(), args);
        assert_eq!(code, 1, "{args:?}: {stderr}");
        assert_eq!(hits(&stdout), bang_at("src/f505.ts"), "{args:?}");
        assert_eq!(stderr, "", "{args:?}");
    }

    // A file limit given as a flag is applied, and each file past it named.
    let (code, stdout, stderr) = check(repo.path(), &["--builtin", "--json", "--max-files", "500"]);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(stdout, "");
    let past: Vec<&str> = stderr
        .lines()
        .filter(|l| l.ends_with("not analyzed: more than 500 files in one scan"))
        .collect();
    assert_eq!(past.len(), 6, "{stderr}");
    assert!(past[5].contains("src/f505.ts"), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{INCOMPLETE} 6 files were not analyzed; pass --allow-skipped to accept that"
        )),
        "{stderr}"
    );
}

#[test]
fn a_findings_limit_is_applied_only_as_a_flag_and_reported() {
    let repo = TestRepo::with_commit(&[("README.md", "# x\n")]);
    let many: String = (0..1_200)
        .map(|i| format!("export const a{i} = u!.n;\n"))
        .collect();
    repo.write(
        "src/many.ts",
        format!("declare const u: {{ n?: string }};\n{many}"),
    );

    let (code, stdout, stderr) = check(repo.path(), &["--builtin", "--json"]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(
        stdout.lines().count(),
        1_200,
        "no findings limit by default"
    );
    assert_eq!(stderr, "");

    let (code, stdout, stderr) = check(
        repo.path(),
        &["--builtin", "--json", "--max-findings", "1000"],
    );
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(stdout.lines().count(), 1_000);
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        [
            "pi-native-hooks: warning: 200 more findings omitted (the --max-findings limit of 1000)",
            &format!("{INCOMPLETE} findings were left out; pass --allow-skipped to accept that"),
        ]
    );

    let (code, stdout, _) = check(
        repo.path(),
        &[
            "--builtin",
            "--json",
            "--max-findings",
            "1000",
            "--allow-skipped",
        ],
    );
    assert_eq!((code, stdout.lines().count()), (1, 1_000));
}

#[test]
fn a_two_mib_file_is_analyzed_by_default_and_named_under_a_size_limit() {
    let repo = TestRepo::with_commit(&[("README.md", "# x\n")]);
    let filler = "// padding padding padding padding padding padding padding padding\n";
    let mut big = filler.repeat((2 << 20) / filler.len() + 1);
    big.push_str(BANG);
    assert!(big.len() > 2 << 20);
    repo.write("src/big.ts", &big);

    let (code, stdout, stderr) = check(repo.path(), &["--builtin", "--json"]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(hits(&stdout), bang_at("src/big.ts"));
    assert_eq!(stderr, "");

    let (code, stdout, stderr) = check(
        repo.path(),
        &["--builtin", "--json", "--max-file-bytes", "1048576"],
    );
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(stdout, "");
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        [
            format!(
                "pi-native-hooks: warning: src/big.ts: not analyzed: {} bytes is over the 1048576-byte limit",
                big.len()
            ),
            format!("{INCOMPLETE} 1 file was not analyzed; pass --allow-skipped to accept that"),
        ]
    );
}

/// A repository with a finding beside a file with a NUL byte and one that is not UTF-8.
fn binary_and_latin1() -> TestRepo {
    let repo = TestRepo::with_commit(&[("README.md", "# x\n")]);
    repo.write("src/a.ts", BANG);
    repo.write("src/bin.ts", b"export const a = 1;\0\n");
    repo.write("src/latin1.ts", b"// caf\xe9\nexport const a = u!.n;\n");
    repo
}

#[test]
fn binary_and_non_utf8_files_are_named_and_fail_the_check_beside_printed_findings() {
    let repo = binary_and_latin1();
    let (code, stdout, stderr) = check(repo.path(), &["--builtin", "--json"]);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(hits(&stdout), bang_at("src/a.ts"));
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        [
            "pi-native-hooks: warning: src/bin.ts: not analyzed: binary file",
            "pi-native-hooks: warning: src/latin1.ts: not analyzed: not valid UTF-8",
            &format!("{INCOMPLETE} 2 files were not analyzed; pass --allow-skipped to accept that"),
        ]
    );
}

#[test]
fn allow_skipped_lists_them_as_warnings_and_exits_as_the_findings_say() {
    let repo = binary_and_latin1();
    let (code, stdout, stderr) = check(repo.path(), &["--builtin", "--json", "--allow-skipped"]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(hits(&stdout), bang_at("src/a.ts"));
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        [
            "pi-native-hooks: warning: src/bin.ts: not analyzed: binary file",
            "pi-native-hooks: warning: src/latin1.ts: not analyzed: not valid UTF-8",
        ]
    );

    repo.write("src/a.ts", CLEAN);
    let (code, stdout, _) = check(
        repo.path(),
        &["--builtin", "--format", "concise", "--allow-skipped"],
    );
    assert_eq!((code, stdout.as_str()), (0, ""));
}

#[test]
fn a_backslash_in_a_name_is_kept_in_git_and_in_a_walk() {
    let repo = TestRepo::with_commit(&[("README.md", "# x\n")]);
    repo.write("src/a\\b.ts", BANG);
    for args in [
        &["--builtin", "--json"][..],
        &["--builtin", "--json", "src"][..],
        &["--builtin", "--json", "src/a\\b.ts"][..],
    ] {
        let (code, stdout, stderr) = check(repo.path(), args);
        assert_eq!(code, 1, "{args:?}: {stderr}");
        assert_eq!(hits(&stdout), bang_at("src/a\\b.ts"), "{args:?}");
        assert_eq!(stderr, "", "{args:?}");
    }
}

#[cfg(unix)]
#[test]
fn a_non_utf8_name_is_named_and_fails_the_check_in_git_and_in_a_walk() {
    use std::os::unix::ffi::OsStrExt;
    let repo = TestRepo::with_commit(&[("README.md", "# x\n")]);
    repo.write("src/ok.ts", BANG);
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.ts");
    std::fs::write(repo.path().join("src").join(name), BANG).expect("write");
    // Not a TS/TSX file: not requested, so not reported.
    let other = std::ffi::OsStr::from_bytes(b"notes\xe9.md");
    std::fs::write(repo.path().join("src").join(other), "x").expect("write");

    for args in [
        &["--builtin", "--json"][..],
        &["--builtin", "--json", "src"][..],
    ] {
        let (code, stdout, stderr) = check(repo.path(), args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert_eq!(hits(&stdout), bang_at("src/ok.ts"), "{args:?}");
        assert_eq!(
            stderr.lines().collect::<Vec<_>>(),
            [
                "pi-native-hooks: warning: src/caf\u{fffd}.ts: not analyzed: the file name is not valid UTF-8",
                &format!(
                    "{INCOMPLETE} 1 file was not analyzed; pass --allow-skipped to accept that"
                ),
            ],
            "{args:?}"
        );
    }
}

#[test]
fn a_directory_walk_honours_gitignore_unless_no_ignore_and_named_files_always_count() {
    let repo = TestRepo::with_commit(&[(".gitignore", "gen/\n"), ("README.md", "# x\n")]);
    repo.write("gen/x.ts", BANG);
    repo.write("src/a.ts", CLEAN);

    for args in [
        &["--builtin", "--json"][..],
        &["--builtin", "--json", "."][..],
    ] {
        let (code, stdout, stderr) = check(repo.path(), args);
        assert_eq!(
            (code, stdout.as_str(), stderr.as_str()),
            (0, "", ""),
            "{args:?}"
        );
    }
    let (code, stdout, stderr) = check(repo.path(), &["--builtin", "--json", "--no-ignore", "."]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(hits(&stdout), bang_at("gen/x.ts"));
    let (code, stdout, _) = check(repo.path(), &["--builtin", "--json", "gen/x.ts"]);
    assert_eq!((code, hits(&stdout)), (1, bang_at("gen/x.ts")));

    // git's own exclude file counts too.
    write(repo.path(), ".git/info/exclude", "src/excluded.ts\n");
    repo.write("src/excluded.ts", BANG);
    let (code, stdout, _) = check(repo.path(), &["--builtin", "--json", "src"]);
    assert_eq!((code, stdout.as_str()), (0, ""));
}

#[test]
fn an_ignore_file_is_honoured_outside_git_too() {
    let dir = tempfile::tempdir().expect("temp dir");
    write(dir.path(), ".ignore", "vendor/\n");
    write(dir.path(), "vendor/v.ts", BANG);
    write(dir.path(), "src/a.ts", BANG);
    // Without a repository a .gitignore is not applied, as git and the ast-grep CLI do.
    write(dir.path(), ".gitignore", "src/\n");

    let (code, stdout, stderr) = check(dir.path(), &["--builtin", "--json", "."]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(hits(&stdout), bang_at("src/a.ts"));
    let (code, stdout, _) = check(dir.path(), &["--builtin", "--json", "--no-ignore", "."]);
    assert_eq!(code, 1);
    let mut expected = bang_at("src/a.ts");
    expected.extend(bang_at("vendor/v.ts"));
    assert_eq!(hits(&stdout), expected);
}

#[test]
fn an_ignore_file_that_does_not_parse_is_named_and_cuts_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    write(dir.path(), ".ignore", "a{b\n");
    write(dir.path(), "src/a.ts", BANG);
    let (code, stdout, stderr) = check(dir.path(), &["--builtin", "--json", "."]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(hits(&stdout), bang_at("src/a.ts"));
    assert!(
        stderr.starts_with("pi-native-hooks: warning: ")
            && stderr.contains(".ignore: line 1: error parsing glob 'a{b'")
            && stderr.lines().count() == 1,
        "{stderr}"
    );
}

/// A config root with a valid `bang` rule and its policy, plus the files of `extra`.
fn root_with(extra: &[(&str, &str)]) -> ConfigRoot {
    let mut builder = ConfigRoot::builder()
        .file("sgconfig.yml", "ruleDirs: [rules]\n")
        .file(
            "rules/bang.yml",
            "id: bang\nlanguage: TypeScript\nseverity: warning\nmessage: bang\nrule:\n  kind: non_null_expression\n",
        )
        .policy(
            "bang.rhai",
            "const ID = \"bang-policy\";\nconst KIND = \"diagnostic\";\nconst ANALYZER = \"ast-grep\";\nconst RULES = [\"bang\"];\nfn evaluate(snapshot) { snapshot.report(\"Guard it.\") }\n",
        );
    for (path, text) in extra {
        builder = if let Some(name) = path.strip_prefix("policies/") {
            builder.policy(name, text)
        } else {
            builder.file(path, text)
        };
    }
    builder.build()
}

fn check_with(root: &ConfigRoot) -> (i32, Vec<(String, String)>, String) {
    let repo = TestRepo::with_commit(&[("README.md", "# x\n")]);
    repo.write("src/a.ts", BANG);
    let config = root.path().to_str().expect("utf-8");
    let (code, stdout, stderr) = check(repo.path(), &["--config", config, "--json"]);
    (code, hits(&stdout), stderr)
}

#[test]
fn an_invalid_policy_beside_a_valid_one_hides_nothing() {
    let root = root_with(&[(
        "policies/broken.rhai",
        "const ID = \"broken\";\nconst KIND = \"diagnostic\";\nfn evaluate(snapshot) {\n  let x = ;\n}\n",
    )]);
    let (code, hits, stderr) = check_with(&root);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(hits, [("src/a.ts".to_owned(), "bang".to_owned())]);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert!(
        lines[0].starts_with("pi-native-hooks: error: the policies at ")
            && lines[0].ends_with(" have errors; the policies that loaded still run:"),
        "{stderr}"
    );
    assert!(
        lines[1].ends_with("/policies/broken.rhai:4:11: does not compile: Unexpected ';'"),
        "the file and line: {stderr}"
    );
}

#[test]
fn an_invalid_rule_beside_a_valid_one_hides_nothing() {
    let root = root_with(&[(
        "rules/broken.yml",
        "id: broken\nlanguage: TypeScript\nrule:\n  kind: [\n",
    )]);
    let (code, hits, stderr) = check_with(&root);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(hits, [("src/a.ts".to_owned(), "bang".to_owned())]);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert!(
        lines[0].starts_with("pi-native-hooks: error: the config at ")
            && lines[0].ends_with(" has errors; the rules that loaded still run:"),
        "{stderr}"
    );
    assert!(
        lines[1].contains("/rules/broken.yml:4:"),
        "the file and line: {stderr}"
    );
}

/// A repository where `src/staged.ts` has a finding staged and fixed only in the worktree, and
/// `src/unstaged.ts` a finding only in the worktree.
fn staged_repository() -> TestRepo {
    let repo = TestRepo::with_commit(&[("src/unstaged.ts", CLEAN), ("src/other.ts", CLEAN)]);
    repo.write("src/staged.ts", BANG);
    repo.git(&["add", "src/staged.ts"]);
    repo.write("src/staged.ts", CLEAN);
    repo.write("src/unstaged.ts", BANG);
    repo
}

#[test]
fn staged_checks_the_index_not_the_worktree() {
    let repo = staged_repository();
    let (code, stdout, stderr) = check(repo.path(), &["--builtin", "--json", "--staged"]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(hits(&stdout), bang_at("src/staged.ts"));
    assert_eq!(stderr, "");

    // Without --staged the worktree counts: the unstaged finding, not the fixed one.
    let (code, stdout, _) = check(repo.path(), &["--builtin", "--json"]);
    assert_eq!((code, hits(&stdout)), (1, bang_at("src/unstaged.ts")));

    // A staged modification of a committed file counts too.
    repo.git(&["add", "src/unstaged.ts"]);
    let (code, stdout, _) = check(repo.path(), &["--builtin", "--json", "--staged"]);
    assert_eq!(code, 1);
    let mut expected = bang_at("src/staged.ts");
    expected.extend(bang_at("src/unstaged.ts"));
    assert_eq!(hits(&stdout), expected);
}

#[test]
fn staged_code_frames_show_the_staged_text_not_the_worktree() {
    let repo = staged_repository();
    let (code, stdout, stderr) = check(repo.path(), &["--builtin", "--color", "never", "--staged"]);
    assert_eq!(code, 1, "{stderr}");
    // The frame quotes the staged line holding the finding, though the worktree file is clean.
    assert!(stdout.contains(" --> src/staged.ts:2:18\n"), "{stdout}");
    assert!(stdout.contains("2 | export const a = u!.n;\n"), "{stdout}");
    assert!(!stdout.contains("export const a = 1;"), "{stdout}");
}

#[test]
fn staged_paths_narrow_the_staged_files_down() {
    let repo = staged_repository();
    repo.write("lib/l.ts", BANG);
    repo.git(&["add", "lib/l.ts"]);
    let (code, stdout, stderr) = check(repo.path(), &["--builtin", "--json", "--staged", "src"]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(hits(&stdout), bang_at("src/staged.ts"));
    let (code, stdout, _) = check(
        &repo.path().join("lib"),
        &["--builtin", "--json", "--staged", "l.ts"],
    );
    assert_eq!((code, hits(&stdout)), (1, bang_at("lib/l.ts")));
    // Nothing staged under a path: clean.
    let (code, stdout, _) = check(
        repo.path(),
        &["--builtin", "--quiet", "--staged", "src/other.ts"],
    );
    assert_eq!((code, stdout.as_str()), (0, ""));
}

#[cfg(unix)]
#[test]
fn a_staged_non_utf8_name_is_named_and_fails_the_check() {
    use std::os::unix::ffi::OsStrExt;
    let repo = TestRepo::with_commit(&[("README.md", "# x\n")]);
    repo.write("src/ok.ts", BANG);
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.ts");
    std::fs::write(repo.path().join("src").join(name), BANG).expect("write");
    repo.git(&["add", "src"]);
    let (code, stdout, stderr) = check(repo.path(), &["--builtin", "--json", "--staged"]);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(hits(&stdout), bang_at("src/ok.ts"));
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        [
            "pi-native-hooks: warning: src/caf\u{fffd}.ts: not analyzed: the file name is not valid UTF-8",
            &format!("{INCOMPLETE} 1 file was not analyzed; pass --allow-skipped to accept that"),
        ]
    );
}

#[test]
fn staged_binary_content_is_named_and_fails_the_check() {
    let repo = TestRepo::with_commit(&[("README.md", "# x\n")]);
    repo.write("src/bin.ts", b"\0binary");
    repo.git(&["add", "src/bin.ts"]);
    repo.write("src/bin.ts", CLEAN);
    let (code, stdout, stderr) = check(
        repo.path(),
        &["--builtin", "--format", "concise", "--staged"],
    );
    assert_eq!((code, stdout.as_str()), (2, ""), "{stderr}");
    assert!(
        stderr.starts_with("pi-native-hooks: warning: src/bin.ts: not analyzed: binary file\n"),
        "{stderr}"
    );
}

#[test]
fn staged_outside_a_repository_is_a_usage_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (code, _, stderr) = check(dir.path(), &["--builtin", "--staged"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("is not inside a git repository; --staged needs one"),
        "{stderr}"
    );
}

#[test]
fn help_names_the_exit_statuses_and_the_new_flags() {
    let output = crate::support::cli::binary()
        .args(["check", "--help"])
        .output()
        .expect("run --help");
    let help = String::from_utf8(output.stdout).expect("utf-8");
    for expected in [
        "Exit status:",
        "--allow-skipped",
        "--staged",
        "--no-ignore",
        "--max-files <N>",
        "--max-findings <N>",
        "--max-file-bytes <BYTES>",
        "--threads <N>",
    ] {
        assert!(help.contains(expected), "{expected}: {help}");
    }
}

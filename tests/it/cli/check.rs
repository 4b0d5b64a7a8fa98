//! `pi-native-hooks check` end to end: the real binary on real git repositories. Every run passes
//! `--builtin` or `--config`, so no test reads the personal config root.

use crate::support::cli::check;
use crate::support::snapshot::assert_snapshot;
use crate::support::{ConfigRoot, TestRepo, checkout};

/// A repository with one committed file, then: a modification, a staged file, an untracked TSX
/// file, an ignored file under `node_modules`, a committed-and-clean file with a finding, and a
/// non-TypeScript change.
fn repository() -> TestRepo {
    let repo = TestRepo::builder()
        .file(".gitignore", "node_modules/\n")
        .file("src/modified.ts", "export const a = 1;\n")
        .file(
            "src/committed.ts",
            "declare const u: { n?: string };\nexport const old = u!.n;\n",
        )
        .commit();
    repo.write(
        "src/modified.ts",
        "declare const u: { n?: string };\nexport const a = u!.n;\n",
    );
    repo.write("src/staged.ts", "export const lazy = import(\"./lazy\");\n");
    repo.git(&["add", "src/staged.ts"]);
    repo.write(
        "src/view/New.tsx",
        "declare const u: { n?: string };\nexport const V = () => <b>{u!.n}</b>;\n",
    );
    repo.write("node_modules/pkg/index.ts", "export const ignored = x!;\n");
    repo.write("notes.md", "x!\n");
    repo
}

#[test]
fn checks_the_changed_files_of_the_repository_around_the_cwd() {
    let repo = repository();
    let (code, stdout, stderr) = check(
        &repo.path().join("src/view"),
        &["--builtin", "--color", "never"],
    );
    assert_eq!(code, 1, "{stderr}");
    assert_snapshot!("changed_files", &stdout);
    assert!(stdout.ends_with('\n'), "every line ends with a newline");
    assert_eq!(stderr, "");
}

#[test]
fn json_lines_have_the_documented_shape() {
    let repo = repository();
    let (code, stdout, _) = check(repo.path(), &["--builtin", "--json", "src/view/New.tsx"]);
    assert_eq!(code, 1);
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    assert_eq!(lines.len(), 1);
    assert_snapshot!("json_line", &stdout);
    let line = &lines[0];
    let keys: Vec<&str> = line
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "column",
            "endColumn",
            "endLine",
            "guidance",
            "line",
            "message",
            "note",
            "path",
            "policy",
            "replacement",
            "rule",
            "severity"
        ]
    );
    assert_eq!(
        line["replacement"],
        serde_json::Value::Null,
        "no fix: {line}"
    );
    assert_eq!(line["policy"], "typescript-no-non-null-assertion");
    assert!(
        line["guidance"]
            .as_str()
            .expect("guidance")
            .contains("ast-grep-ignore"),
        "{line}"
    );
    assert_eq!(line["path"], "src/view/New.tsx");
    assert_eq!(
        (line["line"].as_u64(), line["column"].as_u64()),
        (Some(2), Some(28))
    );
    assert_eq!(
        (line["endLine"].as_u64(), line["endColumn"].as_u64()),
        (Some(2), Some(30))
    );
    assert_eq!(line["severity"], "warning");
    assert!(
        line["note"]
            .as_str()
            .expect("note")
            .contains("// ast-grep-ignore: typescript-no-non-null-assertion-tsx -- <reason>")
    );
}

#[test]
fn a_clean_repository_exits_zero_saying_nothing_changed_or_silently_with_quiet() {
    let repo = repository();
    repo.git(&["add", "."]);
    repo.git(&["commit", "-qm", "everything"]);
    let (code, stdout, stderr) = check(repo.path(), &["--builtin"]);
    assert_eq!(
        (code, stdout.as_str(), stderr.as_str()),
        (
            0,
            "No changed TS/TSX files since HEAD (pass paths, or . for the whole tree).\n",
            ""
        )
    );
    let (code, stdout, stderr) = check(repo.path(), &["--builtin", "--quiet"]);
    assert_eq!((code, stdout.as_str(), stderr.as_str()), (0, "", ""));
}

#[test]
fn given_directories_are_walked_and_c_changes_directory() {
    let repo = repository();
    let outside = tempfile::tempdir().expect("temp dir");
    let dir = repo.path().to_str().expect("utf-8 path");
    let (code, stdout, _) = check(
        outside.path(),
        &["--builtin", "--format", "concise", "-C", dir, "src"],
    );
    assert_eq!(code, 1);
    let paths: Vec<&str> = stdout
        .lines()
        .map(|l| l.split(':').next().expect("path"))
        .collect();
    // Committed files are included too: directories mean "everything below", not "changed".
    assert_eq!(
        paths,
        [
            "src/committed.ts",
            "src/modified.ts",
            "src/staged.ts",
            "src/view/New.tsx"
        ]
    );
}

#[test]
fn a_personal_config_root_is_used_with_config() {
    let repo = repository();
    let root = ConfigRoot::builder()
        .file("sgconfig.yml", "ruleDirs: [ast-grep/rules]\n")
        .file(
            "ast-grep/rules/only-imports.yml",
            "id: only-imports\nlanguage: TypeScript\nseverity: info\nmessage: import found\nrule:\n  kind: call_expression\n  has: { field: function, kind: import }\n",
        )
        .build();
    let (code, stdout, stderr) = check(
        repo.path(),
        &[
            "--format",
            "concise",
            "--error-on",
            "info",
            "--config",
            root.path().to_str().expect("utf-8"),
        ],
    );
    assert_eq!(code, 1, "{stderr}");
    assert_snapshot!("personal_rule", &stdout);
}

#[test]
fn a_config_error_exits_two_and_names_the_file() {
    let repo = repository();
    let root = ConfigRoot::builder()
        .file("sgconfig.yml", "ruleDirs: [rules]\n")
        .file(
            "rules/python.yml",
            "id: py\nlanguage: Python\nrule: { pattern: x }\n",
        )
        .build();
    let (code, stdout, stderr) = check(
        repo.path(),
        &["--config", root.path().to_str().expect("utf-8")],
    );
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert!(
        stderr.contains("rules/python.yml: rule `py` targets Python"),
        "{stderr}"
    );
}

#[test]
fn outside_a_repository_without_paths_is_a_usage_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (code, _, stderr) = check(dir.path(), &["--builtin"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("is not inside a git repository; pass the files or directories to check"),
        "{stderr}"
    );
}

#[test]
fn a_missing_path_is_a_usage_error() {
    let repo = repository();
    let (code, _, stderr) = check(repo.path(), &["--builtin", "src/nope.ts"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("src/nope.ts: no such file or directory"),
        "{stderr}"
    );
}

#[test]
fn skipped_files_are_reported_on_stderr() {
    let repo = repository();
    repo.write("src/bin.ts", b"\0\x01binary");
    let (code, _, stderr) = check(repo.path(), &["--builtin", "src/bin.ts"]);
    assert_eq!(
        code, 2,
        "a requested file that was not analyzed fails the check"
    );
    assert_snapshot!("skipped_file", &stderr);
}

#[test]
fn findings_no_policy_covers_are_still_reported_without_a_policy() {
    let repo = repository();
    repo.write(
        "src/unused.ts",
        "// ast-grep-ignore: typescript-no-dynamic-import-ts -- stale\nexport const a = 1;\n",
    );
    // A hint is printed but passes under the default `--error-on warning`.
    let (code, stdout, _) = check(repo.path(), &["--builtin", "--json", "src/unused.ts"]);
    assert_eq!(code, 0);
    let line: serde_json::Value = serde_json::from_str(stdout.trim()).expect("one json line");
    assert_eq!(
        (line["rule"].as_str(), line["severity"].as_str()),
        (Some("unused-suppression"), Some("hint"))
    );
    assert!(line["policy"].is_null());
}

#[test]
fn a_personal_policy_reports_with_its_id_and_a_failing_policy_is_an_error() {
    let repo = repository();
    let root = ConfigRoot::builder()
        .file("sgconfig.yml", "ruleDirs: [ast-grep/rules]\n")
        .file(
            "ast-grep/rules/bang.yml",
            "id: bang\nlanguage: TypeScript\nseverity: warning\nmessage: bang\nrule:\n  kind: non_null_expression\n",
        )
        .policy(
            "bang.rhai",
            "const ID = \"bang-policy\";\nconst KIND = \"diagnostic\";\nconst ANALYZER = \"ast-grep\";\nconst RULES = [\"bang\"];\nfn evaluate(snapshot) { snapshot.report(\"Guard it.\") }\n",
        )
        .build();
    let config = root.path().to_str().expect("utf-8");
    let (code, stdout, stderr) = check(
        repo.path(),
        &["--config", config, "--json", "src/modified.ts"],
    );
    assert_eq!(code, 1, "{stderr}");
    let line: serde_json::Value = serde_json::from_str(stdout.trim()).expect("one json line");
    assert_eq!(
        (line["policy"].as_str(), line["guidance"].as_str()),
        (Some("bang-policy"), Some("Guard it."))
    );

    root.write_policy(
        "bang.rhai",
        "const ID = \"bang-policy\";\nconst KIND = \"diagnostic\";\nconst ANALYZER = \"ast-grep\";\nconst RULES = [\"bang\"];\nfn evaluate(snapshot) { throw \"boom\"; }\n",
    );
    let (code, stdout, stderr) = check(repo.path(), &["--config", config, "src/modified.ts"]);
    assert_eq!(code, 2, "{stdout}");
    assert!(
        stderr.contains("policies failed") && stderr.contains("bang.rhai"),
        "{stderr}"
    );
}

#[test]
fn the_repository_s_own_extension_passes_its_own_rules() {
    let (code, stdout, stderr) = check(
        checkout(),
        &["--config", ".", "--quiet", "bindings/extension"],
    );
    assert_eq!((code, stdout.as_str(), stderr.as_str()), (0, "", ""));
}

#[test]
fn file_names_with_a_newline_or_an_escape_are_printed_escaped_and_json_keeps_them() {
    let repo = TestRepo::with_commit(&[("README.md", "# x\n")]);
    let root = repo.path();
    let bang = "declare const u: { n?: string };\nexport const a = u!.n;\n";
    let forged = "src/evil\n- src/x.ts:1:1 typescript-no-non-null-assertion-ts forged.ts";
    let coloured = "src/\u{1b}[31mred\u{1b}[0m.ts";
    repo.write(forged, bang);
    repo.write(coloured, bang);
    repo.write("src/\u{1b}[2Jbin.ts", b"\0binary");

    // The binary file is accepted, so the run exits as its findings say.
    let (code, stdout, stderr) = check(
        root,
        &["--builtin", "--format", "concise", "--allow-skipped"],
    );
    assert_eq!(code, 1, "{stderr}");
    assert_snapshot!("escaped_names_stdout", &stdout);
    assert_snapshot!("escaped_names_stderr", &stderr);

    let (code, stdout, _) = check(root, &["--builtin", "--json", "--allow-skipped"]);
    assert_eq!(code, 1);
    let paths: Vec<String> = stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("one JSON object per line"))
        .map(|line| line["path"].as_str().expect("path").to_owned())
        .collect();
    assert_eq!(paths, [coloured, forged], "--json keeps the original names");
}

/// A repository whose `main` holds `src/old.ts` with two `any`s, and a branch `feature` that
/// commits one more `any` in it beside a moved old one, and adds `src/added.ts` with one.
fn branch_with_one_new_finding() -> TestRepo {
    let repo = TestRepo::builder()
        .file(
            "src/old.ts",
            "export const a: any = 1;\nexport const b = 2 as any;\n",
        )
        .file("src/clean.ts", "export const c = 1;\n")
        .commit();
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write(
        "src/old.ts",
        "// moved down\nexport const a: any = 1;\nexport const b = 2 as any;\nexport const d: any[] = [];\n",
    );
    repo.git(&["commit", "-qam", "feature"]);
    repo
}

#[test]
fn new_since_reports_only_the_findings_absent_at_the_revision() {
    let repo = branch_with_one_new_finding();
    // The worktree adds one more `any` to a clean file; HEAD already has the branch's.
    repo.write(
        "src/clean.ts",
        "export const c = 1;\nexport const e = (x: any) => x;\n",
    );

    let (code, stdout, stderr) = check(
        repo.path(),
        &["--builtin", "--format", "concise", "--new-since", "HEAD"],
    );
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(
        stdout,
        "src/clean.ts:2:22 typescript-no-explicit-any-ts Explicit `any` turns off type checking for this value.\n"
    );
    assert_eq!(stderr, "");

    // Against main: the branch's committed `any` too, and never the moved old ones.
    let (code, stdout, stderr) = check(
        repo.path(),
        &["--builtin", "--format", "concise", "--new-since", "main"],
    );
    assert_eq!(code, 1, "{stderr}");
    // Every `any` matches the same text, so `src/old.ts` holds three where `main` held two: one
    // is new. Which one is listed is the documented pairing (same line first, then from the end
    // of the file), not knowledge of the edit: here the whole file moved down one line, so the
    // old `a` on line 2 keeps `main`'s line-2 slot and `b` on line 3 is the unpaired one.
    let lines: Vec<&str> = stdout
        .lines()
        .map(|l| l.split(' ').next().unwrap_or(""))
        .collect();
    assert_eq!(lines, ["src/clean.ts:2:22", "src/old.ts:3:23"], "{stdout}");
    assert_eq!(
        stderr,
        "pi-native-hooks: note: 2 findings already present at main not shown\n"
    );

    // Without --new-since every finding of the changed files is reported.
    let (code, stdout, _) = check(
        repo.path(),
        &["--builtin", "--format", "concise", "src/old.ts"],
    );
    assert_eq!((code, stdout.lines().count()), (1, 3), "{stdout}");

    // Nothing new: exit 0, the old ones counted on stderr.
    repo.write("src/clean.ts", "export const c = 1;\n");
    let (code, stdout, stderr) = check(
        repo.path(),
        &[
            "--builtin",
            "--quiet",
            "--format",
            "concise",
            "--new-since",
            "HEAD",
            "src/old.ts",
        ],
    );
    assert_eq!((code, stdout.as_str()), (0, ""), "{stderr}");
    assert_eq!(
        stderr,
        "pi-native-hooks: note: 3 findings already present at HEAD not shown\n"
    );
}

#[test]
fn new_since_an_unknown_revision_is_a_usage_error() {
    let repo = branch_with_one_new_finding();
    let (code, stdout, stderr) =
        check(repo.path(), &["--builtin", "--new-since", "no-such-branch"]);
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert!(
        stderr.starts_with(
            "pi-native-hooks: error: `no-such-branch` does not name a revision in the git repository at "
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("pass a branch, tag or commit id"),
        "{stderr}"
    );
}

#[test]
fn new_since_counts_a_file_whose_old_blob_cannot_be_judged_as_all_new() {
    let repo = TestRepo::init();
    repo.write("src/h.ts", b"// caf\xe9\nexport const v: any = 1;\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "latin-1"]);
    repo.write("src/h.ts", "// cafe\nexport const v: any = 1;\n");
    let (code, stdout, stderr) = check(
        repo.path(),
        &["--builtin", "--format", "concise", "--new-since", "HEAD"],
    );
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    assert_eq!(
        stderr,
        "pi-native-hooks: warning: src/h.ts: cannot compare with HEAD: not valid UTF-8; all of its findings are reported\n"
    );
}

#[test]
fn threads_change_nothing_but_the_pace_across_the_scan_s_chunks() {
    // More files than one chunk of the scan (512) holds, every third with a finding: the results
    // of chunks folded one after another must be those of one pass, in the same order, whatever
    // the number of threads.
    let dir = tempfile::tempdir().expect("temp dir");
    let files: usize = 1_100;
    for i in 0..files {
        let text = if i % 3 == 0 {
            format!("declare const u{i}: {{ n?: string }};\nexport const v{i} = u{i}!.n;\n")
        } else {
            format!("export const v{i} = {i};\n")
        };
        let path = dir.path().join(format!("d{}/f{i:04}.ts", i % 7));
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("create a folder");
        std::fs::write(path, text).expect("write a file");
    }
    let run = |extra: &[&str]| {
        let mut args = vec!["--builtin", "--format", "concise"];
        args.extend_from_slice(extra);
        args.push(".");
        check(dir.path(), &args)
    };
    let (code, default, stderr) = run(&[]);
    assert_eq!(code, 1, "{stderr}");
    let lines: Vec<&str> = default.lines().filter(|l| l.contains(".ts:")).collect();
    assert_eq!(lines.len(), files.div_ceil(3), "{default}");
    let mut sorted = lines.clone();
    sorted.sort_unstable();
    assert_eq!(lines, sorted, "the results are in path order");
    for threads in ["1", "2", "3"] {
        let (code, stdout, stderr) = run(&["--threads", threads]);
        assert_eq!(
            (code, stdout.as_str()),
            (1, default.as_str()),
            "-j {threads}: {stderr}"
        );
    }
    let (code, _, stderr) = run(&["-j", "0"]);
    assert_eq!(code, 2, "no thread is a usage error");
    assert!(stderr.contains("--threads"), "{stderr}");
}

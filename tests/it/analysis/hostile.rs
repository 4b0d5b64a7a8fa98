//! Files that are not what their name says: FIFOs and symlinks to FIFOs named `*.ts`, symlinks to
//! devices, to files outside the repository, to nothing, and through symlinked directories. The
//! analysis never opens them, never blocks on them and names each one as not analyzed with the
//! reason; `check` returns promptly and says so, however the file was found (named, by a directory
//! walk, or by git as an untracked file).
//!
//! Every read that could block runs under a deadline: the analysis on a thread whose result is
//! awaited with a timeout, `check` as a child process killed after one, so a regression fails the
//! test instead of hanging it.

use crate::support::cli::{DEADLINE, check};
use crate::support::{TestRepo, symlink, write};
use pi_native_hooks_analysis::{AnalysisSnapshot, Analyzer, RuleSet, ScanLimits, SkipReason};
use pi_native_hooks_base::safe_open::FileKind;
use pi_native_hooks_config::builtin;
use std::path::Path;
use std::sync::Arc;

/// A file with one finding of the built-in pack (a non-null assertion).
const BANG: &str = "declare const u: { n?: string } | undefined;\nexport const a = u!.n;\n";
const BANG_RULE: &str = "typescript-no-non-null-assertion-ts";

fn analyzer() -> Analyzer {
    let load = RuleSet::load(&builtin::rule_files(), &[]);
    Analyzer::new(
        "ast-grep:builtin",
        Arc::new(load.rules),
        ScanLimits::default(),
        2,
    )
    .expect("analyzer")
}

/// `Analyzer::scan_walked` on its own thread, failing the test if it does not finish in time.
fn scan(root: &Path, paths: &[&str], unfollowed: &[&str]) -> Arc<AnalysisSnapshot> {
    let (root, paths, unfollowed) = (root.to_owned(), owned(paths), owned(unfollowed));
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let snapshot = analyzer().scan_walked(&root, &paths, &unfollowed);
        let _ = send.send(snapshot);
    });
    receive
        .recv_timeout(DEADLINE)
        .expect("the analysis returns instead of blocking")
}

fn owned(paths: &[&str]) -> Vec<String> {
    paths.iter().map(|p| (*p).to_owned()).collect()
}

fn reasons(snapshot: &AnalysisSnapshot) -> Vec<(&str, &SkipReason)> {
    snapshot
        .skipped
        .iter()
        .map(|s| (s.path.as_str(), &s.reason))
        .collect()
}

fn finding_paths(snapshot: &AnalysisSnapshot) -> Vec<&str> {
    snapshot.findings.iter().map(|f| f.path.as_str()).collect()
}

/// A repository with one clean commit and a `src/` directory.
fn repository() -> TestRepo {
    TestRepo::with_commit(&[("src/clean.ts", "export const clean = 1;\n")])
}

fn mkfifo(path: &Path) {
    nix::unistd::mkfifo(path, nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
}

#[test]
fn a_fifo_and_a_symlink_to_a_fifo_are_skipped_unopened() {
    let repo = repository();
    let root = repo.path();
    mkfifo(&root.join("src/pipe.ts"));
    mkfifo(&root.join("pipe"));
    symlink("../pipe", &root.join("src/x.ts"));
    write(root, "src/ok.ts", BANG);

    let snapshot = scan(root, &["src/pipe.ts", "src/x.ts", "src/ok.ts"], &[]);
    assert_eq!(
        reasons(&snapshot),
        [
            (
                "src/pipe.ts",
                &SkipReason::NotRegular {
                    kind: FileKind::Fifo,
                    symlink: false
                }
            ),
            (
                "src/x.ts",
                &SkipReason::NotRegular {
                    kind: FileKind::Fifo,
                    symlink: true
                }
            ),
        ]
    );
    assert_eq!(finding_paths(&snapshot), ["src/ok.ts"]);
    assert_eq!(snapshot.parsed_files, 1);
    assert!(!snapshot.is_complete());
    assert_eq!(
        snapshot.skipped[1].reason.to_string(),
        "a symlink to a FIFO, not to a regular file"
    );
    let json = serde_json::to_value(&snapshot.skipped[1]).expect("json");
    assert_eq!(
        json,
        serde_json::json!({"path": "src/x.ts", "reason": "not-regular", "kind": "fifo", "symlink": true})
    );
}

#[test]
fn symlinks_to_devices_outside_files_and_nothing_are_skipped_with_the_reason() {
    let outer = tempfile::tempdir().expect("temp dir");
    let root = outer.path().join("repo");
    std::fs::create_dir_all(root.join("src")).expect("mkdir");
    std::fs::write(outer.path().join("secret.ts"), BANG).expect("write");
    std::fs::create_dir(outer.path().join("elsewhere")).expect("mkdir");
    std::fs::write(outer.path().join("elsewhere/inner.ts"), BANG).expect("write");
    symlink("/dev/zero", &root.join("src/zero.ts"));
    symlink("/dev/null", &root.join("src/null.ts"));
    symlink("../../secret.ts", &root.join("src/relative-out.ts"));
    symlink(
        outer.path().join("secret.ts"),
        &root.join("src/absolute-out.ts"),
    );
    symlink(outer.path().join("elsewhere"), &root.join("linked-dir"));
    symlink("missing.ts", &root.join("src/dangling.ts"));

    let snapshot = scan(
        &root,
        &[
            "src/zero.ts",
            "src/null.ts",
            "src/relative-out.ts",
            "src/absolute-out.ts",
            "linked-dir/inner.ts",
            "src/dangling.ts",
            "../secret.ts",
        ],
        &[],
    );
    assert_eq!(
        reasons(&snapshot),
        [
            ("../secret.ts", &SkipReason::OutsideRepository),
            ("linked-dir/inner.ts", &SkipReason::SymlinkOutsideRepository),
            ("src/absolute-out.ts", &SkipReason::SymlinkOutsideRepository),
            ("src/dangling.ts", &SkipReason::DanglingSymlink),
            ("src/null.ts", &SkipReason::SymlinkOutsideRepository),
            ("src/relative-out.ts", &SkipReason::SymlinkOutsideRepository),
            ("src/zero.ts", &SkipReason::SymlinkOutsideRepository),
        ]
    );
    assert!(snapshot.findings.is_empty(), "{:?}", snapshot.findings);
    assert_eq!(snapshot.parsed_files, 0);
}

#[test]
fn a_symlink_resolving_inside_the_repository_is_analyzed_under_its_own_name() {
    let repo = repository();
    let root = repo.path();
    write(root, "lib/real.ts", BANG);
    symlink("../lib/real.ts", &root.join("src/relative.ts"));
    symlink(root.join("lib/real.ts"), &root.join("src/absolute.ts"));
    symlink("lib", &root.join("linked-lib"));
    std::fs::create_dir(root.join("src/dir.ts")).expect("mkdir");
    symlink("dir.ts", &root.join("src/to-dir.ts"));

    let snapshot = scan(
        root,
        &[
            "src/relative.ts",
            "src/absolute.ts",
            "linked-lib/real.ts",
            "src/to-dir.ts",
        ],
        &[],
    );
    assert_eq!(
        finding_paths(&snapshot),
        ["linked-lib/real.ts", "src/absolute.ts", "src/relative.ts"]
    );
    assert!(snapshot.findings.iter().all(|f| f.rule == BANG_RULE));
    assert_eq!(
        reasons(&snapshot),
        [(
            "src/to-dir.ts",
            &SkipReason::NotRegular {
                kind: FileKind::Directory,
                symlink: true
            }
        )]
    );
}

#[test]
fn symlinks_a_walk_met_are_reported_unfollowed_unless_also_named() {
    let repo = repository();
    let root = repo.path();
    write(root, "src/real.ts", BANG);
    symlink("real.ts", &root.join("src/link.ts"));
    symlink("real.ts", &root.join("src/named.ts"));
    symlink("real.ts", &root.join("src/link.js"));

    let snapshot = scan(
        root,
        &["src/real.ts", "src/named.ts"],
        &["src/link.ts", "src/named.ts", "src/link.js"],
    );
    assert_eq!(
        reasons(&snapshot),
        [("src/link.ts", &SkipReason::SymlinkNotFollowed)]
    );
    assert_eq!(
        snapshot.paths,
        ["src/link.ts", "src/named.ts", "src/real.ts"]
    );
    assert_eq!(finding_paths(&snapshot), ["src/named.ts", "src/real.ts"]);
}

#[test]
fn check_on_a_named_fifo_or_symlink_to_one_returns_and_names_it() {
    let repo = repository();
    let root = repo.path();
    mkfifo(&root.join("src/pipe.ts"));
    mkfifo(&root.join("pipe"));
    symlink("../pipe", &root.join("src/x.ts"));

    let (code, stdout, stderr) = check(
        root,
        &[
            "--builtin",
            "--format",
            "concise",
            "src/pipe.ts",
            "src/x.ts",
        ],
    );
    assert_eq!(
        code, 2,
        "named files that were not analyzed fail the check: {stderr}"
    );
    assert_eq!(stdout, "");
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        [
            "pi-native-hooks: warning: src/pipe.ts: not analyzed: a FIFO, not a regular file",
            "pi-native-hooks: warning: src/x.ts: not analyzed: a symlink to a FIFO, not to a regular file",
            "pi-native-hooks: error: the check is incomplete: 2 files were not analyzed; pass --allow-skipped to accept that",
        ]
    );
}

#[test]
fn check_finds_an_untracked_symlink_to_a_fifo_through_git_and_names_it() {
    let repo = repository();
    let root = repo.path();
    mkfifo(&root.join("pipe"));
    symlink("../pipe", &root.join("src/x.ts"));
    symlink("/dev/zero", &root.join("src/zero.ts"));
    // An untracked FIFO itself: `git status` never lists one, the snapshot does.
    mkfifo(&root.join("src/pipe.ts"));
    write(root, "src/bang.ts", BANG);

    let (code, stdout, stderr) = check(root, &["--builtin", "--format", "concise"]);
    assert_eq!(code, 2, "three files not analyzed: {stderr}");
    assert!(stdout.starts_with("src/bang.ts:2:"), "{stdout}");
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        [
            "pi-native-hooks: warning: src/pipe.ts: not analyzed: a FIFO, not a regular file",
            "pi-native-hooks: warning: src/x.ts: not analyzed: a symlink to a FIFO, not to a regular file",
            "pi-native-hooks: warning: src/zero.ts: not analyzed: a symlink leading outside the repository",
            "pi-native-hooks: error: the check is incomplete: 3 files were not analyzed; pass --allow-skipped to accept that",
        ]
    );
}

#[test]
fn check_walking_a_directory_names_fifos_and_does_not_follow_symlinks() {
    let repo = repository();
    let root = repo.path();
    mkfifo(&root.join("src/pipe.ts"));
    mkfifo(&root.join("pipe"));
    symlink("../pipe", &root.join("src/x.ts"));
    write(root, "src/real.ts", BANG);
    symlink("real.ts", &root.join("src/link.ts"));

    let (code, stdout, stderr) = check(root, &["--builtin", "--format", "concise", "src"]);
    assert_eq!(code, 2, "the FIFO was not analyzed: {stderr}");
    assert_eq!(
        stdout
            .lines()
            .filter(|l| l.starts_with("src/real.ts:2:"))
            .count(),
        1,
        "{stdout}"
    );
    assert!(!stdout.contains("src/link.ts"), "{stdout}");
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        [
            "pi-native-hooks: warning: src/link.ts: not analyzed: a symlink, not followed by a directory walk (name it to analyze its target)",
            "pi-native-hooks: warning: src/pipe.ts: not analyzed: a FIFO, not a regular file",
            "pi-native-hooks: warning: src/x.ts: not analyzed: a symlink, not followed by a directory walk (name it to analyze its target)",
            // Unfollowed symlinks are a walk's choice, not a failure: only the FIFO counts.
            "pi-native-hooks: error: the check is incomplete: 1 file was not analyzed; pass --allow-skipped to accept that",
        ]
    );

    // Named, the link to a regular file inside the repository is followed, as the ast-grep CLI
    // follows a file named on its command line.
    let (code, stdout, stderr) = check(root, &["--builtin", "--format", "concise", "src/link.ts"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stdout.starts_with("src/link.ts:2:"), "{stdout}");
    assert_eq!(stderr, "");
}

#[test]
fn check_refuses_to_walk_a_named_directory_symlink_leaving_the_repository() {
    let repo = repository();
    let outside = tempfile::tempdir().expect("temp dir");
    write(outside.path(), "inner.ts", BANG);
    symlink(outside.path(), &repo.path().join("out"));

    let (code, stdout, stderr) = check(repo.path(), &["--builtin", "--format", "concise", "out"]);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(stdout, "");
    assert!(stderr.contains("out: outside "), "{stderr}");
}

#[test]
fn check_reports_a_sparse_four_gib_untracked_file_too_large_without_reading_it() {
    let repo = repository();
    let huge = std::fs::File::create(repo.path().join("src/huge.ts")).expect("create");
    huge.set_len(4 << 30).expect("sparse 4 GiB");
    drop(huge);

    // With a size limit given, it is never opened.
    let (code, stdout, stderr) = check(
        repo.path(),
        &[
            "--builtin",
            "--format",
            "concise",
            "--max-file-bytes",
            "1048576",
        ],
    );
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(stdout, "");
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        [
            "pi-native-hooks: warning: src/huge.ts: not analyzed: 4294967296 bytes is over the 1048576-byte limit",
            "pi-native-hooks: error: the check is incomplete: 1 file was not analyzed; pass --allow-skipped to accept that",
        ]
    );

    // Without one (the default), its first chunk holds a NUL byte: binary, and the remaining
    // 4 GiB are never read.
    let (code, stdout, stderr) = check(repo.path(), &["--builtin", "--format", "concise"]);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(stdout, "");
    assert!(
        stderr.starts_with("pi-native-hooks: warning: src/huge.ts: not analyzed: binary file\n"),
        "{stderr}"
    );
}

#[test]
fn check_reports_findings_in_files_git_is_told_to_ignore_edits_of() {
    for flag in ["--skip-worktree", "--assume-unchanged"] {
        let repo = repository();
        let root = repo.path();
        repo.git(&["update-index", flag, "src/clean.ts"]);
        write(root, "src/clean.ts", BANG);
        assert_eq!(repo.git(&["status", "--porcelain"]), "", "git hides it");

        let (code, stdout, stderr) = check(root, &["--builtin", "--format", "concise"]);
        assert_eq!(code, 1, "{flag}: {stderr}");
        assert!(
            stdout.starts_with(&format!("src/clean.ts:2:18 {BANG_RULE}")),
            "{flag}: {stdout}"
        );
        assert_eq!(stderr, "", "{flag}");
    }
}

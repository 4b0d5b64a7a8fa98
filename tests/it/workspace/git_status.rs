//! Snapshot entries vs `git status --porcelain=v2 -z --untracked-files=all`, one scenario each.

use std::time::{Duration, SystemTime};

use crate::support::porcelain::{records, xy_map};
use crate::support::{TestRepo, git, git_cmd, set};
use pi_native_hooks_workspace::{self as workspace, Content, StagedChange, WorktreeChange};

#[test]
fn clean_repository_has_no_entries() {
    let repo = TestRepo::with_commit(&[("a.txt", "a\n"), ("dir/b.txt", "b\n")]);
    let snapshot = repo.assert_matches_git();
    assert!(snapshot.is_clean());
    assert_eq!(snapshot.head().name.as_deref(), Some("refs/heads/main"));
    assert_eq!(snapshot.head().id.as_deref(), Some(repo.head().as_str()));
    assert!(snapshot.dirty_paths().is_empty());
}

#[test]
fn modified_file() {
    let repo = TestRepo::with_commit(&[("a.txt", "a\n"), ("b.txt", "b\n")]);
    repo.write("a.txt", "changed\n");
    let snapshot = repo.assert_matches_git();
    assert_eq!(
        snapshot.entry("a.txt").and_then(|e| e.worktree.clone()),
        Some(WorktreeChange::Modified)
    );
    assert_eq!(snapshot.dirty_paths(), set(&["a.txt"]));
}

#[test]
fn executable_bit_change_is_a_modification() {
    use std::os::unix::fs::PermissionsExt;
    let repo = TestRepo::with_commit(&[("run.sh", "echo hi\n")]);
    std::fs::set_permissions(repo.abs("run.sh"), std::fs::Permissions::from_mode(0o755))
        .expect("chmod");
    let snapshot = repo.assert_matches_git();
    assert_eq!(
        xy_map(&snapshot).get("run.sh").map(String::as_str),
        Some(".M")
    );
}

#[test]
fn staged_and_staged_then_modified() {
    let repo = TestRepo::with_commit(&[("a.txt", "a\n"), ("b.txt", "b\n")]);
    repo.write("a.txt", "staged\n");
    repo.write("b.txt", "staged\n");
    repo.git(&["add", "a.txt", "b.txt"]);
    repo.write("b.txt", "staged and modified\n");
    let snapshot = repo.assert_matches_git();
    let xy = xy_map(&snapshot);
    assert_eq!(xy.get("a.txt").map(String::as_str), Some("M."));
    assert_eq!(xy.get("b.txt").map(String::as_str), Some("MM"));
}

#[test]
fn deleted_in_worktree_and_staged() {
    let repo = TestRepo::with_commit(&[("a.txt", "a\n"), ("b.txt", "b\n"), ("c.txt", "c\n")]);
    repo.remove("a.txt");
    repo.git(&["rm", "-q", "b.txt"]);
    // Staged deletion, then recreated: git lists it as deleted *and* untracked.
    repo.git(&["rm", "-q", "--cached", "c.txt"]);
    let snapshot = repo.assert_matches_git();
    let xy = xy_map(&snapshot);
    assert_eq!(xy.get("a.txt").map(String::as_str), Some(".D"));
    assert_eq!(xy.get("b.txt").map(String::as_str), Some("D."));
    assert_eq!(xy.get("c.txt").map(String::as_str), Some("D?"));
    // Deleted paths are not something a linter can scan.
    assert_eq!(snapshot.dirty_paths(), set(&["c.txt"]));
    assert_eq!(
        snapshot.entry("a.txt").map(|e| &e.content),
        Some(&Content::Absent)
    );
}

#[test]
fn staged_rename_follows_git_rename_detection() {
    let repo = TestRepo::with_commit(&[
        ("old.txt", "some content that is long enough\n"),
        ("keep.txt", "k\n"),
    ]);
    repo.git(&["mv", "old.txt", "new.txt"]);
    let snapshot = repo.assert_matches_git();
    assert_eq!(
        snapshot.entry("new.txt").and_then(|e| e.staged.clone()),
        Some(StagedChange::Renamed {
            from: "old.txt".into()
        })
    );
    assert!(snapshot.entry("old.txt").is_none());
    assert_eq!(snapshot.dirty_paths(), set(&["new.txt"]));
}

#[test]
fn renames_off_in_config_shows_add_and_delete() {
    let repo = TestRepo::with_commit(&[("old.txt", "some content that is long enough\n")]);
    repo.git(&["config", "status.renames", "false"]);
    repo.git(&["mv", "old.txt", "new.txt"]);
    let snapshot = repo.assert_matches_git();
    let xy = xy_map(&snapshot);
    assert_eq!(xy.get("new.txt").map(String::as_str), Some("A."));
    assert_eq!(xy.get("old.txt").map(String::as_str), Some("D."));
}

#[test]
fn type_change_file_to_symlink() {
    let repo = TestRepo::with_commit(&[
        ("target.txt", "t\n"),
        ("link", "was a file\n"),
        ("staged-link", "file\n"),
    ]);
    repo.remove("link");
    repo.symlink("target.txt", "link");
    repo.remove("staged-link");
    repo.symlink("target.txt", "staged-link");
    repo.git(&["add", "staged-link"]);
    let snapshot = repo.assert_matches_git();
    let xy = xy_map(&snapshot);
    assert_eq!(xy.get("link").map(String::as_str), Some(".T"));
    assert_eq!(xy.get("staged-link").map(String::as_str), Some("T."));
    assert!(matches!(
        snapshot.entry("link").map(|e| &e.content),
        Some(Content::Symlink { .. })
    ));
}

#[test]
fn symlinks_added() {
    let repo = TestRepo::with_commit(&[("target.txt", "t\n")]);
    repo.symlink("target.txt", "untracked-link");
    repo.symlink("does/not/exist", "staged-link");
    repo.git(&["add", "staged-link"]);
    let snapshot = repo.assert_matches_git();
    let xy = xy_map(&snapshot);
    assert_eq!(xy.get("untracked-link").map(String::as_str), Some("??"));
    assert_eq!(xy.get("staged-link").map(String::as_str), Some("A."));
    assert_eq!(
        snapshot.dirty_paths(),
        set(&["staged-link", "untracked-link"])
    );
}

#[test]
fn untracked_files_in_nested_directories_are_listed_individually() {
    let repo = TestRepo::with_commit(&[("a.txt", "a\n")]);
    repo.write("new/deeper/x.ts", "x\n");
    repo.write("new/deeper/y.ts", "y\n");
    repo.write("new/z.ts", "z\n");
    repo.write("top.ts", "t\n");
    // Empty directories are not listed; an untracked nested repository is listed once, as git
    // does (`nested/`), but is not a file to lint.
    std::fs::create_dir_all(repo.abs("empty/dir")).expect("mkdir");
    git(&repo.abs("new"), &["init", "-q", "nested"]);
    repo.write("new/nested/inner.txt", "i\n");
    let snapshot = repo.assert_matches_git();
    assert_eq!(
        snapshot.dirty_paths(),
        set(&["new/deeper/x.ts", "new/deeper/y.ts", "new/z.ts", "top.ts"])
    );
    assert!(matches!(
        snapshot.entry("new/nested").map(|e| &e.content),
        Some(Content::Repository { head: None, .. })
    ));
}

#[test]
fn ignored_node_modules_is_not_listed() {
    let repo = TestRepo::with_commit(&[(".gitignore", "node_modules/\n*.log\n"), ("a.txt", "a\n")]);
    repo.write("node_modules/pkg/index.js", "x\n");
    repo.write("node_modules/.bin/tool", "x\n");
    repo.write("debug.log", "x\n");
    repo.write("src/app.ts", "x\n");
    let snapshot = repo.assert_matches_git();
    assert_eq!(snapshot.dirty_paths(), set(&["src/app.ts"]));
}

#[test]
fn submodule_whose_head_moved() {
    let upstream = TestRepo::with_commit(&[("lib.txt", "v1\n")]);
    upstream.write("lib.txt", "v2\n");
    upstream.git(&["commit", "-q", "-am", "v2"]);
    let repo = TestRepo::with_commit(&[("a.txt", "a\n")]);
    let url = upstream.path().to_string_lossy().into_owned();
    repo.git(&["submodule", "add", "-q", &url, "sub"]);
    repo.git(&["commit", "-q", "-m", "add submodule"]);
    repo.assert_matches_git();

    git(&repo.abs("sub"), &["checkout", "-q", "HEAD~1"]);
    let snapshot = repo.assert_matches_git();
    let entry = snapshot.entry("sub").expect("submodule is dirty");
    match &entry.worktree {
        Some(WorktreeChange::Submodule(change)) => assert!(change.commit_changed),
        other => panic!("expected a submodule change, got {other:?}"),
    }
    assert!(matches!(
        entry.content,
        Content::Repository { head: Some(_), .. }
    ));
    assert!(
        snapshot.dirty_paths().is_empty(),
        "a submodule is not a file to lint"
    );

    // Untracked content inside the submodule is reported too, as git does.
    std::fs::write(repo.abs("sub/new.txt"), "n\n").expect("write");
    repo.assert_matches_git();
}

#[test]
fn merge_conflict() {
    let repo = TestRepo::with_commit(&[("a.txt", "base\n"), ("b.txt", "b\n")]);
    repo.git(&["checkout", "-q", "-b", "other"]);
    repo.write("a.txt", "theirs\n");
    repo.write("both-added.txt", "theirs\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "theirs"]);
    repo.git(&["checkout", "-q", "main"]);
    repo.write("a.txt", "ours\n");
    repo.write("both-added.txt", "ours\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "ours"]);
    let out = git_cmd(repo.path())
        .args(["merge", "-q", "other"])
        .output()
        .expect("git merge runs");
    assert!(!out.status.success(), "the merge must conflict");
    let snapshot = repo.assert_matches_git();
    let xy = xy_map(&snapshot);
    assert_eq!(xy.get("a.txt").map(String::as_str), Some("UU"));
    assert_eq!(xy.get("both-added.txt").map(String::as_str), Some("AA"));
    assert!(snapshot.dirty_paths().contains("a.txt"));
}

#[test]
fn crlf_checkout_with_autocrlf_is_clean_until_really_changed() {
    let repo = TestRepo::with_commit(&[("text.txt", "line one\nline two\n")]);
    repo.git(&["config", "core.autocrlf", "true"]);
    repo.remove("text.txt");
    repo.git(&["checkout", "--", "text.txt"]);
    let on_disk = std::fs::read(repo.abs("text.txt")).expect("read");
    assert_eq!(
        on_disk, b"line one\r\nline two\r\n",
        "autocrlf checkout writes CRLF"
    );

    // Stat changes, content (after the to-git conversion) doesn't.
    let file = std::fs::File::options()
        .write(true)
        .open(repo.abs("text.txt"))
        .expect("open");
    file.set_modified(SystemTime::now() + Duration::from_secs(5))
        .expect("touch");
    drop(file);
    let snapshot = repo.assert_matches_git();
    assert!(snapshot.is_clean(), "{:?}", snapshot.entries());

    repo.write("text.txt", "line one\r\nline 2\r\n");
    let snapshot = repo.assert_matches_git();
    assert_eq!(
        xy_map(&snapshot).get("text.txt").map(String::as_str),
        Some(".M")
    );
}

#[test]
fn racy_same_second_rewrite_with_same_size_is_modified() {
    let repo = TestRepo::with_commit(&[("racy.txt", "aaaa\n")]);
    // Immediately rewrite with the same size, in the same second as the commit.
    repo.write("racy.txt", "bbbb\n");
    let snapshot = repo.assert_matches_git();
    assert_eq!(
        xy_map(&snapshot).get("racy.txt").map(String::as_str),
        Some(".M")
    );

    // Deterministic variant: the stat data matches the index entry exactly (mtime restored) and
    // the index is no older than the entry, so only the racy-git check can see the change.
    let repo = TestRepo::with_commit(&[("racy.txt", "aaaa\n")]);
    repo.rewrite_racily("racy.txt", b"cccc\n");
    let snapshot = repo.assert_matches_git();
    assert_eq!(
        xy_map(&snapshot).get("racy.txt").map(String::as_str),
        Some(".M")
    );
}

#[test]
fn unborn_head() {
    let repo = TestRepo::init();
    repo.write("staged.txt", "s\n");
    repo.write("untracked.txt", "u\n");
    repo.git(&["add", "staged.txt"]);
    let snapshot = repo.assert_matches_git();
    assert_eq!(snapshot.head().name.as_deref(), Some("refs/heads/main"));
    assert_eq!(snapshot.head().id, None);
    let xy = xy_map(&snapshot);
    assert_eq!(xy.get("staged.txt").map(String::as_str), Some("A."));
    assert_eq!(xy.get("untracked.txt").map(String::as_str), Some("??"));
}

#[test]
fn empty_repository_without_index() {
    let repo = TestRepo::init();
    let snapshot = repo.assert_matches_git();
    assert!(snapshot.is_clean());
    assert_eq!(snapshot.head().id, None);
}

#[test]
fn detached_head_has_no_name() {
    let repo = TestRepo::with_commit(&[("a.txt", "a\n")]);
    repo.git(&["checkout", "-q", "--detach"]);
    let snapshot = repo.assert_matches_git();
    assert_eq!(snapshot.head().name, None);
    assert_eq!(snapshot.head().id.as_deref(), Some(repo.head().as_str()));
}

#[test]
fn intent_to_add() {
    let repo = TestRepo::with_commit(&[("a.txt", "a\n")]);
    repo.write("later.txt", "l\n");
    repo.git(&["add", "--intent-to-add", "later.txt"]);
    let snapshot = repo.assert_matches_git();
    assert_eq!(
        xy_map(&snapshot).get("later.txt").map(String::as_str),
        Some(".A")
    );
}

#[test]
fn capture_from_a_subdirectory_reports_root_relative_paths() {
    let repo = TestRepo::with_commit(&[("src/deep/a.txt", "a\n"), ("b.txt", "b\n")]);
    repo.write("src/deep/a.txt", "changed\n");
    repo.write("b.txt", "changed\n");
    let snapshot = workspace::capture(repo.abs("src/deep")).expect("snapshot");
    assert_eq!(snapshot.dirty_paths(), set(&["b.txt", "src/deep/a.txt"]));
    assert_eq!(
        snapshot.worktree_root().canonicalize().expect("canonical"),
        repo.path().canonicalize().expect("canonical")
    );
}

#[test]
fn a_mixed_worktree_matches_git_and_path_limited_snapshots_agree() {
    let repo = TestRepo::with_commit(&[
        (".gitignore", "ignored/\n"),
        ("clean.txt", "c\n"),
        ("mod.txt", "m\n"),
        ("staged.txt", "s\n"),
        ("gone.txt", "g\n"),
        ("dir/nested.txt", "n\n"),
    ]);
    repo.write("mod.txt", "m2\n");
    repo.write("staged.txt", "s2\n");
    repo.git(&["add", "staged.txt"]);
    repo.remove("gone.txt");
    repo.write("dir/nested.txt", "n2\n");
    repo.write("new/file.txt", "f\n");
    repo.write("ignored/x.txt", "x\n");
    repo.symlink("clean.txt", "new-link");
    let full = repo.assert_matches_git();

    let paths = [
        "clean.txt",
        "mod.txt",
        "staged.txt",
        "gone.txt",
        "dir/nested.txt",
        "new/file.txt",
        "ignored/x.txt",
        "new-link",
        "never-existed.txt",
    ];
    let limited = workspace::capture_paths(repo.path(), &paths).expect("limited snapshot");
    assert_eq!(xy_map(&limited), xy_map(&full));
    for (path, entry) in limited.entries() {
        assert_eq!(
            Some(&entry.content),
            full.entry(path).map(|e| &e.content),
            "{path}"
        );
    }
    // Directory targets fall back to a pathspec-limited status with the same answer.
    let by_dir =
        workspace::capture_paths(repo.path(), &["dir", "new", "ignored"]).expect("dir snapshot");
    assert_eq!(
        xy_map(&by_dir),
        xy_map(&full)
            .into_iter()
            .filter(|(p, _)| p.starts_with("dir/") || p.starts_with("new/"))
            .collect()
    );
}

#[test]
fn copies_when_configured() {
    let body = "a reasonably long line of content\nand another one to copy\n";
    let repo = TestRepo::with_commit(&[("orig.txt", body)]);
    repo.git(&["config", "status.renames", "copies"]);
    repo.write("copy.txt", body);
    repo.write("orig.txt", format!("{body}modified\n"));
    repo.git(&["add", "-A"]);
    let snapshot = repo.assert_matches_git();
    assert_eq!(
        snapshot.entry("copy.txt").and_then(|e| e.staged.clone()),
        Some(StagedChange::Copied {
            from: "orig.txt".into()
        })
    );
}

#[test]
fn a_path_limited_snapshot_after_a_commit_compares_with_the_new_head_tree() {
    let repo = TestRepo::with_commit(&[("src/a.txt", "one\n")]);
    let paths = ["src/a.txt"];
    let before = workspace::capture_paths(repo.path(), &paths).expect("snapshot");
    assert!(before.is_clean());
    repo.write("src/a.txt", "two\n");
    repo.git(&["commit", "-qam", "two"]);
    let after = workspace::capture_paths(repo.path(), &paths).expect("snapshot");
    assert!(after.is_clean(), "{:?}", xy_map(&after));
    assert_eq!(records(&after), repo.git_status());
}

#[test]
fn a_replaced_head_commit_is_looked_up_as_git_sees_it_not_as_remembered() {
    let repo = TestRepo::with_commit(&[("src/a.txt", "one\n")]);
    let paths = ["src/a.txt"];
    let first = workspace::capture_paths(repo.path(), &paths).expect("snapshot");
    assert!(first.is_clean());
    // A commit with other content, then `git replace` puts it in place of HEAD's commit: git now
    // compares the index with the replacement's tree.
    let head = repo.head();
    repo.write("src/a.txt", "two\n");
    repo.git(&["commit", "-qam", "two"]);
    let other = repo.head();
    repo.git(&["reset", "-q", "--hard", &head]);
    repo.git(&["replace", &head, &other]);
    let expected = repo.git_status();
    assert_eq!(expected, set_of(&[("src/a.txt", "M.")]), "git's own view");
    let replaced = workspace::capture_paths(repo.path(), &paths).expect("snapshot");
    assert_eq!(records(&replaced), expected);
}

fn set_of(records: &[(&str, &str)]) -> std::collections::BTreeSet<(String, String)> {
    records
        .iter()
        .map(|(path, code)| ((*path).to_owned(), (*code).to_owned()))
        .collect()
}

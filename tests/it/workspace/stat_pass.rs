//! The index ↔ worktree column of full snapshots against `git status`, for the cases the stat pass
//! must hand to gix's content check instead of calling clean: paths through symlinked or
//! replaced directories, flagged index entries, attributes only the index still has, conflicts
//! among many entries, and stat-only changes.

use std::time::{Duration, SystemTime};

use crate::support::porcelain::{records, xy_map};
use crate::support::{TestRepo, git_cmd, set};

fn touch(repo: &TestRepo, rela: &str, offset: Duration) {
    let file = std::fs::File::options()
        .write(true)
        .open(repo.abs(rela))
        .expect("open");
    file.set_modified(SystemTime::now() + offset)
        .expect("set mtime");
}

#[test]
fn directory_replaced_by_a_symlink_to_the_same_files() {
    let repo = TestRepo::with_settled_commit(&[
        ("dir/a.txt", "a\n"),
        ("dir/sub/b.txt", "b\n"),
        ("c.txt", "c\n"),
    ]);
    std::fs::rename(repo.abs("dir"), repo.abs("real")).expect("move the directory");
    repo.symlink("real", "dir");
    let snapshot = repo.assert_matches_git();
    let xy = xy_map(&snapshot);
    assert_eq!(xy.get("dir/a.txt").map(String::as_str), Some(".D"));
    assert_eq!(xy.get("dir/sub/b.txt").map(String::as_str), Some(".D"));
    assert_eq!(xy.get("dir").map(String::as_str), Some("??"));
}

#[test]
fn file_replaced_by_a_directory_and_directory_by_a_file() {
    let repo = TestRepo::with_settled_commit(&[
        ("a.txt", "a\n"),
        ("d/inner.txt", "i\n"),
        ("z.txt", "z\n"),
    ]);
    repo.remove("a.txt");
    repo.write("a.txt/nested.txt", "n\n");
    std::fs::remove_dir_all(repo.abs("d")).expect("remove d");
    repo.write("d", "now a file\n");
    let snapshot = repo.assert_matches_git();
    let xy = xy_map(&snapshot);
    assert_eq!(xy.get("a.txt").map(String::as_str), Some(".D"));
    assert_eq!(xy.get("a.txt/nested.txt").map(String::as_str), Some("??"));
    assert_eq!(xy.get("d/inner.txt").map(String::as_str), Some(".D"));
    assert_eq!(xy.get("d").map(String::as_str), Some("??"));
}

#[test]
fn stat_only_changes_are_clean_and_content_changes_are_not() {
    let repo = TestRepo::with_settled_commit(&[
        ("a.txt", "a\n"),
        ("dir/b.txt", "b\n"),
        ("dir/c.txt", "c\n"),
    ]);
    touch(&repo, "a.txt", Duration::from_secs(9));
    touch(&repo, "dir/b.txt", Duration::from_secs(9));
    // Same size and mtime as recorded, different content: only the inode (a new file renamed over
    // the old one, so it cannot reuse its number) tells.
    let mtime = std::fs::metadata(repo.abs("dir/c.txt"))
        .and_then(|m| m.modified())
        .expect("mtime");
    repo.write("dir/c.new", "C\n");
    std::fs::File::options()
        .write(true)
        .open(repo.abs("dir/c.new"))
        .and_then(|file| file.set_modified(mtime))
        .expect("set mtime");
    std::fs::rename(repo.abs("dir/c.new"), repo.abs("dir/c.txt")).expect("replace");
    let snapshot = repo.assert_matches_git();
    assert_eq!(snapshot.dirty_paths(), set(&["dir/c.txt"]));
}

/// Index flags do not hide edits (unlike `git status`): an `assume-unchanged` entry is checked
/// like any other, while a `skip-worktree` entry that is absent from the worktree stays unchanged
/// (a sparse checkout leaves such paths out on purpose).
#[test]
fn assume_unchanged_edits_are_seen_and_absent_skip_worktree_entries_are_not_changes() {
    let repo = TestRepo::with_settled_commit(&[
        ("assumed.txt", "a\n"),
        ("skipped.txt", "s\n"),
        ("plain.txt", "p\n"),
    ]);
    repo.git(&["update-index", "--assume-unchanged", "assumed.txt"]);
    repo.git(&["update-index", "--skip-worktree", "skipped.txt"]);
    repo.write("assumed.txt", "changed behind git's back\n");
    repo.remove("skipped.txt");
    repo.write("plain.txt", "changed\n");
    let snapshot = repo.snapshot();
    let mut expected = repo.git_status();
    assert!(
        !expected.iter().any(|(path, _)| path == "assumed.txt"),
        "git hides the assume-unchanged edit"
    );
    expected.insert(("assumed.txt".to_owned(), ".M".to_owned()));
    assert_eq!(records(&snapshot), expected);
    assert_eq!(snapshot.dirty_paths(), set(&["assumed.txt", "plain.txt"]));
}

#[test]
fn attributes_only_the_index_still_has_decide_the_content_check() {
    let repo = TestRepo::with_settled_commit(&[
        (".gitattributes", "*.txt text eol=crlf\n"),
        ("a.txt", "x\n"),
    ]);
    // Check out again so the worktree file carries the CRLF the attributes ask for.
    repo.remove("a.txt");
    repo.git(&["checkout", "--", "a.txt"]);
    assert_eq!(
        std::fs::read(repo.abs("a.txt")).expect("read"),
        b"x\r\n",
        "eol=crlf checkout"
    );
    // With `.gitattributes` gone from the worktree git reads it from the index, so the CRLF file
    // still converts to the committed content; a stat change forces that content check.
    repo.remove(".gitattributes");
    touch(&repo, "a.txt", Duration::from_secs(9));
    let snapshot = repo.assert_matches_git();
    let xy = xy_map(&snapshot);
    assert_eq!(xy.get(".gitattributes").map(String::as_str), Some(".D"));
    assert_eq!(xy.get("a.txt"), None, "{xy:?}");
}

#[test]
fn conflicts_among_many_entries() {
    // More entries than one unit of the stat pass's work, with conflicts around its boundaries.
    let files: Vec<(String, String)> = (0..1100)
        .map(|i| (format!("f/{i:04}.txt"), format!("base {i}\n")))
        .collect();
    let borrowed: Vec<(&str, &str)> = files
        .iter()
        .map(|(path, text)| (path.as_str(), text.as_str()))
        .collect();
    let repo = TestRepo::with_settled_commit(&borrowed);
    // Three stages each: `f/0505.txt`'s start at entry 511 and straddle the first unit's end.
    let conflicted = [
        "f/0000.txt",
        "f/0170.txt",
        "f/0171.txt",
        "f/0505.txt",
        "f/1099.txt",
    ];
    repo.git(&["checkout", "-q", "-b", "other"]);
    for path in conflicted {
        repo.write(path, "theirs\n");
    }
    repo.git(&["commit", "-q", "-am", "theirs"]);
    repo.git(&["checkout", "-q", "main"]);
    for path in conflicted {
        repo.write(path, "ours\n");
    }
    repo.write("f/0700.txt", "plain modification\n");
    repo.git(&["commit", "-q", "-am", "ours"]);
    repo.write("f/0700.txt", "worktree modification\n");
    let out = git_cmd(repo.path())
        .args(["merge", "-q", "other"])
        .output()
        .expect("git merge runs");
    assert!(!out.status.success(), "the merge must conflict");
    let snapshot = repo.assert_matches_git();
    let xy = xy_map(&snapshot);
    for path in conflicted {
        assert_eq!(xy.get(path).map(String::as_str), Some("UU"), "{path}");
    }
    assert_eq!(xy.get("f/0700.txt").map(String::as_str), Some(".M"));
    assert_eq!(xy.len(), conflicted.len() + 1, "{xy:?}");
}

#[test]
fn untracked_files_are_listed_even_when_configured_off() {
    let repo = TestRepo::with_settled_commit(&[("a.txt", "a\n")]);
    repo.git(&["config", "status.showUntrackedFiles", "no"]);
    repo.write("new/file.txt", "n\n");
    // `git status --untracked-files=all` overrides the configuration, and so does a snapshot.
    let snapshot = repo.assert_matches_git();
    assert_eq!(snapshot.dirty_paths(), set(&["new/file.txt"]));
}

#[test]
fn executable_bit_changes_with_ctime_untrusted() {
    use std::os::unix::fs::PermissionsExt;
    let repo = TestRepo::with_settled_commit(&[("run.sh", "echo hi\n"), ("other.sh", "echo\n")]);
    // Without ctime, a chmod leaves every compared stat field as recorded: only the mode tells.
    repo.git(&["config", "core.trustCTime", "false"]);
    std::fs::set_permissions(repo.abs("run.sh"), std::fs::Permissions::from_mode(0o755))
        .expect("chmod");
    let snapshot = repo.assert_matches_git();
    assert_eq!(
        xy_map(&snapshot).get("run.sh").map(String::as_str),
        Some(".M")
    );

    // With `core.fileMode` off the executable bit is not compared at all.
    repo.git(&["config", "core.fileMode", "false"]);
    assert!(repo.assert_matches_git().is_clean());
}

//! Fingerprints, `changed_paths` between snapshots (including `HEAD` moves), and the guarantee
//! that taking a snapshot never writes the index.

use std::time::{Duration, SystemTime};

use crate::support::{TestRepo, set};
use pi_native_hooks_workspace::{self as workspace, ChangeSet, WorkspaceSnapshot};

fn changed(
    before: &WorkspaceSnapshot,
    after: &WorkspaceSnapshot,
) -> std::collections::BTreeSet<String> {
    WorkspaceSnapshot::changed_paths(before, after).expect("changed paths")
}

#[test]
fn fingerprint_is_stable_without_changes_and_hex() {
    let repo = TestRepo::with_commit(&[("a.txt", "a\n")]);
    repo.write("a.txt", "dirty\n");
    repo.write("new.txt", "new\n");
    let first = repo.snapshot();
    let second = repo.snapshot();
    assert_eq!(first.fingerprint(), second.fingerprint());
    assert_eq!(first.fingerprint().len(), 32);
    assert!(first.fingerprint().chars().all(|c| c.is_ascii_hexdigit()));
    assert!(changed(&first, &second).is_empty());
}

#[test]
fn second_edit_of_a_dirty_file_changes_fingerprint_and_is_a_changed_path() {
    let repo = TestRepo::with_commit(&[("a.txt", "aaaa\n"), ("b.txt", "b\n")]);
    repo.write("a.txt", "edit1\n");
    repo.write("b.txt", "dirty too\n");
    let before = repo.snapshot();
    // Same size, same status (".M"): only the content differs.
    repo.write("a.txt", "edit2\n");
    let after = repo.snapshot();
    assert_ne!(before.fingerprint(), after.fingerprint());
    assert_eq!(changed(&before, &after), set(&["a.txt"]));
    // Reverting to HEAD's content is a change too (dirty → clean).
    repo.write("a.txt", "aaaa\n");
    let reverted = repo.snapshot();
    assert_eq!(changed(&after, &reverted), set(&["a.txt"]));
}

#[test]
fn fingerprint_ignores_clean_files_and_stat_only_changes() {
    let repo = TestRepo::with_commit(&[("a.txt", "a\n"), ("clean.txt", "c\n")]);
    repo.write("a.txt", "dirty\n");
    let before = repo.snapshot();
    let file = std::fs::File::options()
        .write(true)
        .open(repo.abs("clean.txt"))
        .expect("open");
    file.set_modified(SystemTime::now() + Duration::from_secs(3))
        .expect("touch");
    drop(file);
    let after = repo.snapshot();
    assert_eq!(before.fingerprint(), after.fingerprint());
}

#[test]
fn staging_changes_the_status_part() {
    let repo = TestRepo::with_commit(&[("a.txt", "a\n")]);
    repo.write("a.txt", "dirty\n");
    let before = repo.snapshot();
    repo.git(&["add", "a.txt"]);
    let after = repo.snapshot();
    assert_ne!(before.fingerprint(), after.fingerprint());
    assert_eq!(changed(&before, &after), set(&["a.txt"]));
}

#[test]
fn commit_moves_head_and_reports_committed_paths() {
    let repo = TestRepo::with_commit(&[("a.txt", "a\n"), ("b.txt", "b\n"), ("c.txt", "c\n")]);
    repo.write("a.txt", "a2\n");
    repo.write("b.txt", "b2\n");
    let before = repo.snapshot();
    repo.git(&["commit", "-q", "-m", "a only", "a.txt"]);
    let after = repo.snapshot();
    assert_ne!(before.head().id, after.head().id);
    assert_ne!(before.fingerprint(), after.fingerprint());
    // a.txt: committed (now clean, and changed between the HEAD trees); b.txt still the same
    // dirty content; c.txt untouched.
    assert_eq!(changed(&before, &after), set(&["a.txt"]));
}

#[test]
fn head_move_without_worktree_change_reports_tree_diff() {
    let repo = TestRepo::with_commit(&[("a.txt", "a\n")]);
    repo.write("new/file.txt", "n\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "second"]);
    repo.git(&["mv", "a.txt", "renamed.txt"]);
    repo.git(&["commit", "-q", "-m", "rename"]);
    let before = repo.snapshot();
    assert!(before.is_clean());
    // `reset --soft` moves HEAD back two commits: the index and worktree stay.
    repo.git(&["reset", "-q", "--soft", "HEAD~2"]);
    let after = repo.snapshot();
    assert_eq!(
        changed(&before, &after),
        set(&["a.txt", "new/file.txt", "renamed.txt"])
    );
    assert!(matches!(ChangeSet::between(&before, &after), Ok(ChangeSet::Paths(p)) if p.len() == 3));
}

#[test]
fn first_commit_from_unborn_head() {
    let repo = TestRepo::init();
    repo.write("a.txt", "a\n");
    let before = repo.snapshot();
    repo.git(&["add", "a.txt"]);
    repo.git(&["commit", "-q", "-m", "first"]);
    let after = repo.snapshot();
    assert_eq!(before.head().id, None);
    assert_eq!(changed(&before, &after), set(&["a.txt"]));
}

#[test]
fn staged_rename_source_counts_as_changed() {
    let repo = TestRepo::with_commit(&[("old.txt", "content long enough to be a rename\n")]);
    let before = repo.snapshot();
    repo.git(&["mv", "old.txt", "new.txt"]);
    let after = repo.snapshot();
    assert_eq!(changed(&before, &after), set(&["new.txt", "old.txt"]));
}

fn index_state(repo: &TestRepo) -> (Vec<u8>, SystemTime) {
    let path = repo.abs(".git/index");
    let bytes = std::fs::read(&path).expect("index bytes");
    let mtime = std::fs::metadata(&path)
        .and_then(|m| m.modified())
        .expect("index mtime");
    (bytes, mtime)
}

#[test]
fn snapshots_never_write_the_index() {
    let repo = TestRepo::with_commit(&[("a.txt", "a\n"), ("b.txt", "b\n"), ("dir/c.txt", "c\n")]);
    // Stat-dirty but content-clean files: exactly what makes `git status` refresh the index.
    for path in ["a.txt", "b.txt", "dir/c.txt"] {
        let file = std::fs::File::options()
            .write(true)
            .open(repo.abs(path))
            .expect("open");
        file.set_modified(SystemTime::now() + Duration::from_secs(7))
            .expect("touch");
    }
    repo.write("b.txt", "really changed\n");
    repo.write("untracked.txt", "u\n");
    let before = index_state(&repo);
    std::thread::sleep(Duration::from_millis(20));
    let snapshot = repo.snapshot();
    assert_eq!(snapshot.dirty_paths(), set(&["b.txt", "untracked.txt"]));
    workspace::capture_paths(repo.path(), &["a.txt", "b.txt", "dir"]).expect("limited");
    assert_eq!(
        index_state(&repo),
        before,
        "the index file must not be rewritten"
    );
    assert!(!repo.abs(".git/index.lock").exists());
}

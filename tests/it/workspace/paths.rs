//! Path-limited snapshots (`capture_paths`): detection of edits to the given paths, agreement
//! with git for the tricky cases (racy, CRLF, conflicts, submodules) and path handling. Their
//! speed in a large repository is measured by the wave benchmark, not asserted here.

use std::time::{Duration, SystemTime};

use crate::support::porcelain::xy_map;
use crate::support::{TestRepo, git, git_cmd, set};
use pi_native_hooks_workspace::{
    self as workspace, Scope, WorkspaceError, WorkspaceSnapshot, WorktreeChange,
};

fn limited(repo: &TestRepo, paths: &[&str]) -> WorkspaceSnapshot {
    workspace::capture_paths(repo.path(), paths).expect("path-limited snapshot")
}

fn changed(
    before: &WorkspaceSnapshot,
    after: &WorkspaceSnapshot,
) -> std::collections::BTreeSet<String> {
    WorkspaceSnapshot::changed_paths(before, after).expect("changed paths")
}

#[test]
fn detects_edits_of_the_given_paths() {
    let repo = TestRepo::with_commit(&[("a.ts", "a\n"), ("b.ts", "b\n"), ("other.ts", "o\n")]);
    repo.write("other.ts", "dirty but not requested\n");
    let before = limited(&repo, &["a.ts", "b.ts"]);
    assert!(before.is_clean(), "{:?}", before.entries());
    assert_eq!(before.scope(), &Scope::Paths(set(&["a.ts", "b.ts"])));

    repo.write("a.ts", "edited\n");
    let after = limited(&repo, &["a.ts", "b.ts"]);
    assert_eq!(changed(&before, &after), set(&["a.ts"]));
    assert_ne!(before.fingerprint(), after.fingerprint());
    assert_eq!(xy_map(&after).get("a.ts").map(String::as_str), Some(".M"));

    // A second edit of the now-dirty file.
    repo.write("a.ts", "edited again\n");
    let again = limited(&repo, &["a.ts", "b.ts"]);
    assert_eq!(changed(&after, &again), set(&["a.ts"]));

    // Nothing changed.
    let same = limited(&repo, &["a.ts", "b.ts"]);
    assert_eq!(same.fingerprint(), again.fingerprint());
    assert!(changed(&again, &same).is_empty());
}

#[test]
fn new_deleted_and_ignored_targets() {
    let repo = TestRepo::with_commit(&[(".gitignore", "dist/\n"), ("gone.ts", "g\n")]);
    let paths = ["src/new.ts", "gone.ts", "dist/out.js"];
    let before = limited(&repo, &paths);
    repo.write("src/new.ts", "n\n");
    repo.remove("gone.ts");
    repo.write("dist/out.js", "built\n");
    let after = limited(&repo, &paths);
    let xy = xy_map(&after);
    assert_eq!(xy.get("src/new.ts").map(String::as_str), Some("??"));
    assert_eq!(xy.get("gone.ts").map(String::as_str), Some(".D"));
    assert_eq!(
        xy.get("dist/out.js"),
        None,
        "ignored files are not untracked"
    );
    // The ignored target was still written: its content change is reported.
    assert_eq!(
        changed(&before, &after),
        set(&["dist/out.js", "gone.ts", "src/new.ts"])
    );
    assert_eq!(after.dirty_paths(), set(&["src/new.ts"]));
}

#[test]
fn relative_absolute_and_outside_paths() {
    let repo = TestRepo::with_commit(&[("src/a.ts", "a\n")]);
    repo.write("src/a.ts", "edited\n");
    let from_subdir =
        workspace::capture_paths(repo.abs("src"), &["a.ts", "./../src/a.ts"]).expect("relative");
    assert_eq!(from_subdir.scope(), &Scope::Paths(set(&["src/a.ts"])));
    assert_eq!(from_subdir.dirty_paths(), set(&["src/a.ts"]));
    let absolute =
        workspace::capture_paths(repo.path(), &[repo.abs("src/a.ts")]).expect("absolute");
    assert_eq!(absolute.fingerprint(), from_subdir.fingerprint());

    let elsewhere = tempfile::tempdir().expect("tempdir");
    let err = workspace::capture_paths(repo.path(), &[elsewhere.path().join("x.ts")])
        .expect_err("outside");
    assert!(
        matches!(err, WorkspaceError::PathOutsideWorktree { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("outside the worktree"), "{err}");
}

#[test]
fn racy_rewrite_is_detected_for_a_single_path() {
    let repo = TestRepo::with_commit(&[("racy.txt", "aaaa\n"), ("other.txt", "o\n")]);
    let before = limited(&repo, &["racy.txt"]);
    repo.rewrite_racily("racy.txt", b"cccc\n");
    let after = limited(&repo, &["racy.txt"]);
    assert_eq!(
        xy_map(&after).get("racy.txt").map(String::as_str),
        Some(".M")
    );
    assert_eq!(changed(&before, &after), set(&["racy.txt"]));
}

#[test]
fn crlf_touch_is_clean_for_a_single_path() {
    let repo = TestRepo::with_commit(&[("text.txt", "one\ntwo\n")]);
    repo.git(&["config", "core.autocrlf", "true"]);
    repo.remove("text.txt");
    repo.git(&["checkout", "--", "text.txt"]);
    let file = std::fs::File::options()
        .write(true)
        .open(repo.abs("text.txt"))
        .expect("open");
    file.set_modified(SystemTime::now() + Duration::from_secs(5))
        .expect("touch");
    drop(file);
    assert!(limited(&repo, &["text.txt"]).is_clean());
    repo.write("text.txt", "one\r\n2\r\n");
    assert_eq!(
        xy_map(&limited(&repo, &["text.txt"]))
            .get("text.txt")
            .map(String::as_str),
        Some(".M")
    );
}

#[test]
fn staged_conflicted_and_submodule_paths() {
    let upstream = TestRepo::with_commit(&[("lib.txt", "v1\n")]);
    upstream.write("lib.txt", "v2\n");
    upstream.git(&["commit", "-q", "-am", "v2"]);
    let repo = TestRepo::with_commit(&[("a.txt", "base\n"), ("s.txt", "s\n")]);
    let url = upstream.path().to_string_lossy().into_owned();
    repo.git(&["submodule", "add", "-q", &url, "sub"]);
    repo.git(&["commit", "-q", "-m", "add submodule"]);
    repo.git(&["checkout", "-q", "-b", "other"]);
    repo.write("a.txt", "theirs\n");
    repo.git(&["commit", "-q", "-am", "theirs"]);
    repo.git(&["checkout", "-q", "main"]);
    repo.write("a.txt", "ours\n");
    repo.git(&["commit", "-q", "-am", "ours"]);
    let merge = git_cmd(repo.path())
        .args(["merge", "-q", "other"])
        .output()
        .expect("git merge runs");
    assert!(!merge.status.success());
    repo.write("s.txt", "staged\n");
    repo.git(&["add", "s.txt"]);
    git(&repo.abs("sub"), &["checkout", "-q", "HEAD~1"]);

    let full = repo.assert_matches_git();
    let part = limited(&repo, &["a.txt", "s.txt", "sub"]);
    assert_eq!(xy_map(&part), xy_map(&full));
    assert!(matches!(
        part.entry("sub").and_then(|e| e.worktree.clone()),
        Some(WorktreeChange::Submodule(change)) if change.commit_changed
    ));
}

#[test]
fn full_and_limited_snapshots_compare_on_the_limited_paths() {
    let repo = TestRepo::with_commit(&[("a.ts", "a\n"), ("b.ts", "b\n")]);
    repo.write("b.ts", "dirty elsewhere\n");
    let full = repo.snapshot();
    repo.write("a.ts", "edited\n");
    let part = limited(&repo, &["a.ts"]);
    assert_eq!(changed(&full, &part), set(&["a.ts"]));
    // Two limited snapshots over different paths: paths seen by one side only count as changed.
    let other = limited(&repo, &["b.ts"]);
    assert_eq!(changed(&part, &other), set(&["a.ts", "b.ts"]));
}

#[test]
fn paths_inside_a_nested_repository_are_observed_but_not_untracked() {
    let repo = TestRepo::with_commit(&[("a.txt", "a\n")]);
    git(repo.path(), &["init", "-q", "vendor/lib"]);
    repo.write("vendor/lib/x.ts", "x\n");
    let before = limited(&repo, &["vendor/lib/x.ts"]);
    assert!(before.is_clean(), "{:?}", before.entries());
    repo.write("vendor/lib/x.ts", "edited\n");
    let after = limited(&repo, &["vendor/lib/x.ts"]);
    assert_eq!(changed(&before, &after), set(&["vendor/lib/x.ts"]));
}

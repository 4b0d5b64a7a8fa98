//! The staged (`HEAD` ↔ index) column of full snapshots against `git status`, for every state
//! of the index's cache-tree extension: fully valid and matching `HEAD`, partly invalidated by
//! staging, valid but naming a different tree than `HEAD`, and absent.

use crate::support::porcelain::xy_map;
use crate::support::{TestRepo, git_cmd, set};

/// A repository with several directories, so that staging in one leaves the others' cache-tree
/// entries valid.
fn layered() -> TestRepo {
    TestRepo::with_settled_commit(&[
        ("top.txt", "top\n"),
        (
            "a/one.txt",
            "one with enough content to be recognised when moved\n",
        ),
        ("a/two.txt", "two\n"),
        ("b/three.txt", "three\n"),
        ("c/d/four.txt", "four\n"),
        ("c/d/five.txt", "five\n"),
        ("c/e/six.txt", "six\n"),
    ])
}

/// `true` if the index file carries a cache-tree (`TREE`) extension.
fn has_cache_tree(repo: &TestRepo) -> bool {
    let bytes = std::fs::read(repo.abs(".git/index")).expect("index bytes");
    bytes.windows(4).any(|w| w == b"TREE")
}

/// Rewrite the index from its own entries with `git update-index --index-info`, which writes no
/// cache-tree extension (and zeroed stat data, so every entry needs a content check).
fn drop_cache_tree(repo: &TestRepo) {
    let listing = repo.git(&["ls-files", "-s"]);
    std::fs::remove_file(repo.abs(".git/index")).expect("remove the index");
    let mut child = git_cmd(repo.path())
        .args(["update-index", "--index-info"])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .expect("git update-index runs");
    std::io::Write::write_all(child.stdin.as_mut().expect("stdin"), listing.as_bytes())
        .expect("feed the listing");
    assert!(child.wait().expect("git update-index").success());
    assert!(
        !has_cache_tree(repo),
        "the rewritten index has no cache-tree"
    );
}

#[test]
fn fully_valid_cache_tree_matching_head_has_no_staged_changes() {
    let repo = layered();
    assert!(has_cache_tree(&repo), "a commit leaves a valid cache-tree");
    repo.write("a/two.txt", "worktree only\n");
    repo.write("b/new.txt", "untracked\n");
    let snapshot = repo.assert_matches_git();
    let xy = xy_map(&snapshot);
    assert_eq!(xy.get("a/two.txt").map(String::as_str), Some(".M"));
    assert_eq!(xy.get("b/new.txt").map(String::as_str), Some("??"));
}

#[test]
fn staging_invalidates_only_the_changed_directories() {
    let repo = layered();
    repo.write("c/d/four.txt", "staged\n");
    repo.write("c/d/added.txt", "added\n");
    repo.git(&["add", "c/d/four.txt", "c/d/added.txt"]);
    repo.git(&["rm", "-q", "b/three.txt"]);
    let snapshot = repo.assert_matches_git();
    let xy = xy_map(&snapshot);
    assert_eq!(xy.get("c/d/four.txt").map(String::as_str), Some("M."));
    assert_eq!(xy.get("c/d/added.txt").map(String::as_str), Some("A."));
    assert_eq!(xy.get("b/three.txt").map(String::as_str), Some("D."));
    assert_eq!(xy.len(), 3, "{xy:?}");
}

#[test]
fn renames_across_directories_and_a_directory_replacing_a_file() {
    let repo = layered();
    repo.git(&["mv", "a/one.txt", "b/moved.txt"]);
    // `top.txt` becomes a directory in the index.
    repo.git(&["rm", "-q", "top.txt"]);
    repo.write("top.txt/inner.txt", "inner\n");
    repo.git(&["add", "top.txt/inner.txt"]);
    let snapshot = repo.assert_matches_git();
    let xy = xy_map(&snapshot);
    assert_eq!(xy.get("b/moved.txt").map(String::as_str), Some("R."));
    assert_eq!(xy.get("top.txt").map(String::as_str), Some("D."));
    assert_eq!(xy.get("top.txt/inner.txt").map(String::as_str), Some("A."));
}

#[test]
fn cache_tree_of_another_commit_after_a_soft_reset() {
    let repo = layered();
    repo.write("c/e/six.txt", "six, second commit\n");
    repo.write("a/three-more.txt", "new in the second commit\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "second"]);
    // The index (and its valid cache-tree) still describes the second commit; HEAD does not.
    repo.git(&["reset", "-q", "--soft", "HEAD~1"]);
    assert!(has_cache_tree(&repo));
    let snapshot = repo.assert_matches_git();
    let xy = xy_map(&snapshot);
    assert_eq!(xy.get("c/e/six.txt").map(String::as_str), Some("M."));
    assert_eq!(xy.get("a/three-more.txt").map(String::as_str), Some("A."));
    assert_eq!(xy.len(), 2, "{xy:?}");

    // And HEAD moved forward past the index: the other direction.
    repo.git(&["commit", "-q", "-m", "again"]);
    let ahead = repo.head();
    repo.git(&["reset", "-q", "--soft", "HEAD~1"]);
    repo.git(&["reset", "-q"]);
    repo.git(&["update-ref", "HEAD", &ahead]);
    let snapshot = repo.assert_matches_git();
    assert_eq!(
        snapshot.dirty_paths(),
        set(&["a/three-more.txt", "c/e/six.txt"])
    );
}

#[test]
fn index_without_cache_tree() {
    let repo = layered();
    repo.write("a/two.txt", "modified\n");
    repo.write("c/d/five.txt", "staged\n");
    repo.git(&["add", "c/d/five.txt"]);
    repo.git(&["mv", "a/one.txt", "c/renamed.txt"]);
    drop_cache_tree(&repo);
    let snapshot = repo.assert_matches_git();
    let xy = xy_map(&snapshot);
    assert_eq!(xy.get("a/two.txt").map(String::as_str), Some(".M"));
    assert_eq!(xy.get("c/d/five.txt").map(String::as_str), Some("M."));
    assert_eq!(xy.get("c/renamed.txt").map(String::as_str), Some("R."));
    assert_eq!(xy.len(), 3, "{xy:?}");

    // Clean apart from the (zeroed) stat data: every entry is checked by content, none is dirty.
    let repo = layered();
    drop_cache_tree(&repo);
    assert!(repo.assert_matches_git().is_clean());
}

#[test]
fn intent_to_add_inside_a_revalidated_directory() {
    let repo = layered();
    repo.write("a/later.txt", "later\n");
    repo.git(&["add", "--intent-to-add", "a/later.txt"]);
    // Writing a tree re-validates the cache-tree, which leaves intent-to-add entries out.
    repo.git(&["write-tree"]);
    let snapshot = repo.assert_matches_git();
    assert_eq!(
        xy_map(&snapshot).get("a/later.txt").map(String::as_str),
        Some(".A")
    );
}

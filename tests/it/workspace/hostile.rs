//! Snapshots under hostile or unlucky worktrees: a 4 GiB sparse untracked file is fingerprinted by
//! its metadata instead of read, a cancelled capture stops, FIFOs and symlinks to them are never
//! opened, index flags (`assume-unchanged`, `skip-worktree`) do not hide edits, and edits inside a
//! submodule's worktree are changes of the submodule path.

use crate::support::porcelain::{records, xy_map};
use crate::support::{TestRepo, git, set};
use pi_native_hooks_base::CancelToken;
use pi_native_hooks_workspace::{
    self as workspace, Content, MAX_HASHED_BYTES, WorkspaceSnapshot, WorktreeChange,
};

const SPARSE_BYTES: u64 = 4 << 30;

fn changed(before: &WorkspaceSnapshot, after: &WorkspaceSnapshot) -> Vec<String> {
    WorkspaceSnapshot::changed_paths(before, after)
        .expect("changed paths")
        .into_iter()
        .collect()
}

fn sparse_file(repo: &TestRepo, rela: &str, len: u64) {
    let file = std::fs::File::create(repo.abs(rela)).expect("create");
    file.set_len(len).expect("sparse length");
}

#[test]
fn a_sparse_four_gib_untracked_file_is_fingerprinted_by_its_metadata() {
    let repo = TestRepo::with_commit(&[("a.txt", "a\n")]);
    sparse_file(&repo, "huge.bin", SPARSE_BYTES);
    repo.write("small.txt", "small\n");

    let before = repo.assert_matches_git();
    let Some(Content::LargeFile { stamp, .. }) = before.entry("huge.bin").map(|e| &e.content)
    else {
        panic!("metadata form expected: {:?}", before.entry("huge.bin"));
    };
    assert_eq!(stamp.size, SPARSE_BYTES);
    const { assert!(SPARSE_BYTES > MAX_HASHED_BYTES) };
    assert!(matches!(
        before.entry("small.txt").map(|e| &e.content),
        Some(Content::File { .. })
    ));
    assert!(before.dirty_paths().contains("huge.bin"));

    let limited = workspace::capture_paths(repo.path(), &["huge.bin"]).expect("limited");
    assert!(matches!(
        limited.entry("huge.bin").map(|e| &e.content),
        Some(Content::LargeFile { stamp, .. }) if stamp.size == SPARSE_BYTES
    ));

    // Any write changes the metadata, so the edit is still seen.
    sparse_file(&repo, "huge.bin", SPARSE_BYTES + 1);
    let after = repo.snapshot();
    assert_eq!(changed(&before, &after), ["huge.bin"]);
    assert_ne!(before.fingerprint(), after.fingerprint());
}

#[test]
fn a_file_exactly_at_the_cap_is_still_hashed() {
    let repo = TestRepo::with_commit(&[("a.txt", "a\n")]);
    sparse_file(&repo, "edge.bin", MAX_HASHED_BYTES);
    sparse_file(&repo, "over.bin", MAX_HASHED_BYTES + 1);
    let snapshot = repo.snapshot();
    assert!(matches!(
        snapshot.entry("edge.bin").map(|e| &e.content),
        Some(Content::File { .. })
    ));
    assert!(matches!(
        snapshot.entry("over.bin").map(|e| &e.content),
        Some(Content::LargeFile { .. })
    ));
}

#[test]
fn a_cancelled_capture_with_big_dirty_files_returns_cancelled() {
    let repo = TestRepo::with_commit(&[("a.txt", "a\n")]);
    sparse_file(&repo, "huge.bin", SPARSE_BYTES);
    std::fs::write(repo.abs("big.bin"), vec![b'x'; 8 << 20]).expect("write");
    let cancel = CancelToken::new();
    cancel.cancel();
    for result in [
        workspace::capture_with_cancel(repo.path(), &cancel),
        workspace::capture_paths_with_cancel(repo.path(), &["big.bin", "huge.bin"], &cancel),
    ] {
        let error = result.expect_err("cancelled");
        assert!(error.is_cancelled(), "{error}");
    }
}

#[test]
fn fifos_and_symlinks_to_them_are_never_opened() {
    let repo = TestRepo::with_settled_commit(&[("tracked.ts", "t\n"), ("b.ts", "b\n")]);
    nix::unistd::mkfifo(&repo.abs("pipe"), nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
    repo.symlink("pipe", "x.ts");
    // A tracked file replaced by a FIFO.
    repo.remove("tracked.ts");
    nix::unistd::mkfifo(&repo.abs("tracked.ts"), nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");

    // Run on a thread: a blocking open would hang the test instead of failing it.
    let dir = repo.path().to_owned();
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let full = workspace::capture(&dir);
        let limited = workspace::capture_paths(&dir, &["x.ts", "tracked.ts", "pipe"]);
        let _ = send.send((full, limited));
    });
    let (full, limited) = receive
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("the snapshots return instead of blocking");
    let full = full.expect("full snapshot");
    // The same paths as git, plus the untracked FIFO git never lists (a special file appearing is
    // a change the analysis and the gate must see); git calls the FIFO that replaced a tracked
    // file a modification (`.M`), gix a type change (`.T`).
    let paths = |records: std::collections::BTreeSet<(String, String)>| -> Vec<String> {
        records.into_iter().map(|(path, _)| path).collect()
    };
    let mut expected = paths(repo.git_status());
    expected.push("pipe".to_owned());
    expected.sort();
    assert_eq!(paths(records(&full)), expected);
    assert_eq!(xy_map(&full).get("pipe").map(String::as_str), Some("??"));
    assert_eq!(
        full.entry("pipe").map(|e| &e.content),
        Some(&Content::Other)
    );
    assert_eq!(
        xy_map(&full).get("tracked.ts").map(String::as_str),
        Some(".T")
    );
    assert!(matches!(
        full.entry("x.ts").map(|e| &e.content),
        Some(Content::Symlink { .. })
    ));
    assert_eq!(
        full.entry("tracked.ts").map(|e| &e.content),
        Some(&Content::Other)
    );
    // The analysis is asked about both, and reports them as not analyzed.
    assert_eq!(full.dirty_paths(), set(&["pipe", "tracked.ts", "x.ts"]));
    let limited = limited.expect("limited snapshot");
    assert_eq!(
        limited.entry("tracked.ts").map(|e| &e.content),
        Some(&Content::Other)
    );
}

/// `assume-unchanged` and `skip-worktree` (on a present file) hide edits from `git status`, not
/// from snapshots: full, path-limited, and through gix's own iterator (split index).
#[test]
fn index_flags_do_not_hide_edits() {
    for split_index in [false, true] {
        let repo = TestRepo::with_settled_commit(&[
            ("src/assumed.ts", "export const a = 1;\n"),
            ("src/skipped.ts", "export const s = 1;\n"),
            ("src/clean.ts", "export const c = 1;\n"),
        ]);
        if split_index {
            repo.git(&["update-index", "--split-index"]);
        }
        repo.git(&["update-index", "--assume-unchanged", "src/assumed.ts"]);
        repo.git(&["update-index", "--skip-worktree", "src/skipped.ts"]);
        let before = repo.assert_matches_git();
        assert!(before.is_clean(), "flags alone change nothing");
        let limited_before =
            workspace::capture_paths(repo.path(), &["src/assumed.ts", "src/skipped.ts"])
                .expect("limited");

        repo.write("src/assumed.ts", "export const a = 2;\n");
        repo.write("src/skipped.ts", "export const s = 2;\n");
        assert!(repo.git_status().is_empty(), "git hides both edits");
        let after = repo.snapshot();
        let xy = xy_map(&after);
        assert_eq!(
            xy.get("src/assumed.ts").map(String::as_str),
            Some(".M"),
            "split index {split_index}: {xy:?}"
        );
        assert_eq!(xy.get("src/skipped.ts").map(String::as_str), Some(".M"));
        assert_eq!(xy.len(), 2, "{xy:?}");
        assert_eq!(
            changed(&before, &after),
            ["src/assumed.ts", "src/skipped.ts"]
        );
        assert_eq!(
            after.dirty_paths(),
            set(&["src/assumed.ts", "src/skipped.ts"])
        );

        let limited_after =
            workspace::capture_paths(repo.path(), &["src/assumed.ts", "src/skipped.ts"])
                .expect("limited");
        assert_eq!(xy_map(&limited_after), xy);
        assert_eq!(
            changed(&limited_before, &limited_after),
            ["src/assumed.ts", "src/skipped.ts"]
        );
        // A directory in a path-limited snapshot takes the pathspec-limited iterator.
        let dir = workspace::capture_paths(repo.path(), &["src"]).expect("directory");
        assert_eq!(xy_map(&dir), xy);
    }
}

/// The sparse-checkout case: a `skip-worktree` path absent from the worktree is not a deletion.
#[test]
fn an_absent_skip_worktree_path_is_unchanged() {
    let repo = TestRepo::with_settled_commit(&[("kept.ts", "k\n"), ("sparse.ts", "s\n")]);
    repo.git(&["update-index", "--skip-worktree", "sparse.ts"]);
    repo.remove("sparse.ts");
    let snapshot = repo.assert_matches_git();
    assert!(snapshot.is_clean(), "{:?}", xy_map(&snapshot));
}

/// A superproject with the submodule `sub` (one committed file `lib.txt`), both clean.
fn with_submodule() -> (TestRepo, TestRepo) {
    let upstream = TestRepo::with_commit(&[("lib.txt", "v1\n")]);
    let repo = TestRepo::with_commit(&[("a.txt", "a\n")]);
    let url = upstream.path().to_string_lossy().into_owned();
    repo.git(&["submodule", "add", "-q", &url, "sub"]);
    repo.git(&["commit", "-q", "-m", "add submodule"]);
    (repo, upstream)
}

#[test]
fn every_edit_inside_a_submodule_is_a_change_of_the_submodule_path() {
    let (repo, _upstream) = with_submodule();
    let clean = repo.assert_matches_git();
    assert!(clean.is_clean());

    // Each step: the submodule's worktree changes, the records still match git's, and the
    // submodule path is what changed.
    let steps: [(&str, &dyn Fn()); 5] = [
        ("modify a tracked file", &|| {
            repo.write("sub/lib.txt", "edit 1\n");
        }),
        ("modify it again", &|| repo.write("sub/lib.txt", "edit 2\n")),
        ("add an untracked file", &|| {
            repo.write("sub/new.txt", "n1\n");
        }),
        ("edit the untracked file", &|| {
            repo.write("sub/new.txt", "n2\n");
        }),
        ("revert the tracked file", &|| {
            repo.write("sub/lib.txt", "v1\n");
        }),
    ];
    let mut previous = clean;
    for (step, edit) in steps {
        edit();
        let next = repo.assert_matches_git();
        assert_eq!(changed(&previous, &next), ["sub"], "{step}");
        assert_ne!(previous.fingerprint(), next.fingerprint(), "{step}");
        let Some(entry) = next.entry("sub") else {
            panic!("{step}: the submodule is dirty");
        };
        assert!(
            matches!(&entry.worktree, Some(WorktreeChange::Submodule(_))),
            "{step}"
        );
        assert!(
            matches!(
                &entry.content,
                Content::Repository {
                    changes: Some(_),
                    ..
                }
            ),
            "{step}: {:?}",
            entry.content
        );
        previous = next;
    }
    // Nothing changed: the same snapshot twice.
    let again = repo.snapshot();
    assert!(changed(&previous, &again).is_empty());
    assert_eq!(previous.fingerprint(), again.fingerprint());
}

#[test]
fn an_untracked_file_in_a_clean_submodule_is_a_change_of_the_submodule_path() {
    let (repo, _upstream) = with_submodule();
    let clean = repo.snapshot();
    repo.write("sub/untracked.ts", "export const u = 1;\n");
    let dirty = repo.assert_matches_git();
    assert_eq!(changed(&clean, &dirty), ["sub"]);
    assert!(
        dirty.dirty_paths().is_empty(),
        "a submodule is not a file to lint"
    );
}

#[test]
fn a_path_limited_snapshot_inside_a_submodule_sees_its_edits() {
    let (repo, _upstream) = with_submodule();
    let before = workspace::capture_paths(repo.path(), &["sub/lib.txt"]).expect("limited");
    assert!(before.is_clean());
    repo.write("sub/lib.txt", "edited\n");
    let after = workspace::capture_paths(repo.path(), &["sub/lib.txt"]).expect("limited");
    assert_eq!(changed(&before, &after), ["sub/lib.txt"]);
    // A gitlink the index no longer records still has no tree to look in.
    git(repo.path(), &["rm", "-q", "--cached", "sub"]);
    let staged_removal = workspace::capture_paths(repo.path(), &["sub/lib.txt"]).expect("limited");
    assert!(staged_removal.entry("sub/lib.txt").is_none());
}

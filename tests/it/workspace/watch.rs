//! The watched whole-worktree snapshot (`WatchedWorkspace`): after every synchronisation it
//! equals a full snapshot taken at the same moment, or the watcher said why it fell back — for
//! file operations, git commands, hostile names and the injected failures (overflow, cookie
//! timeout, watch limit).

use std::time::Duration;

use crate::support::TestRepo;
use pi_native_hooks_base::CancelToken;
use pi_native_hooks_workspace::{
    CaptureKind, FallbackReason, WatchOptions, WatchState, WatchedWorkspace, capture,
};

/// Takes a watched snapshot and a full one and asserts they agree; returns how the watched one
/// was taken.
pub(crate) fn sync_and_compare(repo: &TestRepo, watched: &WatchedWorkspace) -> CaptureKind {
    let capture_watched = watched
        .capture(&CancelToken::new())
        .expect("watched capture");
    let full = capture(repo.path()).expect("full capture");
    assert_eq!(
        capture_watched.snapshot.entries(),
        full.entries(),
        "entries after {:?}",
        capture_watched.kind
    );
    assert_eq!(capture_watched.snapshot.head(), full.head());
    assert_eq!(
        capture_watched.snapshot.fingerprint(),
        full.fingerprint(),
        "fingerprint after {:?}",
        capture_watched.kind
    );
    capture_watched.kind
}

fn start(repo: &TestRepo) -> WatchedWorkspace {
    let watched = WatchedWorkspace::new(repo.path(), WatchOptions::default());
    assert_eq!(
        sync_and_compare(repo, &watched),
        CaptureKind::Full {
            reason: FallbackReason::Baseline
        }
    );
    watched
}

/// Asserts the next capture came from the events, looking at `paths` paths.
fn assert_watched(repo: &TestRepo, watched: &WatchedWorkspace, paths: usize) {
    assert_eq!(
        sync_and_compare(repo, watched),
        CaptureKind::Watched { paths }
    );
}

fn base() -> TestRepo {
    let repo = TestRepo::with_commit(&[
        ("src/a.ts", "export const a = 1;\n"),
        ("src/deep/b.ts", "export const b = 2;\n"),
        ("lib/c.ts", "export const c = 3;\n"),
        (".gitignore", "build/\n*.log\n"),
    ]);
    repo.write("build/kept.txt", "tracked below an ignored directory\n");
    repo.git(&["add", "-f", "build/kept.txt"]);
    repo.git(&["commit", "-qm", "kept"]);
    repo
}

#[test]
fn nothing_changed_is_a_watched_snapshot_of_no_paths() {
    let repo = base();
    let watched = start(&repo);
    assert_watched(&repo, &watched, 0);
    assert_watched(&repo, &watched, 0);
    let status = watched.status();
    assert_eq!(status.watched, 2);
    assert_eq!(status.full, 1);
    assert!(matches!(status.state, WatchState::Watching { directories } if directories >= 4));
}

/// A capture while another one holds the watcher (a `bash` wave's baseline racing an
/// out-of-band check, say) is a full snapshot that leaves the watcher alone: its events stay
/// queued for the next capture, which is a watched one again.
#[test]
fn a_capture_while_another_runs_is_full_and_leaves_the_watcher_alone() {
    let repo = base();
    let watched = start(&repo);
    repo.write("src/a.ts", "export const a = 10;\n");
    {
        let _capturing = watched.hold();
        assert_eq!(
            sync_and_compare(&repo, &watched),
            CaptureKind::Full {
                reason: FallbackReason::Busy
            }
        );
    }
    assert_watched(&repo, &watched, 1);
    let status = watched.status();
    assert_eq!((status.watched, status.full), (1, 1));
    assert_eq!(status.last_fallback, Some(FallbackReason::Baseline));
}

#[test]
fn create_modify_delete_and_chmod_are_seen() {
    use std::os::unix::fs::PermissionsExt;
    let repo = base();
    let watched = start(&repo);
    repo.write("src/new.ts", "export const n = 0;\n");
    assert_watched(&repo, &watched, 1);
    repo.write("src/a.ts", "export const a = 10;\n");
    assert_watched(&repo, &watched, 1);
    repo.remove("lib/c.ts");
    assert_watched(&repo, &watched, 1);
    std::fs::set_permissions(
        repo.abs("src/deep/b.ts"),
        std::fs::Permissions::from_mode(0o755),
    )
    .expect("chmod");
    assert_watched(&repo, &watched, 1);
    // Written back to what HEAD holds: clean again.
    repo.write("src/a.ts", "export const a = 1;\n");
    assert_watched(&repo, &watched, 1);
}

#[test]
fn renames_across_directories_and_new_untracked_trees_are_seen() {
    let repo = base();
    let watched = start(&repo);
    std::fs::rename(repo.abs("src/deep/b.ts"), repo.abs("lib/b.ts")).expect("rename");
    sync_and_compare(&repo, &watched);
    // A whole directory moved: its old and new paths are looked at, its new place is watched.
    std::fs::rename(repo.abs("src/deep"), repo.abs("moved")).expect("rename dir");
    sync_and_compare(&repo, &watched);
    repo.write("moved/later.ts", "export {};\n");
    assert_watched(&repo, &watched, 1);
    // A new directory tree, made faster than any watch could be added to it.
    repo.write("fresh/one/two/three.ts", "export {};\n");
    repo.write("fresh/one/four.ts", "export {};\n");
    sync_and_compare(&repo, &watched);
    // Its subdirectories are watched now.
    repo.write("fresh/one/two/five.ts", "export {};\n");
    assert_watched(&repo, &watched, 1);
    std::fs::remove_dir_all(repo.abs("fresh")).expect("rm -r");
    sync_and_compare(&repo, &watched);
}

#[test]
fn ignored_directories_are_not_watched_but_their_tracked_files_are() {
    let repo = base();
    let watched = start(&repo);
    std::fs::create_dir_all(repo.abs("node_modules/pkg")).expect("mkdir");
    repo.write(".git/info/exclude", "");
    let watched = {
        // The exclude file changed: that is a rules change, so start over.
        drop(watched);
        start(&repo)
    };
    repo.write("build/out.js", "ignored\n");
    repo.write("debug.log", "ignored\n");
    sync_and_compare(&repo, &watched);
    repo.write("build/kept.txt", "changed\n");
    sync_and_compare(&repo, &watched);
    assert_eq!(capture(repo.path()).expect("full").entries().len(), 1);
}

#[test]
fn symlinks_fifos_and_non_utf8_names_are_seen() {
    let repo = base();
    let watched = start(&repo);
    repo.symlink("a.ts", "src/link.ts");
    sync_and_compare(&repo, &watched);
    nix::unistd::mkfifo(&repo.abs("src/pipe.ts"), nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
    sync_and_compare(&repo, &watched);
    let name = <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(b"src/caf\xe9.ts");
    std::fs::write(repo.path().join(name), "x").expect("write non-UTF-8 name");
    assert_eq!(
        sync_and_compare(&repo, &watched),
        CaptureKind::Full {
            reason: FallbackReason::NonUtf8Name {
                path: "src/caf\u{fffd}.ts".to_owned()
            }
        }
    );
    // A FIFO in a new directory is an untracked path, as in a full snapshot.
    std::fs::create_dir(repo.abs("pipes")).expect("mkdir");
    nix::unistd::mkfifo(&repo.abs("pipes/p.ts"), nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
    assert_watched(&repo, &watched, 1);
    std::fs::write(repo.abs("src/ctl\u{7}.ts"), "x").expect("control character");
    sync_and_compare(&repo, &watched);
    let top = <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(b"\xff.ts");
    std::fs::write(repo.path().join(top), "x").expect("write non-UTF-8 name at the root");
    assert!(matches!(
        sync_and_compare(&repo, &watched),
        CaptureKind::Full {
            reason: FallbackReason::NonUtf8Name { .. }
        }
    ));
    repo.write("src/a.ts", "changed\n");
    assert_watched(&repo, &watched, 1);
}

#[test]
fn git_add_commit_and_checkout_fall_back_or_agree() {
    let repo = base();
    let watched = start(&repo);
    repo.write("src/a.ts", "export const a = 5;\n");
    sync_and_compare(&repo, &watched);
    repo.git(&["add", "src/a.ts"]);
    assert!(matches!(
        sync_and_compare(&repo, &watched),
        CaptureKind::Full {
            reason: FallbackReason::HeadOrIndex { .. }
        }
    ));
    // `git status` rewrites the index with fresh stat data only: still watched.
    repo.write("lib/c.ts", "export const c = 4;\n");
    repo.git(&["status", "--porcelain"]);
    assert_watched(&repo, &watched, 1);
    repo.git(&["commit", "-qam", "two"]);
    assert!(matches!(
        sync_and_compare(&repo, &watched),
        CaptureKind::Full { .. }
    ));
    repo.git(&["checkout", "-q", "HEAD~1"]);
    assert!(matches!(
        sync_and_compare(&repo, &watched),
        CaptureKind::Full {
            reason: FallbackReason::HeadOrIndex { .. }
        }
    ));
    repo.write("src/after.ts", "export {};\n");
    assert_watched(&repo, &watched, 1);
}

#[test]
fn a_gitignore_change_falls_back_and_re_arms() {
    let repo = base();
    let watched = start(&repo);
    repo.write("notes.md", "untracked\n");
    repo.write(".gitignore", "build/\n*.log\n*.md\n");
    assert_eq!(
        sync_and_compare(&repo, &watched),
        CaptureKind::Full {
            reason: FallbackReason::Rules {
                path: ".gitignore".to_owned()
            }
        }
    );
    repo.write("src/x.ts", "export {};\n");
    assert_watched(&repo, &watched, 1);
    assert_eq!(watched.status().full, 2);
}

/// A change to an excludes file outside the repository (named by the repository's own
/// `core.excludesFile`, so the test leaves the user's configuration alone) changes which untracked
/// files git ignores without any event in the worktree: the next snapshot is a full one, naming
/// the file, and the one after is watched again.
#[test]
fn an_excludes_file_outside_the_repository_falls_back_when_it_changes() {
    let outside = tempfile::tempdir().expect("a directory outside the repository");
    let excludes = outside.path().join("ignore");
    std::fs::write(&excludes, "").expect("write the excludes file");
    let repo = base();
    repo.git(&[
        "config",
        "core.excludesFile",
        excludes.to_str().expect("a UTF-8 temp path"),
    ]);
    repo.write("notes.txt", "untracked\n");
    let watched = start(&repo);
    assert_watched(&repo, &watched, 0);
    std::fs::write(&excludes, "notes.txt\n").expect("rewrite the excludes file");
    assert_eq!(
        sync_and_compare(&repo, &watched),
        CaptureKind::Full {
            reason: FallbackReason::Rules {
                path: excludes.display().to_string()
            }
        }
    );
    assert_watched(&repo, &watched, 0);
}

/// The same through a symbolic link (a global config or excludes file is often a link into a
/// dotfiles checkout): rewriting the link's target counts.
#[test]
fn an_excludes_file_behind_a_symlink_falls_back_when_its_target_changes() {
    let outside = tempfile::tempdir().expect("a directory outside the repository");
    let target = outside.path().join("dotfiles-ignore");
    std::fs::write(&target, "").expect("write the excludes file");
    let link = outside.path().join("ignore");
    std::os::unix::fs::symlink(&target, &link).expect("link the excludes file");
    let repo = base();
    repo.git(&[
        "config",
        "core.excludesFile",
        link.to_str().expect("a UTF-8 temp path"),
    ]);
    repo.write("notes.txt", "untracked\n");
    let watched = start(&repo);
    assert_watched(&repo, &watched, 0);
    std::fs::write(&target, "notes.txt\n").expect("rewrite the link's target");
    assert_eq!(
        sync_and_compare(&repo, &watched),
        CaptureKind::Full {
            reason: FallbackReason::Rules {
                path: link.display().to_string()
            }
        }
    );
    assert_watched(&repo, &watched, 0);
}

#[test]
fn a_simulated_overflow_falls_back_once_then_watches_again() {
    let repo = base();
    let watched = start(&repo);
    repo.write("src/a.ts", "changed\n");
    watched.simulate_overflow();
    assert_eq!(
        sync_and_compare(&repo, &watched),
        CaptureKind::Full {
            reason: FallbackReason::Overflow
        }
    );
    assert_eq!(
        watched.status().last_fallback,
        Some(FallbackReason::Overflow)
    );
    repo.write("src/a.ts", "changed again\n");
    assert_watched(&repo, &watched, 1);
}

#[test]
fn a_cookie_never_seen_in_time_falls_back() {
    let repo = base();
    let watched = WatchedWorkspace::new(
        repo.path(),
        WatchOptions {
            cookie_timeout: Duration::ZERO,
            ..WatchOptions::default()
        },
    );
    sync_and_compare(&repo, &watched);
    repo.write("src/a.ts", "changed\n");
    assert_eq!(
        sync_and_compare(&repo, &watched),
        CaptureKind::Full {
            reason: FallbackReason::CookieTimeout { millis: 0 }
        }
    );
    assert_eq!(watched.status().full, 2);
}

#[test]
fn more_directories_than_the_watch_limit_is_never_watched() {
    let repo = base();
    let watched = WatchedWorkspace::new(
        repo.path(),
        WatchOptions {
            max_watches: 2,
            ..WatchOptions::default()
        },
    );
    let limit = FallbackReason::WatchLimit { limit: Some(2) };
    sync_and_compare(&repo, &watched);
    assert_eq!(
        watched.status().state,
        WatchState::Unavailable {
            reason: limit.clone()
        }
    );
    repo.write("src/a.ts", "changed\n");
    assert_eq!(
        sync_and_compare(&repo, &watched),
        CaptureKind::Full { reason: limit }
    );
}

#[test]
fn too_many_changed_paths_fall_back() {
    let repo = base();
    let watched = WatchedWorkspace::new(
        repo.path(),
        WatchOptions {
            max_pending_paths: 3,
            ..WatchOptions::default()
        },
    );
    sync_and_compare(&repo, &watched);
    for n in 0..5 {
        repo.write(&format!("src/n{n}.ts"), "export {};\n");
    }
    assert_eq!(
        sync_and_compare(&repo, &watched),
        CaptureKind::Full {
            reason: FallbackReason::TooManyPaths { limit: 3 }
        }
    );
    repo.write("src/n0.ts", "export const n = 0;\n");
    assert_watched(&repo, &watched, 1);
}

#[test]
fn nested_repositories_are_checked_at_every_sync() {
    let repo = base();
    let watched = start(&repo);
    let nested = repo.abs("vendor/inner");
    std::fs::create_dir_all(&nested).expect("mkdir");
    crate::support::git(&nested, &["init", "-q"]);
    crate::support::write(&nested, "x.txt", "x\n");
    sync_and_compare(&repo, &watched);
    crate::support::git(&nested, &["add", "x.txt"]);
    crate::support::git(&nested, &["commit", "-qm", "x"]);
    sync_and_compare(&repo, &watched);
    crate::support::write(&nested, "x.txt", "y\n");
    sync_and_compare(&repo, &watched);
}

/// A staged deletion is in neither the index nor the worktree: when its directory comes back,
/// the events name only the directory's new content, and the deletion must still be listed.
#[test]
fn a_staged_deletion_survives_its_directory_coming_back() {
    let repo = base();
    let watched = start(&repo);
    std::fs::remove_dir_all(repo.abs("src")).expect("remove src");
    sync_and_compare(&repo, &watched);
    repo.git(&["add", "-A", "--", "src/deep/b.ts"]);
    sync_and_compare(&repo, &watched);
    repo.write("src/a.ts", "export const a = 2;\n");
    assert!(matches!(
        sync_and_compare(&repo, &watched),
        CaptureKind::Watched { .. }
    ));
    let capture = watched
        .capture(&CancelToken::new())
        .expect("watched capture");
    assert!(capture.snapshot.entries().contains_key("src/deep/b.ts"));
}

/// A directory whose only file's deletion is staged, moved away: the directory's old path is
/// not a deleted file of its own.
#[test]
fn a_directory_left_with_a_staged_deletion_moved_away_is_not_a_deleted_file() {
    let repo = base();
    let watched = start(&repo);
    repo.remove("lib/c.ts");
    sync_and_compare(&repo, &watched);
    repo.git(&["add", "-A", "--", "lib/c.ts"]);
    sync_and_compare(&repo, &watched);
    std::fs::rename(repo.abs("lib"), repo.abs("src/lib")).expect("move lib");
    assert!(matches!(
        sync_and_compare(&repo, &watched),
        CaptureKind::Watched { .. }
    ));
}

/// An ignored directory is not watched until it holds a tracked file; `git add -f` puts one
/// there, and the next edit of it must be seen.
#[test]
fn a_file_forced_into_the_index_below_an_ignored_directory_is_watched() {
    let repo = base();
    std::fs::write(repo.path().join(".git/info/exclude"), "gen/\n").expect("exclude");
    repo.write("gen/x.ts", "export const x = 1;\n");
    let watched = start(&repo);
    repo.git(&["add", "-f", "gen/x.ts"]);
    sync_and_compare(&repo, &watched);
    sync_and_compare(&repo, &watched);
    repo.write("gen/x.ts", "export const x = 2;\n");
    assert_watched(&repo, &watched, 1);
}

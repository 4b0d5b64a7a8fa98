//! Property test of the watched snapshot: random sequences of file operations and git commands
//! in a temp repository; after every synchronisation the watched snapshot equals a full one
//! (`sync_and_compare` asserts it), whether it came from the events or the watcher fell back.
//! Each case does real file-system and git work, so the case count is moderate: 24 cases of up
//! to 10 operations each per run (`WATCH_CASES=N` runs N). proptest prints the failing (shrunk)
//! sequence and its seed.

use super::watch::sync_and_compare;
use crate::support::TestRepo;
use pi_native_hooks_workspace::{CaptureKind, WatchOptions, WatchedWorkspace};
use proptest::prelude::*;

const FILES: [&str; 6] = [
    "src/a.ts",
    "src/deep/b.ts",
    "lib/c.ts",
    "new/x.ts",
    "new/sub/y.ts",
    "build/out.js",
];
const DIRS: [&str; 3] = ["src", "lib", "other"];

#[derive(Clone, Debug)]
enum Op {
    Write(usize, u8),
    Delete(usize),
    Rename(usize, usize),
    Chmod(usize),
    Symlink(usize),
    RemoveTree(usize),
    Add(usize),
    Commit,
    Checkout(usize),
}

fn op() -> impl Strategy<Value = Op> {
    let file = 0..FILES.len();
    prop_oneof![
        4 => (file.clone(), any::<u8>()).prop_map(|(f, c)| Op::Write(f, c)),
        2 => file.clone().prop_map(Op::Delete),
        2 => (file.clone(), 0..DIRS.len()).prop_map(|(f, d)| Op::Rename(f, d)),
        1 => file.clone().prop_map(Op::Chmod),
        1 => file.clone().prop_map(Op::Symlink),
        1 => (0..DIRS.len()).prop_map(Op::RemoveTree),
        1 => file.clone().prop_map(Op::Add),
        1 => Just(Op::Commit),
        1 => file.prop_map(Op::Checkout),
    ]
}

fn apply(repo: &TestRepo, op: &Op) {
    use std::os::unix::fs::PermissionsExt;
    let exists = |rela: &str| std::fs::symlink_metadata(repo.abs(rela)).is_ok();
    match op {
        Op::Write(f, c) => {
            let _ = std::fs::remove_file(repo.abs(FILES[*f]));
            repo.write(FILES[*f], format!("export const v = {c};\n"));
        }
        Op::Delete(f) if exists(FILES[*f]) => repo.remove(FILES[*f]),
        Op::Rename(f, d) if exists(FILES[*f]) => {
            let name = FILES[*f].rsplit('/').next().unwrap_or("x.ts");
            std::fs::create_dir_all(repo.abs(DIRS[*d])).expect("mkdir");
            let _ = std::fs::rename(
                repo.abs(FILES[*f]),
                repo.abs(&format!("{}/{name}", DIRS[*d])),
            );
        }
        Op::Chmod(f) if exists(FILES[*f]) => {
            let _ = std::fs::set_permissions(
                repo.abs(FILES[*f]),
                std::fs::Permissions::from_mode(0o755),
            );
        }
        Op::Symlink(f) if !exists(FILES[*f]) => {
            std::fs::create_dir_all(repo.abs(FILES[*f]).parent().expect("parent")).expect("mkdir");
            repo.symlink("target.ts", FILES[*f]);
        }
        Op::RemoveTree(d) => {
            let _ = std::fs::remove_dir_all(repo.abs(DIRS[*d]));
        }
        Op::Add(f) => {
            let _ = crate::support::git_cmd(repo.path())
                .args(["add", "-A", "--", FILES[*f]])
                .output();
        }
        Op::Commit => {
            let _ = crate::support::git_cmd(repo.path())
                .args(["commit", "-qam", "step", "--allow-empty"])
                .output();
        }
        Op::Checkout(f) => {
            let _ = crate::support::git_cmd(repo.path())
                .args(["checkout", "-q", "HEAD", "--", FILES[*f]])
                .output();
        }
        _ => {}
    }
}

/// The cases per run: 24, or `WATCH_CASES`.
fn cases() -> u32 {
    std::env::var("WATCH_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(24)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn watched_snapshots_equal_full_ones_after_random_operations(
        ops in proptest::collection::vec(op(), 1..10)
    ) {
        let repo = TestRepo::with_commit(&[
            ("src/a.ts", "export const a = 1;\n"),
            ("src/deep/b.ts", "export const b = 2;\n"),
            ("lib/c.ts", "export const c = 3;\n"),
            (".gitignore", "build/\n"),
        ]);
        let watched = WatchedWorkspace::new(repo.path(), WatchOptions::default());
        sync_and_compare(&repo, &watched);
        let mut from_events = 0;
        for op in &ops {
            apply(&repo, op);
            if matches!(sync_and_compare(&repo, &watched), CaptureKind::Watched { .. }) {
                from_events += 1;
            }
        }
        let status = watched.status();
        prop_assert_eq!(status.watched, from_events);
        prop_assert_eq!(status.full + status.watched, ops.len() as u64 + 1);
    }
}

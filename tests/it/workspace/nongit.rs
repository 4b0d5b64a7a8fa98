//! Behaviour outside git: the not-a-repository error, `probe`, and the change set derived from
//! explicit write/edit targets (or its absence when `bash` ran).

use crate::support::git;
use pi_native_hooks_workspace::{
    self as workspace, ChangeSet, MutatingCall, WorkspaceError, WorkspaceKind,
};

fn targeted(tool: &str, path: &str) -> MutatingCall {
    MutatingCall::Targeted {
        tool: tool.into(),
        path: path.into(),
    }
}

#[test]
fn capture_outside_git_says_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    let err = workspace::capture(dir.path()).expect_err("not a repository");
    assert!(err.is_not_a_repository(), "{err:?}");
    assert!(matches!(&err, WorkspaceError::NotARepository { path } if path == dir.path()));
    let message = err.to_string();
    assert!(
        message.contains(&dir.path().display().to_string()),
        "{message}"
    );
    assert!(message.contains("fall back"), "{message}");
    let err = workspace::capture_paths(dir.path(), &["a.ts"]).expect_err("not a repository");
    assert!(err.is_not_a_repository());
}

#[test]
fn probe_distinguishes_git_and_plain_directories() {
    let dir = tempfile::tempdir().expect("tempdir");
    assert_eq!(
        workspace::probe(dir.path()).expect("probe"),
        WorkspaceKind::NotGit {
            dir: dir.path().to_owned()
        }
    );
    git(dir.path(), &["init", "-q"]);
    std::fs::create_dir(dir.path().join("sub")).expect("mkdir");
    match workspace::probe(dir.path().join("sub")).expect("probe") {
        WorkspaceKind::Git { worktree_root } => assert_eq!(
            worktree_root.canonicalize().expect("canonical"),
            dir.path().canonicalize().expect("canonical")
        ),
        other => panic!("expected a git worktree, got {other:?}"),
    }
}

#[test]
fn missing_directory_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("does-not-exist");
    let err = workspace::capture(&missing).expect_err("missing dir");
    assert!(err.to_string().contains("does-not-exist"), "{err}");
}

#[test]
fn explicit_targets_form_the_change_set() {
    let dir = tempfile::tempdir().expect("tempdir");
    let calls = [
        targeted("write", "src/a.ts"),
        targeted("edit", "./src/../src/b.ts"),
        targeted("edit", &dir.path().join("c.ts").to_string_lossy()),
        targeted("write", "src/a.ts"),
    ];
    let set = workspace::changeset_without_git(dir.path(), &calls);
    let expected: std::collections::BTreeSet<String> = ["c.ts", "src/a.ts", "src/b.ts"]
        .iter()
        .map(|p| (*p).to_owned())
        .collect();
    assert_eq!(set, ChangeSet::Paths(expected));
}

#[test]
fn bash_outside_git_has_no_safe_path_set() {
    let dir = tempfile::tempdir().expect("tempdir");
    let calls = [
        targeted("write", "a.ts"),
        MutatingCall::Untargeted {
            tool: "bash".into(),
        },
    ];
    match workspace::changeset_without_git(dir.path(), &calls) {
        ChangeSet::Unknown { reason } => {
            assert!(reason.contains("bash"), "{reason}");
            assert!(reason.contains("not a git repository"), "{reason}");
        }
        other => panic!("expected Unknown, got {other:?}"),
    }
    assert_eq!(
        workspace::changeset_without_git(dir.path(), &[]),
        ChangeSet::Paths(std::collections::BTreeSet::default())
    );
}

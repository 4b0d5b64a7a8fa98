//! The async wrappers: same result as the sync capture, and cancellation through `CancelToken`.

use crate::support::{TestRepo, set};
use pi_native_hooks_base::CancelToken;
use pi_native_hooks_workspace::{self as workspace, WorkspaceError};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn async_capture_matches_sync_capture() {
    let repo = TestRepo::with_commit(&[("a.txt", "a\n")]);
    repo.write("a.txt", "changed\n");
    repo.write("new.txt", "n\n");
    let sync = repo.snapshot();
    let snapshot = workspace::capture_async(repo.path(), CancelToken::new())
        .await
        .expect("async capture");
    assert_eq!(snapshot.fingerprint(), sync.fingerprint());
    assert_eq!(snapshot.dirty_paths(), set(&["a.txt", "new.txt"]));

    let limited =
        workspace::capture_paths_async(repo.path(), vec!["a.txt".into()], CancelToken::new())
            .await
            .expect("async path-limited capture");
    assert_eq!(limited.dirty_paths(), set(&["a.txt"]));
}

#[tokio::test]
async fn cancelled_token_returns_cancelled_error() {
    let repo = TestRepo::with_commit(&[("a.txt", "a\n")]);
    let token = CancelToken::new();
    token.cancel();
    assert!(token.is_cancelled());
    let err = workspace::capture_async(repo.path(), token.clone())
        .await
        .expect_err("cancelled");
    assert!(err.is_cancelled(), "{err:?}");
    assert!(err.to_string().contains("cancelled"), "{err}");
    let err = workspace::capture_paths_async(repo.path(), vec!["a.txt".into()], token)
        .await
        .expect_err("cancelled");
    assert!(matches!(err, WorkspaceError::Cancelled { .. }));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_while_running_stops_the_capture() {
    let repo = TestRepo::with_commit(&[("a.txt", "a\n")]);
    for i in 0..3000 {
        repo.write(&format!("untracked/{}/{i}.txt", i % 30), "content\n");
    }
    let token = CancelToken::new();
    let task = tokio::spawn(workspace::capture_async(
        repo.path().to_owned(),
        token.clone(),
    ));
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    token.cancel();
    match task.await.expect("task joins") {
        // Cancelled mid-way: the only acceptable error.
        Err(err) => assert!(err.is_cancelled(), "{err:?}"),
        // Finished before the cancel landed: then it must be complete.
        Ok(snapshot) => assert_eq!(snapshot.dirty_paths().len(), 3000),
    }
    // The token stays cancelled; a new capture with it is refused.
    let err = workspace::capture_async(repo.path(), token)
        .await
        .expect_err("cancelled");
    assert!(err.is_cancelled());
}

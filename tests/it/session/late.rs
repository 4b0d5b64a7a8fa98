//! What a type check finds after its wave's wait reaches the agent at the settle: the wave's block
//! says the type check is incomplete, the settle asks once more and sends what the wave introduced
//! as a message of its own, at most `continuation_cap` times in a row (the real TypeScript 7
//! server; `[typescript] wait_ms = 0`, so no wave waits for it).

use super::end_to_end::{call, wave};
use crate::support::typescript::{Ts, ts_project};
use crate::support::{ConfigRoot, TestRepo};
use pi_native_hooks_session::{Session, SessionOptions};
use serde_json::json;
use std::time::Duration;

/// A committed TypeScript 7 project with a clean `src/a.ts`, and a session over it whose waves
/// never wait for the type check.
fn late_session(cap: u32) -> (TestRepo, ConfigRoot, Session) {
    let repo = TestRepo::with_commit(&[
        (".gitignore", "node_modules\n"),
        ("src/a.ts", "export const a = 1;\n"),
    ]);
    ts_project(repo.path(), Ts::V7);
    repo.git(&["add", "."]);
    repo.git(&["commit", "-qm", "a TypeScript project"]);
    let root = ConfigRoot::builder()
        .builtin()
        .file("settings.toml", "[typescript]\nwait_ms = 0\n")
        .build();
    let mut options = SessionOptions::new(repo.path(), root.path());
    options.overrides.wave_timeout = Some(Duration::from_secs(60));
    options.overrides.continuation_cap = Some(cap);
    let session = Session::open(options);
    (repo, root, session)
}

fn write_a(content: &'static str) -> super::end_to_end::Call {
    call(
        "W",
        "write",
        json!({ "path": "src/a.ts", "content": content }),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_type_error_found_after_the_wave_is_sent_with_the_settle_once() {
    let (repo, _root, session) = late_session(8);
    session.restore(&[]).await;
    let text = "export const a: number = \"s\";\n";
    let dir = repo.path().to_path_buf();
    let patches = wave(&session, &[write_a(text)], || {
        std::fs::write(dir.join("src/a.ts"), text).expect("write");
    })
    .await;
    let block = patches[0]
        .clone()
        .expect("a block: the type check is incomplete");
    assert!(block.contains("1 file not type-checked"), "{block}");
    assert!(!block.contains("TS2322"), "{block}");

    let settle = session.before_settle().await;
    assert_eq!(settle.message, None, "no verification policy");
    let late = settle.late_findings.expect("the late type error");
    assert!(
        late.starts_with("[pi-native-hooks] These arrived after the tool results"),
        "{late}"
    );
    assert!(
        late.contains("TS2322") && late.contains("src/a.ts:1:14"),
        "{late}"
    );

    // Delivered once: the next settle has nothing late, and lets the agent stop.
    let again = session.before_settle().await;
    assert_eq!((again.message, again.late_findings), (None, None));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn late_diagnostics_alone_continue_at_most_the_cap_in_a_row() {
    let (repo, _root, session) = late_session(1);
    session.restore(&[]).await;
    let dir = repo.path().to_path_buf();
    for (text, settled) in [
        ("export const a: number = \"s\";\n", true),
        (
            "export const a: number = \"s\";\nexport const b: string = 2;\n",
            false,
        ),
    ] {
        let path = dir.join("src/a.ts");
        let patches = wave(&session, &[write_a(text)], || {
            std::fs::write(&path, text).expect("write");
        })
        .await;
        let block = patches[0].clone().unwrap_or_default();
        assert!(block.contains("1 file not type-checked"), "{block}");
        let late = session.before_settle().await.late_findings;
        assert_eq!(late.is_some(), settled, "{late:?}");
    }
    // Past the cap the check stays pending, named in the status, for the next wave.
    let status = pi_native_hooks_session::render_status(&session.status());
    assert!(status.contains("pending"), "{status}");
}

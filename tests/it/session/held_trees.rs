//! The trees the session's analyzer holds for incremental re-analysis, as the status shows them:
//! a file written then edited is analyzed in full, then incrementally, and the budget is the
//! `analysis.tree_cache_bytes` setting, read again at `/reload`.

use super::end_to_end::{call, open, wave};
use super::{NODE_VERIFICATION, node_project};
use crate::support::snapshot::assert_snapshot;
use crate::support::{ConfigRoot, write};
use pi_native_hooks_analysis::{DEFAULT_TREE_CACHE_BYTES, TreeCacheStats};
use pi_native_hooks_session::{Session, render_status};
use serde_json::json;
use std::fmt::Write as _;

/// A TypeScript module of `count` small functions, one of them asserting non-null.
fn module(count: usize, changed: Option<usize>) -> String {
    let mut text = String::new();
    for i in 0..count {
        let body = if Some(i) == changed { "n * 3" } else { "n + 1" };
        let _ = writeln!(
            text,
            "export function f{i}(n: number): number {{\n  return {body};\n}}\n"
        );
    }
    text.push_str("export const last = (globalThis as { x?: number }).x!;\n");
    text
}

/// The held trees of the session's one analyzer, as its status reports them after its last run.
fn trees(session: &Session) -> TreeCacheStats {
    let status = session.status();
    let [analyzer] = status.hooks.analyzers.as_slice() else {
        panic!("one analyzer: {:?}", status.hooks.analyzers);
    };
    analyzer.trees.expect("the ast-grep analyzer holds trees")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_written_then_edited_is_analyzed_in_full_then_incrementally() {
    let repo = node_project();
    let root = ConfigRoot::builder()
        .builtin()
        .policy("node-project-verification.rhai", NODE_VERIFICATION)
        .build();
    let session = open(repo.path(), root.path());
    session.restore(&[]).await;
    let dir = repo.path().to_path_buf();

    let first = module(40, None);
    let patches = wave(
        &session,
        &[call("A", "write", json!({ "path": "src/big.ts" }))],
        || write(&dir, "src/big.ts", &first),
    )
    .await;
    assert!(patches[0].is_some(), "the non-null assertion is reported");
    let after_write = trees(&session);
    assert_eq!(
        (
            after_write.held_files,
            after_write.full_analyses,
            after_write.incremental_analyses,
            after_write.evictions,
        ),
        (1, 1, 0, 0)
    );
    assert_eq!(after_write.budget_bytes, DEFAULT_TREE_CACHE_BYTES);
    // The source, its tree (96 bytes a node) and the finding, within the budget.
    assert!(
        after_write.held_bytes > first.len() as u64
            && after_write.held_bytes < after_write.budget_bytes,
        "{after_write:?}"
    );

    let second = module(40, Some(20));
    wave(
        &session,
        &[call("B", "write", json!({ "path": "src/big.ts" }))],
        || write(&dir, "src/big.ts", &second),
    )
    .await;
    let after_edit = trees(&session);
    assert_eq!(
        (
            after_edit.held_files,
            after_edit.full_analyses,
            after_edit.incremental_analyses,
            after_edit.evictions,
        ),
        (1, 1, 1, 0),
        "the second version is re-analyzed from the first one's tree"
    );
    let paths = [(repo.path(), "[repo]"), (root.path(), "[root]")];
    assert_snapshot!(
        "held_trees_status",
        render_status(&session.status()),
        redact = &paths
    );
    session.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_budget_is_the_setting_and_reload_makes_an_analyzer_with_the_new_one() {
    let repo = node_project();
    let root = ConfigRoot::builder()
        .builtin()
        .file("settings.toml", "[analysis]\ntree_cache_bytes = 0\n")
        .build();
    let session = open(repo.path(), root.path());
    session.restore(&[]).await;
    let dir = repo.path().to_path_buf();
    for (id, version) in [("A", None), ("B", Some(3))] {
        let text = module(8, version);
        wave(
            &session,
            &[call(id, "write", json!({ "path": "src/small.ts" }))],
            || write(&dir, "src/small.ts", &text),
        )
        .await;
    }
    assert_eq!(session.status().hooks.settings.tree_cache_bytes, 0);
    let held_nothing = trees(&session);
    assert_eq!(
        (
            held_nothing.budget_bytes,
            held_nothing.held_files,
            held_nothing.held_bytes,
            held_nothing.full_analyses,
            held_nothing.incremental_analyses,
        ),
        (0, 0, 0, 2, 0),
        "a budget of 0 holds nothing: every version is analyzed in full"
    );

    root.write("settings.toml", "[analysis]\ntree_cache_bytes = 1048576\n");
    let reloaded = session.reload().await.expect("the reload runs");
    assert_eq!(reloaded.status().hooks.settings.tree_cache_bytes, 1 << 20);
    for (id, version) in [("C", Some(5)), ("D", Some(6))] {
        let text = module(8, version);
        wave(
            &reloaded,
            &[call(id, "write", json!({ "path": "src/small.ts" }))],
            || write(&dir, "src/small.ts", &text),
        )
        .await;
    }
    let held = trees(&reloaded);
    assert_eq!(
        (
            held.budget_bytes,
            held.held_files,
            held.full_analyses,
            held.incremental_analyses,
        ),
        (1 << 20, 1, 1, 1),
        "the reloaded analyzer starts empty and holds within the new budget"
    );
    reloaded.shutdown();
}

/// `count` functions, each returning `n <op> i`, `*` for those in `times`.
fn numbered(count: usize, times: &[usize]) -> String {
    let mut text = String::new();
    for i in 0..count {
        let op = if times.contains(&i) { '*' } else { '+' };
        let _ = writeln!(
            text,
            "export function f{i}(n: number): number {{\n  return n {op} {i};\n}}\n"
        );
    }
    text.push_str("export const last = (globalThis as { x?: number }).x!;\n");
    text
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_call_hands_its_replacement_to_the_analyzer() {
    let repo = node_project();
    let root = ConfigRoot::builder().builtin().build();
    let session = open(repo.path(), root.path());
    session.restore(&[]).await;
    let dir = repo.path().to_path_buf();
    let counts = |session: &Session| {
        let trees = trees(session);
        (trees.full_analyses, trees.incremental_analyses)
    };

    let first = numbered(40, &[]);
    wave(
        &session,
        &[call("A", "write", json!({ "path": "src/n.ts" }))],
        || write(&dir, "src/n.ts", &first),
    )
    .await;
    assert_eq!(counts(&session), (1, 0));

    // One small replacement: located by the hint, re-analyzed incrementally.
    let second = numbered(40, &[20]);
    wave(
        &session,
        &[call(
            "B",
            "edit",
            json!({ "path": "src/n.ts", "edits": [
                { "oldText": "return n + 20;", "newText": "return n * 20;" }
            ] }),
        )],
        || write(&dir, "src/n.ts", &second),
    )
    .await;
    assert_eq!(counts(&session), (1, 1));

    // A replacement spanning most of the file that changes one character, as models often send:
    // the hint is narrowed to the character it changes, so the file is still re-analyzed
    // incrementally rather than in full for an edit that looks like most of the file.
    let third = numbered(40, &[20, 25]);
    let span = |text: &str| {
        let start = text.find("export function f1(").expect("f1");
        let end = text.find("export function f35(").expect("f35");
        text[start..end].to_owned()
    };
    wave(
        &session,
        &[call(
            "C",
            "edit",
            json!({ "path": "src/n.ts", "edits": [
                { "oldText": span(&second), "newText": span(&third) }
            ] }),
        )],
        || write(&dir, "src/n.ts", &third),
    )
    .await;
    assert_eq!(counts(&session), (1, 2), "a wide hint is narrowed");

    // The same kind of replacement by two edit calls of one wave: no hint, the prefix and
    // suffix find the small edit.
    let fourth = numbered(40, &[20, 25, 30]);
    wave(
        &session,
        &[
            call(
                "D",
                "edit",
                json!({ "path": "src/n.ts", "edits": [
                    { "oldText": span(&third), "newText": span(&fourth) }
                ] }),
            ),
            call(
                "E",
                "edit",
                json!({ "path": "src/n.ts", "edits": [
                    { "oldText": "return n * 30;", "newText": "return n * 30;" }
                ] }),
            ),
        ],
        || write(&dir, "src/n.ts", &fourth),
    )
    .await;
    assert_eq!(
        counts(&session),
        (1, 3),
        "two calls on one file give no hint"
    );
    session.shutdown();
}

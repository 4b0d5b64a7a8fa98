//! The execution-wave coordinator driven by fake events in Pi 1.6's order, over an in-memory
//! workspace, a fake analyzer and fake policies, under tokio's paused clock (deterministic).

use crate::support::wave::{
    Fake, FakePolicies, Fate, Gate, Run, Step, appended, decision, run_batch,
};
use pi_native_hooks_wave::{
    CoordinatorFailure, ResultDecision, SnapshotScope, ToolCallInfo, ToolResult, WaveConfig,
    WaveEnd,
};
use pi_native_hooks_workspace::ChangeSet;
use serde_json::json;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

fn config() -> WaveConfig {
    WaveConfig::default()
}

fn abs(path: &str) -> PathBuf {
    PathBuf::from(crate::support::wave::ROOT).join(path)
}

#[tokio::test(start_paused = true)]
async fn parallel_siblings_in_reverse_completion_form_one_wave_with_one_scan_and_one_carrier() {
    let fake = Fake::new(config());
    let steps = vec![
        Step::write("A", &fake.fs, "a.ts", "const a = BAD;\n").delay_ms(300),
        Step::write("B", &fake.fs, "b.ts", "ok\nconst b = BAD;\n").delay_ms(200),
        Step::new("C", "read", json!({ "path": "a.ts" })).delay_ms(100),
    ];
    let outcomes = run_batch(&fake.coordinator, steps, Run::Parallel).await;
    let status = fake.settled().await;

    assert_eq!(status.recent.len(), 1, "one wave");
    let report = &status.recent[0];
    assert_eq!(report.calls, ["A", "B", "C"]);
    assert_eq!(report.end, WaveEnd::Complete);
    assert_eq!(
        report.scope,
        Some(SnapshotScope::Paths(vec![abs("a.ts"), abs("b.ts")]))
    );
    assert_eq!(
        fake.capture_count(),
        2,
        "one baseline, one post-wave snapshot"
    );
    assert_eq!(
        *fake.scans.lock().unwrap(),
        [(
            "fake:analyzer".to_owned(),
            vec!["a.ts".to_owned(), "b.ts".to_owned()]
        )]
    );
    assert_eq!(report.revision, 1);
    assert_eq!(
        report.carrier.as_deref(),
        Some("B"),
        "last mutating call in source order"
    );
    let block = appended(&outcomes, "B").expect("B carries the block");
    assert!(block.contains("The `write` call succeeded"), "{block}");
    assert!(
        block.contains("no-bad (warning): BAD is not allowed"),
        "{block}"
    );
    let listed = crate::support::wave::listed_locations(block, "no-bad");
    assert!(
        listed.iter().any(|l| l == "a.ts:1:11") && listed.iter().any(|l| l == "b.ts:2:11"),
        "{block}"
    );
    assert!(
        block.contains("// ast-grep-ignore: no-bad -- <reason>"),
        "{block}"
    );
    assert_eq!(decision(&outcomes, "A"), &ResultDecision::Unchanged);
    assert_eq!(decision(&outcomes, "C"), &ResultDecision::Unchanged);
    assert_eq!(report.delivered, 4, "two policies, two findings");
    assert_eq!(status.totals.scans, 1);
    assert_eq!(status.totals.coordinator_failures, 0);
}

#[tokio::test(start_paused = true)]
async fn blocked_and_invalid_siblings_are_terminal_without_a_result() {
    let fake = Fake::new(config());
    let steps = vec![
        Step::write("A", &fake.fs, "a.ts", "BAD\n"),
        Step::new("B", "write", json!({ "path": "b.ts" })).fate(Fate::Invalid),
        Step::new("C", "bash", json!({ "command": "rm -rf /" })).fate(Fate::Blocked),
    ];
    let outcomes = run_batch(&fake.coordinator, steps, Run::Parallel).await;
    let status = fake.settled().await;
    assert_eq!(outcomes.len(), 1, "only A has a tool_result");
    assert_eq!(status.recent.len(), 1);
    let report = &status.recent[0];
    assert_eq!(report.calls, ["A", "B", "C"]);
    assert_eq!(
        report.scope,
        Some(SnapshotScope::Full),
        "a bash sibling needs a full snapshot"
    );
    assert_eq!(report.carrier.as_deref(), Some("A"));
    assert!(appended(&outcomes, "A").is_some());
    assert_eq!(status.totals.coordinator_failures, 0);
}

#[tokio::test(start_paused = true)]
async fn sequential_batches_make_each_call_its_own_wave() {
    for run in [Run::Sequential, Run::HiddenSequential] {
        let fake = Fake::new(config());
        let steps = vec![
            Step::write("A", &fake.fs, "a.ts", "BAD a\n"),
            Step::write("B", &fake.fs, "b.ts", "BAD b\n"),
        ];
        let started = tokio::time::Instant::now();
        let outcomes = run_batch(&fake.coordinator, steps, run).await;
        let status = fake.settled().await;
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "{run:?}: no wait for a sibling"
        );
        let waves: Vec<_> = status.recent.iter().map(|r| r.calls.clone()).collect();
        assert_eq!(waves, [vec!["A"], vec!["B"]], "{run:?}");
        assert!(appended(&outcomes, "A").is_some_and(|t| t.contains("a.ts")));
        assert!(
            appended(&outcomes, "B").is_some_and(|t| t.contains("b.ts") && !t.contains("a.ts"))
        );
        assert_eq!(fake.scan_count(), 2);
        assert_eq!(status.totals.coordinator_failures, 0, "{run:?}");
        let scopes = fake.captures.lock().unwrap().clone();
        if run == Run::Sequential {
            assert_eq!(scopes[0], SnapshotScope::Paths(vec![abs("a.ts")]));
        }
        assert_eq!(scopes[3], SnapshotScope::Paths(vec![abs("b.ts")]));
    }
}

#[tokio::test(start_paused = true)]
async fn read_only_waves_take_no_snapshot_and_run_no_scan() {
    let fake = Fake::new(config());
    let steps = vec![
        Step::new("R", "read", json!({ "path": "a.ts" })),
        Step::new("G", "grep", json!({ "pattern": "x" })),
        Step::new(
            "W",
            "pi_hooks_waive_verification",
            json!({ "reason": "docs only" }),
        ),
    ];
    let outcomes = run_batch(&fake.coordinator, steps, Run::Parallel).await;
    let status = fake.settled().await;
    assert!(
        outcomes
            .iter()
            .all(|o| o.decision == ResultDecision::Unchanged)
    );
    assert_eq!((fake.capture_count(), fake.scan_count()), (0, 0));
    let report = &status.recent[0];
    assert!(!report.mutating);
    assert_eq!(report.changes, None);
    assert_eq!(status.revision, 0);
}

#[tokio::test(start_paused = true)]
async fn a_failed_call_is_compared_anyway_and_keeps_its_error() {
    let fake = Fake::new(config());
    let fs = Arc::clone(&fake.fs);
    let steps = vec![
        Step::new("X", "bash", json!({ "command": "gen && false" }))
            .fate(Fate::Error)
            .effect(move || fs.write("gen.ts", "export const g = BAD;\n")),
    ];
    let outcomes = run_batch(&fake.coordinator, steps, Run::Parallel).await;
    let outcome = &outcomes[0];
    let block = appended(&outcomes, "X").expect("the failed call carries the block");
    assert!(
        block.contains("The `bash` call's result above is unchanged"),
        "{block}"
    );
    assert!(!block.contains("succeeded"), "{block}");
    assert!(block.contains("gen.ts:1:18"), "{block}");
    // The front end appends the block to the failed result, whose error flag and exit code
    // stand.
    assert!(outcome.result.is_error, "still an error");
    assert_eq!(outcome.result.exit_code, Some(1));
    let status = fake.settled().await;
    assert_eq!(
        status.recent[0].changes,
        Some(ChangeSet::Paths(["gen.ts".to_owned()].into()))
    );
}

#[tokio::test(start_paused = true)]
async fn a_missing_terminal_event_releases_the_waiter_after_the_timeout() {
    let fake = Fake::new(config());
    let steps = vec![
        Step::write("A", &fake.fs, "a.ts", "BAD\n"),
        Step::new("B", "bash", json!({ "command": "sleep" })).fate(Fate::Silent),
    ];
    let started = tokio::time::Instant::now();
    let outcomes = run_batch(&fake.coordinator, steps, Run::Parallel).await;
    assert_eq!(
        started.elapsed(),
        Duration::from_secs(10) + Duration::from_millis(10)
    );
    assert_eq!(decision(&outcomes, "A"), &ResultDecision::Unchanged);
    let status = fake.coordinator.status();
    assert_eq!(
        status.failures.iter().collect::<Vec<_>>(),
        [&CoordinatorFailure::WaiterTimedOut {
            wave: 1,
            call: "A".into(),
            pending: vec!["B".into()],
            timeout_ms: 10_000,
        }]
    );
    assert!(status.recent.is_empty(), "the wave is still open");

    fake.coordinator.turn_end();
    let status = fake.settled().await;
    let report = &status.recent[0];
    assert_eq!(report.end, WaveEnd::EventsMissing);
    assert_eq!(report.carrier, None, "nobody is left to carry the block");
    assert_eq!(
        report.undelivered, 2,
        "kept new for the next analysis of a.ts"
    );
    assert!(matches!(
        &status.failures[1],
        CoordinatorFailure::EventsMissing { calls, at, .. } if calls == &["B"] && at == "turn_end"
    ));
}

#[tokio::test(start_paused = true)]
async fn waves_across_turns_stay_separate_and_a_stale_wave_is_closed_by_the_next_message() {
    let fake = Fake::new(config());
    fake.coordinator.turn_start(0);
    let first = {
        let coordinator = fake.coordinator.clone();
        let steps = vec![
            Step::write("A", &fake.fs, "a.ts", "BAD\n"),
            Step::new("B", "bash", json!({ "command": "x" })).fate(Fate::Silent),
        ];
        tokio::spawn(async move { run_batch(&coordinator, steps, Run::Parallel).await })
    };
    tokio::time::sleep(Duration::from_secs(1)).await;
    fake.coordinator.turn_start(1);
    let second = run_batch(
        &fake.coordinator,
        vec![Step::write("C", &fake.fs, "c.ts", "BAD c\n")],
        Run::Parallel,
    )
    .await;
    let first = first.await.unwrap();
    let late = fake
        .coordinator
        .tool_result(&ToolResult {
            call: ToolCallInfo::new("B", "bash", json!({})),
            is_error: false,
            exit_code: None,
        })
        .await;
    let status = fake.settled().await;

    let block = appended(&first, "A").expect("A carries its own wave's block");
    assert!(block.contains("a.ts") && !block.contains("c.ts"), "{block}");
    assert!(block.contains("1 wave coordination problem"), "{block}");
    let block = appended(&second, "C").expect("C carries its wave's block");
    assert!(block.contains("c.ts") && !block.contains("a.ts"), "{block}");
    assert_eq!(late, ResultDecision::Unchanged);
    let turns: Vec<_> = status
        .recent
        .iter()
        .map(|r| {
            (
                r.turn,
                r.calls.iter().map(ToString::to_string).collect::<Vec<_>>(),
                r.end,
            )
        })
        .collect();
    assert_eq!(
        turns,
        [
            (
                Some(0),
                vec!["A".to_owned(), "B".to_owned()],
                WaveEnd::EventsMissing
            ),
            (Some(1), vec!["C".to_owned()], WaveEnd::Complete),
        ]
    );
    assert_eq!(status.revision, 2);
    assert!(
        status
            .failures
            .iter()
            .any(|f| matches!(f, CoordinatorFailure::LateEvent { call, .. } if call == "B"))
    );
}

#[tokio::test(start_paused = true)]
async fn shutdown_releases_every_waiter_at_once() {
    let fake = Fake::new(config());
    let batch = {
        let coordinator = fake.coordinator.clone();
        let steps = vec![
            Step::write("A", &fake.fs, "a.ts", "BAD\n"),
            Step::write("B", &fake.fs, "b.ts", "BAD\n").delay_ms(5),
            Step::new("C", "bash", json!({ "command": "x" })).fate(Fate::Silent),
        ];
        tokio::spawn(async move { run_batch(&coordinator, steps, Run::Parallel).await })
    };
    tokio::time::sleep(Duration::from_secs(1)).await;
    let started = tokio::time::Instant::now();
    fake.coordinator.shutdown();
    let outcomes = batch.await.unwrap();
    assert_eq!(started.elapsed(), Duration::ZERO);
    assert!(
        outcomes
            .iter()
            .all(|o| o.decision == ResultDecision::Unchanged)
    );
    assert_eq!(outcomes.len(), 2);
    // Later events are ignored.
    fake.coordinator.tool_execution_start(ToolCallInfo::new(
        "D",
        "write",
        json!({ "path": "d.ts" }),
    ));
    fake.coordinator
        .tool_call(ToolCallInfo::new("D", "write", json!({ "path": "d.ts" })))
        .await;
    let status = fake.settled().await;
    assert_eq!(
        status.recent.iter().map(|r| r.end).collect::<Vec<_>>(),
        [WaveEnd::Shutdown]
    );
    assert_eq!(fake.scan_count(), 0);
}

#[tokio::test(start_paused = true)]
async fn an_unchanged_finding_is_never_repeated_and_a_fixed_one_is_forgotten() {
    let fake = Fake::new(config());
    let first = run_batch(
        &fake.coordinator,
        vec![Step::write("1", &fake.fs, "a.ts", "BAD\n")],
        Run::Parallel,
    )
    .await;
    assert!(appended(&first, "1").is_some());

    // Unrelated waves: a non-TS file, then another TS file.
    let second = run_batch(
        &fake.coordinator,
        vec![Step::write("2", &fake.fs, "notes.md", "BAD\n")],
        Run::Parallel,
    )
    .await;
    assert_eq!(decision(&second, "2"), &ResultDecision::Unchanged);
    let third = run_batch(
        &fake.coordinator,
        vec![Step::write("3", &fake.fs, "b.ts", "fine\n")],
        Run::Parallel,
    )
    .await;
    assert_eq!(decision(&third, "3"), &ResultDecision::Unchanged);

    // The same finding after an edit elsewhere in the file: not repeated.
    let fourth = run_batch(
        &fake.coordinator,
        vec![Step::write("4", &fake.fs, "a.ts", "BAD\nmore\n")],
        Run::Parallel,
    )
    .await;
    assert_eq!(decision(&fourth, "4"), &ResultDecision::Unchanged);

    // Fixed: forgotten; reintroduced: new again.
    let fifth = run_batch(
        &fake.coordinator,
        vec![Step::write("5", &fake.fs, "a.ts", "more\n")],
        Run::Parallel,
    )
    .await;
    assert_eq!(decision(&fifth, "5"), &ResultDecision::Unchanged);
    let sixth = run_batch(
        &fake.coordinator,
        vec![Step::write("6", &fake.fs, "a.ts", "BAD\n")],
        Run::Parallel,
    )
    .await;
    assert!(appended(&sixth, "6").is_some());

    let status = fake.settled().await;
    let counts: Vec<_> = status
        .recent
        .iter()
        .map(|r| (r.scans.len(), r.delivered, r.known, r.resolved))
        .collect();
    assert_eq!(
        counts,
        [
            (1, 2, 0, 0),
            (0, 0, 0, 0),
            (1, 0, 0, 0),
            (1, 0, 2, 0),
            (1, 0, 0, 2),
            (1, 2, 0, 0)
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn a_failing_policy_adds_a_warning_and_resolves_nothing() {
    let mut policies = FakePolicies::new(&["good", "broken"]);
    policies.failing.insert("broken".into());
    let fake = Fake::with(config(), policies, true, None);
    let outcomes = run_batch(
        &fake.coordinator,
        vec![Step::write("A", &fake.fs, "a.ts", "BAD\n")],
        Run::Parallel,
    )
    .await;
    let block = appended(&outcomes, "A").expect("block");
    assert!(block.contains("Remove BAD (good)."), "{block}");
    assert!(
        block.contains("Warning: this check is incomplete (1 policy failed)"),
        "{block}"
    );

    // A clean file with the policy still failing: the warning alone, never a clean claim.
    let outcomes = run_batch(
        &fake.coordinator,
        vec![Step::write("B", &fake.fs, "b.ts", "fine\n")],
        Run::Parallel,
    )
    .await;
    let block = appended(&outcomes, "B").expect("warning block");
    assert_eq!(block.lines().count(), 2, "{block}");
    let status = fake.settled().await;
    assert_eq!(status.recent[1].policy_failures.len(), 1);
}

#[tokio::test]
async fn a_baseline_that_is_not_ready_in_time_makes_the_changes_unknown() {
    let gate = Arc::new(Gate::default());
    let config = WaveConfig {
        timeout: Duration::from_millis(200),
        ..WaveConfig::default()
    };
    let fake = Fake::with(
        config,
        FakePolicies::new(&["p1"]),
        true,
        Some(Arc::clone(&gate)),
    );
    let write = ToolCallInfo::new("A", "write", json!({ "path": "a.ts" }));
    fake.coordinator
        .assistant_message(pi_native_hooks_wave::AssistantMessage {
            calls: vec![write.clone()],
            mode: pi_native_hooks_wave::ExecutionMode::Parallel,
        });
    fake.coordinator.tool_execution_start(write.clone());
    fake.coordinator.tool_call(write.clone()).await; // returns after the timeout
    gate.open();
    fake.fs.write("a.ts", "BAD\n");
    let decision = fake
        .coordinator
        .tool_result(&ToolResult {
            call: ToolCallInfo::new("A", "write", json!({ "path": "a.ts" })),
            is_error: false,
            exit_code: None,
        })
        .await;
    let status = fake.settled().await;
    let report = &status.recent[0];
    assert!(
        matches!(&report.changes, Some(ChangeSet::Unknown { .. })),
        "{report:?}"
    );
    assert!(matches!(
        &report.failures[0],
        CoordinatorFailure::Baseline { .. }
    ));
    let ResultDecision::Append(block) = decision else {
        panic!("the explicit target is still analyzed")
    };
    assert!(
        block.contains("a.ts:1:1") && block.contains("1 wave coordination problem"),
        "{block}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_gives_up_at_the_timeout_on_a_wave_whose_analysis_blocks_and_records_why() {
    let gate = Arc::new(Gate::default());
    let config = WaveConfig {
        timeout: Duration::from_millis(200),
        ..WaveConfig::default()
    };
    let fake = Fake::blocking_analysis(config, &gate);
    let outcomes = run_batch(
        &fake.coordinator,
        vec![Step::write("A", &fake.fs, "a.ts", "const a = BAD;\n")],
        Run::Parallel,
    )
    .await;
    assert_eq!(
        decision(&outcomes, "A"),
        &ResultDecision::Unchanged,
        "the handler was released at the timeout"
    );

    let busy = fake
        .coordinator
        .idle()
        .await
        .expect_err("the analysis blocks");
    assert_eq!((busy.busy, busy.timeout_ms), (1, 200));
    let status = fake.coordinator.status();
    assert_eq!(
        status.failures.back(),
        Some(&CoordinatorFailure::IdleTimedOut {
            busy: 1,
            timeout_ms: 200
        })
    );
    assert!(
        status.recent.is_empty(),
        "the wave is still being processed"
    );
    assert!(fake.coordinator.take_finished().is_empty());

    // Once the read returns, the wave finishes and is handed over as usual.
    gate.open();
    fake.coordinator
        .idle()
        .await
        .expect("nothing blocks any more");
    let finished = fake.coordinator.take_finished();
    assert_eq!(finished.len(), 1);
    assert_eq!(finished[0].report.calls, ["A"]);
}

#[tokio::test(start_paused = true)]
async fn outside_git_bash_has_no_safe_path_set_but_explicit_targets_are_analyzed() {
    let fake = Fake::with(config(), FakePolicies::new(&["p1"]), false, None);
    let fs = Arc::clone(&fake.fs);
    let steps = vec![
        Step::write("A", &fake.fs, "a.ts", "BAD\n"),
        Step::new("B", "bash", json!({ "command": "touch x.ts" }))
            .effect(move || fs.write("x.ts", "BAD\n")),
    ];
    let outcomes = run_batch(&fake.coordinator, steps, Run::Parallel).await;
    let status = fake.settled().await;
    let report = &status.recent[0];
    assert_eq!(fake.capture_count(), 0);
    assert!(
        matches!(&report.changes, Some(ChangeSet::Unknown { reason }) if reason.contains("`bash`"))
    );
    assert_eq!(
        *fake.scans.lock().unwrap(),
        [("fake:analyzer".to_owned(), vec!["a.ts".to_owned()])]
    );
    assert!(appended(&outcomes, "B").is_some_and(|t| t.contains("a.ts")));
    assert_eq!(status.revision, 1);
}

#[tokio::test(start_paused = true)]
async fn a_repeated_result_is_answered_unchanged_and_reported() {
    let fake = Fake::new(config());
    let outcomes = run_batch(
        &fake.coordinator,
        vec![Step::write("A", &fake.fs, "a.ts", "BAD\n")],
        Run::Parallel,
    )
    .await;
    let again = fake.coordinator.tool_result(&outcomes[0].result).await;
    assert_eq!(again, ResultDecision::Unchanged);
    let status = fake.settled().await;
    assert!(
        matches!(&status.failures[0], CoordinatorFailure::DuplicateEvent { call, event } if call == "A" && event.as_str() == "tool_result")
    );
    assert_eq!(status.recent.len(), 1);
}

#[test]
fn the_handler_futures_are_send() {
    fn send<T: Send>(_: &T) {}
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let _guard = runtime.enter();
    let fake = Fake::new(config());
    let event = ToolResult {
        call: ToolCallInfo::new("A", "write", json!({})),
        is_error: false,
        exit_code: None,
    };
    send(&fake.coordinator.tool_result(&event));
    send(
        &fake
            .coordinator
            .tool_call(ToolCallInfo::new("A", "write", json!({}))),
    );
    send(&fake.coordinator.idle());
}

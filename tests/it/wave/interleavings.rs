//! Property test of the wave coordinator over random batches of random calls (read-only, own,
//! write/edit with and without paths, bash, unknown tools; ok, failed, blocked, invalid or
//! silent), in parallel, sequential and sequential-announced-as-parallel order, with random
//! execution times, random turn ends and random shutdowns — all under tokio's paused clock.
//!
//! Asserted for every case: nothing deadlocks; every `tool_result` handler returns; every
//! analyzer key runs at most once per wave; every wave with a delivered block has exactly one
//! carrier and only carriers get a block; a block states its result's own `isError` (the
//! decision carries no flag, and the front end's patch passes `isError` and `structuredContent`
//! through); and in scenarios without lost events or shutdown, no coordinator failure happens and
//! no new diagnostic is left without a carrier.

use crate::support::wave::{Fake, FakePolicies, Fate, Outcome, Run, Step, run_batch};
use pi_native_hooks_delivery::RenderLimits;
use pi_native_hooks_wave::{ResultDecision, WaveConfig};
use pi_native_hooks_workspace::ChangeSet;
use proptest::prelude::*;
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

const FILES: [&str; 5] = ["f0.ts", "f1.ts", "f2.ts", "f3.ts", "notes.md"];

#[derive(Clone, Debug)]
enum Tool {
    Read,
    Own,
    Write { file: usize, bad: bool },
    Edit { file: usize, bad: bool },
    WriteWithoutPath,
    Bash { file: usize, bad: bool },
    Unknown { file: usize, bad: bool },
}

#[derive(Clone, Debug)]
struct CallSpec {
    tool: Tool,
    fate: Fate,
    delay_ms: u64,
}

#[derive(Clone, Debug)]
struct BatchSpec {
    calls: Vec<CallSpec>,
    run: Run,
    turn_end: bool,
}

#[derive(Clone, Debug)]
struct Scenario {
    git: bool,
    batches: Vec<BatchSpec>,
    shutdown_at_ms: Option<u64>,
}

fn tool() -> impl Strategy<Value = Tool> {
    let file = 0..FILES.len();
    prop_oneof![
        1 => Just(Tool::Read),
        1 => Just(Tool::Own),
        4 => (file.clone(), any::<bool>()).prop_map(|(file, bad)| Tool::Write { file, bad }),
        2 => (file.clone(), any::<bool>()).prop_map(|(file, bad)| Tool::Edit { file, bad }),
        1 => Just(Tool::WriteWithoutPath),
        2 => (file.clone(), any::<bool>()).prop_map(|(file, bad)| Tool::Bash { file, bad }),
        1 => (file, any::<bool>()).prop_map(|(file, bad)| Tool::Unknown { file, bad }),
    ]
}

fn fate() -> impl Strategy<Value = Fate> {
    prop_oneof![
        10 => Just(Fate::Ok),
        3 => Just(Fate::Error),
        2 => Just(Fate::Blocked),
        2 => Just(Fate::Invalid),
        1 => Just(Fate::Silent),
    ]
}

fn batch() -> impl Strategy<Value = BatchSpec> {
    let call = (tool(), fate(), 0..400_u64).prop_map(|(tool, fate, delay_ms)| CallSpec {
        tool,
        fate,
        delay_ms,
    });
    let run = prop_oneof![
        6 => Just(Run::Parallel),
        2 => Just(Run::Sequential),
        1 => Just(Run::HiddenSequential),
    ];
    (prop::collection::vec(call, 1..6), run, any::<bool>()).prop_map(|(calls, run, turn_end)| {
        BatchSpec {
            calls,
            run,
            turn_end,
        }
    })
}

fn scenario() -> impl Strategy<Value = Scenario> {
    (
        prop::bool::weighted(0.8),
        prop::collection::vec(batch(), 1..5),
        prop::option::weighted(0.1, 0..3_000_u64),
    )
        .prop_map(|(git, batches, shutdown_at_ms)| Scenario {
            git,
            batches,
            shutdown_at_ms,
        })
}

fn steps(fake: &Fake, batch: usize, spec: &BatchSpec) -> Vec<Step> {
    spec.calls
        .iter()
        .enumerate()
        .map(|(index, call)| {
            let id = format!("b{batch}c{index}");
            let text = |bad: bool| format!("// {id}\n{}\n", if bad { "BAD" } else { "fine" });
            let fs = Arc::clone(&fake.fs);
            let step = match &call.tool {
                Tool::Read => Step::new(&id, "read", json!({ "path": "f0.ts" })),
                Tool::Own => Step::new(&id, "pi_hooks_waive_verification", json!({})),
                Tool::Write { file, bad } => Step::write(&id, &fake.fs, FILES[*file], &text(*bad)),
                Tool::Edit { file, bad } => {
                    let (path, content) = (FILES[*file], text(*bad));
                    Step::new(&id, "edit", json!({ "path": path }))
                        .effect(move || fs.write(path, &content))
                }
                Tool::WriteWithoutPath => Step::new(&id, "write", json!({ "content": "x" })),
                Tool::Bash { file, bad } | Tool::Unknown { file, bad } => {
                    let name = if matches!(call.tool, Tool::Bash { .. }) {
                        "bash"
                    } else {
                        "deploy"
                    };
                    let (path, content) = (FILES[*file], text(*bad));
                    Step::new(&id, name, json!({ "command": "x" }))
                        .effect(move || fs.write(path, &content))
                }
            };
            step.fate(call.fate).delay_ms(call.delay_ms)
        })
        .collect()
}

fn check(scenario: &Scenario) -> Result<(), TestCaseError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let config = WaveConfig {
            history: 10_000,
            render: RenderLimits {
                max_tokens: 100_000,
                ..RenderLimits::default()
            },
            ..WaveConfig::default()
        };
        let fake = Fake::with(config, FakePolicies::new(&["p1", "p2"]), scenario.git, None);
        let shutdown = scenario.shutdown_at_ms.map(|ms| {
            let coordinator = fake.coordinator.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(ms)).await;
                coordinator.shutdown();
            })
        });
        let drive = async {
            let mut outcomes: Vec<Outcome> = Vec::new();
            for (index, spec) in scenario.batches.iter().enumerate() {
                fake.coordinator.turn_start(index as u64);
                outcomes.extend(
                    run_batch(&fake.coordinator, steps(&fake, index, spec), spec.run).await,
                );
                if spec.turn_end {
                    fake.coordinator.turn_end();
                }
            }
            fake.coordinator.turn_end();
            outcomes
        };
        let outcomes = tokio::time::timeout(Duration::from_secs(3_600), drive)
            .await
            .map_err(|_| TestCaseError::fail("deadlock: the event driver never finished"))?;
        let status = tokio::time::timeout(Duration::from_secs(3_600), fake.settled())
            .await
            .map_err(|_| TestCaseError::fail("deadlock: background work never finished"))?;
        if let Some(task) = shutdown {
            task.abort();
        }

        // Results are never flipped and only ever get one appended text block. The decision
        // cannot carry an error flag (the front end passes the result's own through,
        // `bindings/test/patch.test.mjs`), so what could flip it is the block's text: it must
        // state the result's own status, never call a failed call a success or the reverse.
        for outcome in &outcomes {
            let ResultDecision::Append(text) = &outcome.decision else {
                continue;
            };
            let tool = &outcome.result.call.name;
            let status = if outcome.result.is_error {
                format!("[pi-native-hooks] The `{tool}` call's result above is unchanged.")
            } else {
                format!(
                    "[pi-native-hooks] The `{tool}` call succeeded; its result above is unchanged."
                )
            };
            let header = text.lines().next().unwrap_or_default();
            prop_assert!(
                header.starts_with(&status),
                "the block of a result with isError {} begins {:?}",
                outcome.result.is_error,
                header
            );
        }

        // At most one run per analyzer key per wave, and every scan belongs to a wave.
        let scans = fake.scans.lock().expect("scans").clone();
        let mut per_key: BTreeMap<String, usize> = BTreeMap::new();
        for report in &status.recent {
            let keys: BTreeSet<&str> = report.scans.iter().map(|s| s.analyzer.as_str()).collect();
            prop_assert_eq!(
                keys.len(),
                report.scans.len(),
                "wave {} ran a key twice",
                report.wave
            );
            for scan in &report.scans {
                *per_key.entry(scan.analyzer.to_string()).or_default() += 1;
            }
            if !report.mutating {
                prop_assert!(report.scans.is_empty() && report.snapshots == 0);
            }
        }
        let mut scanned: BTreeMap<String, usize> = BTreeMap::new();
        for (key, _) in &scans {
            *scanned.entry(key.clone()).or_default() += 1;
        }
        prop_assert_eq!(scanned, per_key);

        // Exactly one carrier per wave with a block; only carriers get one.
        let appended: BTreeSet<&str> = outcomes
            .iter()
            .filter(|o| matches!(o.decision, ResultDecision::Append(_)))
            .map(|o| o.result.call.id.as_str())
            .collect();
        let carriers: Vec<&str> = status
            .recent
            .iter()
            .filter_map(|r| r.carrier.as_deref())
            .collect();
        prop_assert_eq!(carriers.len(), appended.len());
        prop_assert_eq!(carriers.iter().copied().collect::<BTreeSet<_>>(), appended);
        for report in &status.recent {
            if report.delivered > 0 {
                prop_assert!(report.carrier.is_some());
            }
            if let Some(carrier) = &report.carrier {
                prop_assert!(report.calls.contains(carrier));
            }
        }

        // The revision advanced once per wave that changed (or may have changed) files.
        let advancing = status
            .recent
            .iter()
            .filter(|r| match &r.changes {
                Some(ChangeSet::Paths(paths)) => !paths.is_empty(),
                Some(ChangeSet::Unknown { .. }) => true,
                None => false,
            })
            .count() as u64;
        prop_assert_eq!(status.revision, advancing);

        // Without lost events or a shutdown nothing fails and nothing new goes undelivered.
        let clean = scenario.shutdown_at_ms.is_none()
            && scenario
                .batches
                .iter()
                .all(|b| b.calls.iter().all(|c| c.fate != Fate::Silent));
        if clean {
            prop_assert_eq!(
                status.totals.coordinator_failures,
                0,
                "{:?}",
                status.failures
            );
            for report in &status.recent {
                prop_assert_eq!(report.undelivered, 0, "wave {}", report.wave);
            }
        }
        Ok(())
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3_000, ..ProptestConfig::default() })]

    #[test]
    fn random_interleavings_never_deadlock_and_keep_every_invariant(scenario in scenario()) {
        check(&scenario)?;
    }
}

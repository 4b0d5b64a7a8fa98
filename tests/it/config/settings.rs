//! The settings file, `settings.toml`: every key, the defaults, unknown keys with did-you-mean,
//! wrong types and out-of-bounds values (each naming file, line and key, each bad key keeping its
//! default), the trust checks, and what a session, `doctor` and the gate make of it.

use crate::support::gate::{Session as GateSession, success, write_call};
use crate::support::snapshot::assert_snapshot;
use crate::support::{ConfigRoot, TestRepo};
use pi_native_hooks_analysis::{DEFAULT_TREE_CACHE_BYTES, MAX_TREE_CACHE_BYTES};
use pi_native_hooks_config::settings::{
    BlockLimits, DEFAULT_BLOCK_MAX_TOKENS, ExitCodeSource, KeyFault, LoadedSettings, ResultField,
    ResultPart, Settings, SettingsOrigin, SettingsProblem, load_settings_at,
};
use pi_native_hooks_config::trust::TrustError;
use pi_native_hooks_delivery::RenderLimits;
use pi_native_hooks_doctor::root_report;
use pi_native_hooks_session::{Session, SessionOptions, footer};
use pi_native_hooks_verification::{
    CallOutcome, DEFAULT_CONTINUATION_CAP, GateConfig, ObservedCall, RequirementState,
    VerificationGate,
};
use pi_native_hooks_wave::WaveConfig;
use std::collections::BTreeSet;
use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::time::Duration;

/// The settings of a root holding `settings.toml` with `text`, and the root.
fn load(text: &str) -> (LoadedSettings, ConfigRoot) {
    let root = ConfigRoot::builder().file("settings.toml", text).build();
    let loaded = load_settings_at(root.path()).expect("the root exists");
    (loaded, root)
}

/// The problems as `(line, key, fault)`; panics on a file-wide problem.
fn key_problems(loaded: &LoadedSettings) -> Vec<(usize, String, KeyFault)> {
    loaded
        .problems
        .iter()
        .map(|problem| match problem {
            SettingsProblem::Key {
                line, key, fault, ..
            } => (*line, key.clone(), fault.clone()),
            other => panic!("a file-wide problem: {other}"),
        })
        .collect()
}

const EVERY_KEY: &str = r#"# every setting
[verification]
continuation_cap = 3

[waves]
timeout_ms = 2_500

[diagnostic_block]
max_tokens = 1_200
max_line_chars = 0x78

[analysis]
tree_cache_bytes = 0

[tools]
read_only = ["search_docs", "mcp__github__get_issue"]

[[tools.shell]]
name = "run_checks"
exit_code_field = "details.exit.code"

[[tools.shell]]
name = "bash"
exit_code_pattern = 'Command exited with code (\d+)'
"#;

#[test]
fn every_key_is_read() {
    let (loaded, root) = load(EVERY_KEY);
    assert_eq!(loaded.problems, []);
    assert_eq!(
        loaded.origin,
        SettingsOrigin::File(root.path().join("settings.toml"))
    );
    let settings = &loaded.settings;
    assert_eq!(settings.continuation_cap, 3);
    assert_eq!(settings.wave_timeout, Duration::from_millis(2_500));
    assert_eq!(
        settings.diagnostic_block,
        BlockLimits {
            max_tokens: 1_200,
            max_line_chars: 120
        }
    );
    assert_eq!(settings.tree_cache_bytes, 0, "0 holds no tree");
    assert_eq!(
        settings.read_only_tools,
        BTreeSet::from([
            "search_docs".to_owned(),
            "mcp__github__get_issue".to_owned()
        ])
    );
    assert_eq!(
        settings.exit_code_source("run_checks"),
        Some(ExitCodeSource::Field(ResultField {
            part: ResultPart::Details,
            path: vec!["exit".to_owned(), "code".to_owned()],
        }))
    );
    let Some(ExitCodeSource::Pattern(pattern)) = settings.exit_code_source("bash") else {
        panic!("bash is redeclared with a pattern");
    };
    assert_eq!(
        pattern.exit_code("verify: failing\n\nCommand exited with code 1"),
        Some(1)
    );
    assert_eq!(
        settings.shell_tool_names(),
        BTreeSet::from(["bash".to_owned(), "run_checks".to_owned()])
    );
}

#[test]
fn defaults_match_the_engine_and_an_absent_file_gives_them() {
    let defaults = Settings::default();
    assert_eq!(defaults.continuation_cap, DEFAULT_CONTINUATION_CAP);
    assert_eq!(defaults.wave_timeout, WaveConfig::default().timeout);
    let render = RenderLimits::default();
    assert_eq!(
        (
            defaults.diagnostic_block.max_tokens,
            defaults.diagnostic_block.max_line_chars
        ),
        (render.max_tokens, render.max_line_chars)
    );
    assert_eq!(defaults.tree_cache_bytes, DEFAULT_TREE_CACHE_BYTES);
    let root = ConfigRoot::builder().build();
    let loaded = load_settings_at(root.path()).expect("the root exists");
    assert_eq!(
        loaded,
        LoadedSettings {
            origin: SettingsOrigin::Absent(root.path().join("settings.toml")),
            settings: defaults,
            problems: Vec::new(),
        }
    );
    assert_eq!(
        load_settings_at(&root.path().join("missing")),
        None,
        "no root, no settings"
    );
}

#[test]
fn unknown_keys_are_named_with_their_line_and_a_suggestion() {
    let (loaded, _root) = load(
        "[verification]\ncontinuation_cap = 4\ncontination_cap = 5\n\ncontinuation_cap = 6\n[tool]\nread_only = []\n",
    );
    // The second `continuation_cap` belongs to `[verification]` (a TOML key after a header is in
    // that table), so it is a duplicate key: a syntax error. Test each unknown key on its own.
    assert!(matches!(
        loaded.problems.as_slice(),
        [SettingsProblem::Syntax { line: 5, .. }]
    ));

    let (loaded, _root) = load("[verification]\ncontinuation_cap = 4\ncontination_cap = 5\n");
    assert_eq!(loaded.settings.continuation_cap, 4, "the known key applies");
    let problems = key_problems(&loaded);
    assert_eq!(problems.len(), 1);
    let (line, key, fault) = &problems[0];
    assert_eq!((*line, key.as_str()), (3, "verification.contination_cap"));
    assert_eq!(
        fault,
        &KeyFault::Unknown {
            suggestion: Some("verification.continuation_cap".to_owned()),
            known: vec!["`verification.continuation_cap`".to_owned()],
        }
    );

    let (loaded, root) = load("continuation_cap = 4\n\n[tool]\nread_only = [\"x\"]\n");
    let text: Vec<String> = loaded.problems.iter().map(ToString::to_string).collect();
    let file = root.path().join("settings.toml");
    assert_eq!(
        text,
        [
            format!(
                "{}:1: `continuation_cap` is not a setting: did you mean `[verification] continuation_cap`? The settings here are `verification`, `waves`, `diagnostic_block`, `analysis`, `tools`, `typescript`",
                file.display()
            ),
            format!(
                "{}:3: `tool` is not a setting: did you mean `tools`? The settings here are `verification`, `waves`, `diagnostic_block`, `analysis`, `tools`, `typescript`",
                file.display()
            ),
        ]
    );
    assert_eq!(loaded.settings, Settings::default());
    assert!(
        loaded.settings.read_only_tools.is_empty(),
        "nothing under an unknown table applies"
    );
}

#[test]
fn the_replaced_line_cap_points_to_the_token_budget_and_keeps_no_value() {
    let (loaded, root) = load("[diagnostic_block]\nmax_lines = 12\nmax_line_chars = 120\n");
    let text: Vec<String> = loaded.problems.iter().map(ToString::to_string).collect();
    assert_eq!(
        text,
        [format!(
            "{}:2: `diagnostic_block.max_lines` is not a setting: did you mean `diagnostic_block.max_tokens`? The settings here are `diagnostic_block.max_tokens`, `diagnostic_block.max_line_chars`",
            root.path().join("settings.toml").display()
        )]
    );
    assert_eq!(
        loaded.settings.diagnostic_block,
        BlockLimits {
            max_tokens: DEFAULT_BLOCK_MAX_TOKENS,
            max_line_chars: 120
        },
        "a line count is not carried over as a token budget"
    );
}

#[test]
fn a_wrong_type_keeps_that_default_and_names_the_key() {
    let (loaded, _root) = load(
        "[waves]\ntimeout_ms = \"10s\"\n[verification]\ncontinuation_cap = 5\n[diagnostic_block]\nmax_tokens = 1.5\n[tools]\nread_only = \"search\"\n",
    );
    assert_eq!(
        key_problems(&loaded),
        [
            (
                2,
                "waves.timeout_ms".to_owned(),
                KeyFault::Type {
                    expected: "an integer",
                    found: "string"
                }
            ),
            (
                6,
                "diagnostic_block.max_tokens".to_owned(),
                KeyFault::Type {
                    expected: "an integer",
                    found: "float"
                }
            ),
            (
                8,
                "tools.read_only".to_owned(),
                KeyFault::Type {
                    expected: "an array of tool names",
                    found: "string"
                }
            ),
        ]
    );
    let expected = Settings {
        continuation_cap: 5,
        ..Settings::default()
    };
    assert_eq!(loaded.settings, expected, "only the good key applies");

    let (loaded, _root) = load("waves = 3\n");
    assert_eq!(
        key_problems(&loaded),
        [(
            1,
            "waves".to_owned(),
            KeyFault::Type {
                expected: "a table",
                found: "integer"
            }
        )]
    );
}

#[test]
fn out_of_bounds_values_are_refused_by_name() {
    let (loaded, root) = load(
        "[verification]\ncontinuation_cap = 0\n[waves]\ntimeout_ms = 99999999999999999999\n[diagnostic_block]\nmax_tokens = 99\nmax_line_chars = 1_000_000\n",
    );
    let range = |value: &str, min, max| KeyFault::Range {
        value: value.to_owned(),
        min,
        max,
    };
    assert_eq!(
        key_problems(&loaded),
        [
            (
                2,
                "verification.continuation_cap".to_owned(),
                range("0", 1, 100)
            ),
            (
                4,
                "waves.timeout_ms".to_owned(),
                range("99999999999999999999", 100, 600_000)
            ),
            (
                6,
                "diagnostic_block.max_tokens".to_owned(),
                range("99", 100, 100_000)
            ),
            (
                7,
                "diagnostic_block.max_line_chars".to_owned(),
                range("1000000", 40, 10_000)
            ),
        ]
    );
    assert_eq!(loaded.settings, Settings::default());
    assert_eq!(
        loaded.problems[0].to_string(),
        format!(
            "{}:2: `verification.continuation_cap` = 0 is outside 1..=100 (it keeps its default)",
            root.path().join("settings.toml").display()
        )
    );
}

#[test]
fn the_held_tree_budget_is_bounded_and_named_when_misspelt() {
    let (loaded, _root) = load("[analysis]\ntree_cache_bytes = 1_073_741_824\n");
    assert_eq!(loaded.problems, []);
    assert_eq!(
        loaded.settings.tree_cache_bytes, MAX_TREE_CACHE_BYTES,
        "the analyzer's limit is the setting's upper bound"
    );

    let (loaded, root) = load("[analysis]\ntree_cache_bytes = 1_073_741_825\n");
    assert_eq!(
        key_problems(&loaded),
        [(
            2,
            "analysis.tree_cache_bytes".to_owned(),
            KeyFault::Range {
                value: "1073741825".to_owned(),
                min: 0,
                max: 1_073_741_824,
            }
        )]
    );
    assert_eq!(loaded.settings.tree_cache_bytes, DEFAULT_TREE_CACHE_BYTES);
    assert_eq!(
        loaded.problems[0].to_string(),
        format!(
            "{}:2: `analysis.tree_cache_bytes` = 1073741825 is outside 0..=1073741824 (it keeps its default)",
            root.path().join("settings.toml").display()
        )
    );

    let (loaded, _root) = load("[analysis]\ntree_cache_bytes = -1\n");
    assert!(matches!(
        key_problems(&loaded).as_slice(),
        [(2, key, KeyFault::Range { min: 0, .. })] if key == "analysis.tree_cache_bytes"
    ));
    assert_eq!(loaded.settings.tree_cache_bytes, DEFAULT_TREE_CACHE_BYTES);

    let (loaded, _root) = load("[analysis]\ntree_cache_bytes = \"64 MiB\"\n");
    assert!(matches!(
        key_problems(&loaded).as_slice(),
        [(2, key, KeyFault::Type { expected: "an integer", .. })] if key == "analysis.tree_cache_bytes"
    ));

    let (loaded, _root) = load("[analysis]\ntree_cache_byte = 0\n");
    assert_eq!(
        key_problems(&loaded),
        [(
            2,
            "analysis.tree_cache_byte".to_owned(),
            KeyFault::Unknown {
                suggestion: Some("analysis.tree_cache_bytes".to_owned()),
                known: vec!["`analysis.tree_cache_bytes`".to_owned()],
            }
        )]
    );
    assert_eq!(loaded.settings.tree_cache_bytes, DEFAULT_TREE_CACHE_BYTES);

    let (loaded, _root) = load("tree_cache_bytes = 0\n");
    assert!(matches!(
        key_problems(&loaded).as_slice(),
        [(1, key, KeyFault::Unknown { suggestion: Some(suggestion), .. })]
            if key == "tree_cache_bytes" && suggestion == "[analysis] tree_cache_bytes"
    ));
    assert_eq!(loaded.settings.tree_cache_bytes, DEFAULT_TREE_CACHE_BYTES);
}

#[test]
fn a_syntax_error_keeps_every_default() {
    let (loaded, _root) = load("[verification]\ncontinuation_cap = 3\n[waves\n");
    assert_eq!(loaded.settings, Settings::default());
    match loaded.problems.as_slice() {
        [SettingsProblem::Syntax { line, .. }] => assert_eq!(*line, 3),
        other => panic!("expected one syntax error, got {other:?}"),
    }
}

#[test]
fn tool_declarations_that_would_weaken_the_gate_or_cannot_be_read_are_dropped() {
    let (loaded, _root) = load(
        r#"[tools]
read_only = ["search", "bash", "write", "has space", 3, "run"]

[[tools.shell]]
name = "run"
exit_code_field = "structuredContent.exit_code"

[[tools.shell]]
name = "run"
exit_code_field = "details.code"

[[tools.shell]]
name = "edit"
exit_code_field = "details.code"

[[tools.shell]]
name = "no_code"

[[tools.shell]]
name = "both"
exit_code_field = "details.code"
exit_code_pattern = '(\d+)'

[[tools.shell]]
name = "bad_field"
exit_code_field = "content.0.text"

[[tools.shell]]
name = "bad_pattern"
exit_code_pattern = 'exit \d+'

[[tools.shell]]
exit_code_field = "details.code"
"#,
    );
    let keys: Vec<(usize, String)> = key_problems(&loaded)
        .into_iter()
        .map(|(line, key, _)| (line, key))
        .collect();
    assert_eq!(
        keys,
        [
            (9, "tools.shell[1].name".to_owned()),
            (13, "tools.shell[2].name".to_owned()),
            (16, "tools.shell[3]".to_owned()),
            (19, "tools.shell[4]".to_owned()),
            (26, "tools.shell[5].exit_code_field".to_owned()),
            (30, "tools.shell[6].exit_code_pattern".to_owned()),
            (32, "tools.shell[7]".to_owned()),
            (2, "tools.read_only[1]".to_owned()),
            (2, "tools.read_only[2]".to_owned()),
            (2, "tools.read_only[3]".to_owned()),
            (2, "tools.read_only[4]".to_owned()),
            (2, "tools.read_only[5]".to_owned()),
        ]
    );
    let settings = &loaded.settings;
    assert_eq!(
        settings.read_only_tools,
        BTreeSet::from(["search".to_owned()])
    );
    assert_eq!(
        settings.shell_tools.keys().collect::<Vec<_>>(),
        ["run"],
        "only the first, complete declaration"
    );
    assert_eq!(
        settings.exit_code_source("run"),
        Some(ExitCodeSource::Field(ResultField::bash_exit_code()))
    );
}

#[test]
fn a_group_writable_settings_file_is_not_read() {
    let (_, root) = load("[verification]\ncontinuation_cap = 2\n");
    let file = root.path().join("settings.toml");
    fs::set_permissions(&file, fs::Permissions::from_mode(0o620)).unwrap();
    let loaded = load_settings_at(root.path()).expect("the root exists");
    assert_eq!(loaded.settings, Settings::default());
    assert_eq!(
        loaded.problems,
        [SettingsProblem::Trust(TrustError::Writable {
            path: file,
            mode: 0o620
        })]
    );
}

#[test]
fn a_settings_file_linked_out_of_the_root_is_not_read() {
    let root = ConfigRoot::builder().build();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("settings.toml");
    fs::write(&target, "[verification]\ncontinuation_cap = 100\n").unwrap();
    fs::set_permissions(&target, fs::Permissions::from_mode(0o600)).unwrap();
    let file = root.path().join("settings.toml");
    symlink(&target, &file).unwrap();
    let loaded = load_settings_at(root.path()).expect("the root exists");
    assert_eq!(loaded.settings, Settings::default());
    assert_eq!(
        loaded.problems,
        [SettingsProblem::Trust(TrustError::Symlink { path: file })]
    );
}

#[test]
fn a_declared_shell_tool_runs_count_as_evidence_and_other_tools_do_not() {
    let mut session = GateSession::demo();
    let gate_config = GateConfig {
        shell_tools: BTreeSet::from(["bash".to_owned(), "run_checks".to_owned()]),
        ..GateConfig::new(session.root())
    };
    session.gate = VerificationGate::new(gate_config, &session.config.registry());
    session.edit("src/a.ts", "export const a = 2;\n");
    assert_eq!(session.state("test"), RequirementState::NotRun);
    let call = |id: &str, tool: &str, root| ObservedCall {
        id: id.into(),
        tool: tool.to_owned(),
        input: serde_json::json!({ "command": "npm test" }),
        cwd: root,
        potentially_mutating: true,
        outcome: success(),
    };
    session.wave(vec![call("other", "deploy", session.root())], |_| {});
    assert_eq!(
        session.state("test"),
        RequirementState::NotRun,
        "an undeclared tool's run is not evidence"
    );
    session.wave(vec![call("shell", "run_checks", session.root())], |_| {});
    assert_eq!(session.state("test"), RequirementState::Passed);
    let evidence = session.requirement("test").last_success.clone().unwrap();
    assert_eq!(evidence.tool_call_id.to_string(), "shell");

    session.edit("src/a.ts", "export const a = 3;\n");
    let failed = ObservedCall {
        outcome: CallOutcome::Finished {
            is_error: false,
            exit_code: None,
        },
        ..call("silent", "run_checks", session.root())
    };
    assert_eq!(session.state("test"), RequirementState::Stale);
    session.wave(vec![failed], |_| {});
    assert_eq!(
        session.state("test"),
        RequirementState::Stale,
        "a shell tool's run without an exit code does not count"
    );
    let write = write_call("w", "src/b.ts", &session.root());
    session.wave(
        vec![call("raced", "run_checks", session.root()), write],
        |repo| repo.write("src/b.ts", "export const b = 1;\n"),
    );
    assert_eq!(
        session.state("test"),
        RequirementState::Stale,
        "a shell tool's run racing a write does not count"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_uses_the_settings_and_a_broken_file_is_degraded_not_weaker() {
    let repo = TestRepo::with_commit(&[("README.md", "# x\n")]);
    let root = ConfigRoot::builder()
        .builtin()
        .file(
            "settings.toml",
            "[verification]\ncontinuation_cap = 3\n[waves]\ntimeout_ms = 4000\n[tools]\nread_only = [\"search_docs\"]\n",
        )
        .build();
    let session = Session::open(SessionOptions::new(repo.path(), root.path()));
    let status = session.status();
    assert_eq!(status.hooks.settings.continuation_cap, 3);
    assert_eq!(status.hooks.verification.gate.continuation_cap, 3);
    assert_eq!(status.hooks.settings.wave_timeout_ms, 4_000);
    assert_eq!(status.hooks.settings.read_only_tools, ["search_docs"]);
    assert!(status.hooks.settings.problems.is_empty());
    assert!(!session.footer_summary().degraded);
    session.shutdown();

    root.write(
        "settings.toml",
        "[verification]\ncontinuation_cap = 3\ncontinuation_kap = 4\n[tools]\nread_only = [\"bash\"]\n",
    );
    let mut options = SessionOptions::new(repo.path(), root.path());
    options.overrides.wave_timeout = Some(Duration::from_millis(1_234));
    let session = Session::open(options);
    let status = session.status();
    assert_eq!(
        status.hooks.settings.continuation_cap, 3,
        "the good key applies"
    );
    assert_eq!(
        status.hooks.settings.wave_timeout_ms, 1_234,
        "a test override wins"
    );
    assert!(
        status.hooks.settings.read_only_tools.is_empty(),
        "`bash` is never read-only"
    );
    assert_eq!(status.hooks.settings.problems.len(), 2);
    assert!(footer(&session.footer_summary()).ends_with("degraded (/hooks-doctor)"));
    let paths = [(repo.path(), "[repo]"), (root.path(), "[root]")];
    assert_snapshot!(
        "broken_settings_status",
        pi_native_hooks_session::render_status(&status),
        redact = &paths
    );
    session.shutdown();
}

#[test]
fn doctor_lists_the_settings_and_their_problems() {
    let root = ConfigRoot::builder()
        .builtin()
        .file("settings.toml", EVERY_KEY)
        .build();
    let report = root_report(root.path());
    assert!(report.healthy());
    let paths = [(root.path(), "[root]")];
    assert_snapshot!("doctor_settings", report.to_string(), redact = &paths);

    root.write(
        "settings.toml",
        "[waves]\ntimeout_ms = 50\n[[tools.shell]]\nname = \"run\"\n",
    );
    let report = root_report(root.path());
    assert!(
        !report.healthy(),
        "a settings problem makes the root unhealthy"
    );
    assert_snapshot!(
        "doctor_broken_settings",
        report.to_string(),
        redact = &paths
    );
}

#[test]
fn a_settings_fifo_or_an_oversized_file_is_named_unread_and_keeps_the_defaults() {
    // A FIFO would block a plain open forever: it is named as the wrong kind, never opened.
    let root = ConfigRoot::builder().build();
    let file = root.path().join("settings.toml");
    nix::unistd::mkfifo(
        &file,
        nix::sys::stat::Mode::S_IRUSR | nix::sys::stat::Mode::S_IWUSR,
    )
    .expect("mkfifo");
    let loaded = load_settings_at(root.path()).expect("the root exists");
    assert_eq!(loaded.settings, Settings::default());
    assert!(
        matches!(
            loaded.problems.as_slice(),
            [SettingsProblem::Trust(TrustError::WrongKind { .. })]
        ),
        "{:?}",
        loaded.problems
    );

    // A sparse 4 GiB file is refused by its size, without reading it.
    fs::remove_file(&file).expect("remove the FIFO");
    let huge = fs::File::create(&file).expect("create");
    huge.set_len(4 << 30).expect("sparse 4 GiB");
    fs::set_permissions(&file, fs::Permissions::from_mode(0o600)).expect("chmod");
    let loaded = load_settings_at(root.path()).expect("the root exists");
    assert_eq!(loaded.settings, Settings::default());
    assert!(
        matches!(
            loaded.problems.as_slice(),
            [SettingsProblem::Trust(TrustError::TooLarge { .. })]
        ),
        "{:?}",
        loaded.problems
    );
}

//! Measures hostile policies ("bombs") against the sandbox: for each, the wall time as a multiple of
//! the per-call deadline and the peak resident memory above the process's baseline, with what the
//! run reported. Each bomb runs in a child process of its own (this binary, re-run with
//! `--bomb NAME`), so an abort or a memory peak is isolated and measured alone.
//!
//! ```text
//! cargo run --release -p pi-native-hooks-benches --bin policy_bombs [NAME...]
//! ```
//!
//! The child reads `VmHWM` (peak resident set) from `/proc/self/status` once the policies are
//! compiled and again after the bomb; the difference is the bomb's peak above the baseline. Every
//! call runs on a thread with a 2 MiB stack, the size of tokio's blocking pool threads where
//! policies run in Pi.

#![expect(
    clippy::cast_precision_loss,
    reason = "sizes and counts of measured inputs, far below 2^32; figures are printed as floats"
)]
#![expect(
    clippy::format_collect,
    reason = "building generated input and tables; allocation is outside what is measured"
)]
#![expect(clippy::print_stdout, reason = "the table is this program's output")]
#![expect(clippy::print_stderr, reason = "usage errors")]

use pi_native_hooks_analysis::{
    AnalysisSnapshot, AnalyzerKey, Finding, Position, Severity, SourceRange,
};
use pi_native_hooks_base::CancelToken;
use pi_native_hooks_policy::PolicySource;
use pi_native_hooks_policy::{PolicyRegistry, RegistrySource, Sandbox};
use std::process::{Command, ExitCode, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

// Counts allocations per thread so the sandbox can enforce its memory budget, as the CLI and the
// Node addon do.
#[global_allocator]
static ALLOCATOR: pi_native_hooks_policy::CountingAllocator =
    pi_native_hooks_policy::CountingAllocator;

/// One hostile policy and how to run it.
struct Bomb {
    name: &'static str,
    what: &'static str,
    source: String,
    run: Run,
}

enum Run {
    /// `evaluate` over a snapshot of this many findings, this many times.
    Diagnostic { findings: usize, calls: usize },
    /// The `affects` predicates over this many changed paths.
    Verification { paths: usize },
}

const DIAGNOSTIC_HEADER: &str = r#"
const ID = "bomb";
const KIND = "diagnostic";
const ANALYZER = "ast-grep";
const RULES = ["bomb-rule"];
"#;

/// The size of the bombs' big strings: 16 MB as in the report that found them, or `BOMB_BYTES`
/// (e.g. just under the sandbox's string limit, to exercise the bounds behind it).
fn bomb_bytes() -> usize {
    std::env::var("BOMB_BYTES")
        .ok()
        .and_then(|bytes| bytes.parse().ok())
        .unwrap_or(16_000_000)
}

// A table of cases, one literal per bomb.
#[expect(clippy::too_many_lines)]
fn bombs() -> Vec<Bomb> {
    let bytes = bomb_bytes();
    let thrown = bytes / 16 * 10;
    // `big(seed)`: a string of `bytes` bytes starting with `seed` (`pad` grows it in place).
    let big = format!("fn big(seed) {{ let s = seed; s.pad({bytes}, \"x\"); s }}\n");
    let big = big.as_str();
    let variables: String = (0..40)
        .map(|i| format!("    let v{i} = big(\"{i}\");\n"))
        .collect();
    vec![
        Bomb {
            name: "print-flood",
            what: "100 prints of a big string",
            source: format!(
                "{DIAGNOSTIC_HEADER}{big}fn evaluate(snapshot) {{\n    let s = big(\"x\");\n    for i in 0..100 {{ print(s); }}\n    []\n}}\n"
            ),
            run: Run::Diagnostic {
                findings: 1,
                calls: 1,
            },
        },
        Bomb {
            name: "big-variables",
            what: "40 big variables",
            source: format!("{DIAGNOSTIC_HEADER}{big}fn evaluate(snapshot) {{\n{variables}    []\n}}\n"),
            run: Run::Diagnostic {
                findings: 1,
                calls: 1,
            },
        },
        Bomb {
            name: "big-guidance",
            what: "a distinct big guidance per finding, 100 findings",
            source: format!(
                "{DIAGNOSTIC_HEADER}{big}fn evaluate(snapshot) {{\n    let out = [];\n    for f in snapshot.findings {{\n        out.push(f.to_diagnostic(big(f.line.to_string())));\n    }}\n    out\n}}\n"
            ),
            run: Run::Diagnostic {
                findings: 100,
                calls: 1,
            },
        },
        Bomb {
            name: "big-map-keys",
            what: "a result map with a distinct big key per finding, 40 findings",
            source: format!(
                "{DIAGNOSTIC_HEADER}{big}fn evaluate(snapshot) {{\n    let out = [];\n    for f in snapshot.findings {{\n        let m = #{{}};\n        m[big(f.line.to_string())] = 1;\n        out.push(m);\n    }}\n    out\n}}\n"
            ),
            run: Run::Diagnostic {
                findings: 40,
                calls: 1,
            },
        },
        Bomb {
            name: "native-split",
            what: "split(\"\") of a big string",
            source: format!(
                "{DIAGNOSTIC_HEADER}{big}fn evaluate(snapshot) {{\n    let s = big(\"x\");\n    let parts = s.split(\"\");\n    []\n}}\n"
            ),
            run: Run::Diagnostic {
                findings: 1,
                calls: 1,
            },
        },
        Bomb {
            name: "closure-cycle",
            what: "a closure stored in the map it captures, 5 calls",
            source: format!(
                "{DIAGNOSTIC_HEADER}{big}fn evaluate(snapshot) {{\n    let m = #{{ big: big(\"x\") }};\n    m.f = || m.big.len();\n    let g = m.f;\n    g.call();\n    []\n}}\n"
            ),
            run: Run::Diagnostic {
                findings: 1,
                calls: 5,
            },
        },
        Bomb {
            name: "thrown-map",
            what: "a thrown map of 10/16 of the big size",
            source: format!(
                "{DIAGNOSTIC_HEADER}{big}fn evaluate(snapshot) {{\n    let m = #{{}};\n    let s = \"x\";\n    s.pad({thrown}, \"x\");\n    m.big = s;\n    throw m;\n}}\n"
            ),
            run: Run::Diagnostic {
                findings: 1,
                calls: 1,
            },
        },
        Bomb {
            name: "nested-arrays",
            what: "an array nested as deep as the deadline allows",
            source: format!(
                "{DIAGNOSTIC_HEADER}{big}fn evaluate(snapshot) {{\n    let a = [];\n    loop {{ a = [a]; }}\n}}\n"
            ),
            run: Run::Diagnostic {
                findings: 1,
                calls: 1,
            },
        },
        Bomb {
            name: "affects-flood",
            what: "verification `affects` printing big lines, 3 changed paths",
            source: format!(
                "const ID = \"bomb\";\nconst KIND = \"verification\";\nconst PROJECT = #{{ manifest: \"package.json\", name: \"bomb\" }};\nconst REQUIREMENTS = [#{{ id: \"test\", command: \"make test\", affects: \"affects_all\" }}];\n{big}fn affects_all(path) {{\n    let s = big(path);\n    for i in 0..100 {{ print(s); }}\n    false\n}}\n"
            ),
            run: Run::Verification { paths: 3 },
        },
        Bomb {
            name: "slow-affects",
            what: "40 paths x 2 requirements of slow `affects`",
            source: "const ID = \"bomb\";\nconst KIND = \"verification\";\nconst PROJECT = #{ manifest: \"package.json\", name: \"bomb\" };\nconst REQUIREMENTS = [\n    #{ id: \"test\", command: \"make test\", affects: \"slow_a\" },\n    #{ id: \"lint\", command: \"make lint\", affects: \"slow_b\" },\n];\nfn spin() { let x = 0; for i in 0..500000 { x += 1; } x }\nfn slow_a(path) { spin() < 0 }\nfn slow_b(path) { spin() < 0 }\n".to_owned(),
            run: Run::Verification { paths: 40 },
        },
    ]
}

fn snapshot(findings: usize) -> Arc<AnalysisSnapshot> {
    let path = "src/bomb.ts".to_owned();
    let findings = (0..findings)
        .map(|i| Finding {
            rule: "bomb-rule".into(),
            severity: Severity::Warning,
            message: "bomb".into(),
            note: None,
            path: path.clone().into(),
            range: SourceRange {
                start: Position { line: i, column: 0 },
                end: Position { line: i, column: 1 },
            },
            text_hash: format!("{i:016x}"),
            fix: None,
        })
        .collect();
    Arc::new(AnalysisSnapshot {
        analyzer: AnalyzerKey::builtin(),
        paths: vec![path],
        findings,
        ..AnalysisSnapshot::default()
    })
}

fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix("VmHWM:"))
                .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// Runs one bomb in this process and prints `wall_ms peak_kib outcome` on one line.
fn child(name: &str) -> ExitCode {
    let Some(bomb) = bombs().into_iter().find(|b| b.name == name) else {
        eprintln!("unknown bomb {name}");
        return ExitCode::FAILURE;
    };
    let sandbox = Arc::new(Sandbox::default());
    let registry = PolicyRegistry::from_sources(
        RegistrySource::Builtin,
        vec![PolicySource {
            path: format!("{name}.rhai").into(),
            relative: format!("policies/{name}.rhai"),
            text: Ok(bomb.source.clone()),
        }],
        sandbox,
    );
    if let Some(problem) = registry.problems().first() {
        println!("0 0 refused at load: {}", one_line(&problem.to_string()));
        return ExitCode::SUCCESS;
    }
    let baseline = peak_rss_kib();
    let started = Instant::now();
    let outcome = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(move || run(&registry, &bomb.run))
        .and_then(|handle| handle.join().map_err(|_| std::io::Error::other("panicked")))
        .unwrap_or_else(|error| format!("the thread failed: {error}"));
    let wall = started.elapsed();
    let peak = peak_rss_kib().saturating_sub(baseline);
    println!("{} {peak} {}", wall.as_millis(), one_line(&outcome));
    ExitCode::SUCCESS
}

fn run(registry: &PolicyRegistry, run: &Run) -> String {
    let cancel = CancelToken::new();
    match *run {
        Run::Diagnostic { findings, calls } => {
            let snapshot = snapshot(findings);
            let mut summary = String::new();
            for _ in 0..calls {
                let run = registry.evaluate_diagnostics(&snapshot, &cancel);
                let log_bytes: usize = run.logs.iter().map(|l| l.line.len()).sum();
                summary = match run.failures.first() {
                    Some(failure) => format!(
                        "failed ({} B message, {} log lines, {log_bytes} B log): {failure}",
                        failure.to_string().len(),
                        run.logs.len()
                    ),
                    None => format!(
                        "succeeded: {} diagnostics, {} log lines, {log_bytes} B log",
                        run.diagnostics.len(),
                        run.logs.len()
                    ),
                };
            }
            summary
        }
        Run::Verification { paths } => {
            let paths: Vec<String> = (0..paths).map(|i| format!("src/file{i}.ts")).collect();
            let run = registry.affected_requirements(&paths, &cancel);
            let log_bytes: usize = run.logs.iter().map(|l| l.line.len()).sum();
            let failures: Vec<String> = run.failures.iter().map(ToString::to_string).collect();
            format!(
                "{} affected, {} failures, {} log lines, {log_bytes} B log: {}",
                run.requirements.len(),
                run.failures.len(),
                run.logs.len(),
                failures.join("; ")
            )
        }
    }
}

fn one_line(text: &str) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    match flat.char_indices().nth(160) {
        Some((at, _)) => format!("{}…", &flat[..at]),
        None => flat,
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, name] = args.as_slice()
        && flag == "--bomb"
    {
        return child(name);
    }
    let deadline = Sandbox::default().limits().deadline;
    let Ok(me) = std::env::current_exe() else {
        eprintln!("cannot find this program's path");
        return ExitCode::FAILURE;
    };
    println!(
        "deadline {} ms; big strings of {} bytes (BOMB_BYTES); peak RSS is VmHWM above the child's baseline\n",
        deadline.as_millis(),
        bomb_bytes()
    );
    println!("| bomb | wall | × deadline | peak RSS above baseline | outcome |");
    println!("| --- | --- | --- | --- | --- |");
    for bomb in bombs() {
        if !args.is_empty() && !args.iter().any(|a| a == bomb.name) {
            continue;
        }
        let started = Instant::now();
        let output = Command::new(&me)
            .args(["--bomb", bomb.name])
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .output();
        let parent_wall = started.elapsed();
        let row = match output {
            Ok(output) if output.status.success() => {
                let text = String::from_utf8_lossy(&output.stdout);
                let mut parts = text.trim().splitn(3, ' ');
                let wall: u64 = parts.next().and_then(|w| w.parse().ok()).unwrap_or(0);
                let peak: u64 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
                let outcome = parts.next().unwrap_or("").to_owned();
                (
                    Duration::from_millis(wall),
                    format!("{:.1} MiB", peak as f64 / 1024.0),
                    outcome,
                )
            }
            Ok(output) => {
                let stderr = String::from_utf8_lossy(&output.stderr);
                let last = stderr.lines().last().unwrap_or("").to_owned();
                (
                    parent_wall,
                    "n/a".to_owned(),
                    format!("process died ({}): {}", output.status, one_line(&last)),
                )
            }
            Err(error) => (parent_wall, "n/a".to_owned(), format!("not run: {error}")),
        };
        let (wall, peak, outcome) = row;
        println!(
            "| {} ({}) | {} ms | {:.1} | {peak} | {outcome} |",
            bomb.name,
            bomb.what,
            wall.as_millis(),
            wall.as_secs_f64() / deadline.as_secs_f64()
        );
    }
    ExitCode::SUCCESS
}

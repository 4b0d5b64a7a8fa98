//! Diagnostic policy evaluation time for 100, 1,000 and 10,000 findings over one shared snapshot,
//! including the view, the sandboxed call and the result checks. Target: at most 1.5 ms per 1,000
//! findings per policy on one core.
//!
//! - `policy_evaluation`: the shipped `typescript-no-non-null-assertion` policy, which reports
//!   every finding with `snapshot.report` (native diagnostics, per-rule guidance).
//! - `policy_evaluation_closure`: a policy that filters and maps every finding through Rhai
//!   closures into result maps, the most flexible and slowest way to write one.

#![expect(
    clippy::cast_precision_loss,
    reason = "finding counts far below 2^52, shown as per-1,000 figures"
)]

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group};
use pi_native_hooks_analysis::{
    AnalysisSnapshot, AnalyzerKey, Finding, Position, Severity, SourceRange,
};
use pi_native_hooks_base::CancelToken;
use pi_native_hooks_benches::{
    NoEstimate, criterion_home, format_duration, mean_estimate, thousands, write_figures,
};
use pi_native_hooks_policy::PolicySource;
use pi_native_hooks_policy::{PolicyRegistry, RegistrySource, Sandbox};
use std::fmt::Write as _;
use std::hint::black_box;
use std::io::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::time::SystemTime;

// The allocator the CLI and the Node addon install (it counts bytes per thread for the policies'
// memory budget), so its cost is part of what is measured.
#[global_allocator]
static ALLOCATOR: pi_native_hooks_policy::CountingAllocator =
    pi_native_hooks_policy::CountingAllocator;

const POLICY: &str = "typescript-no-non-null-assertion";

fn snapshot(findings: usize) -> Arc<AnalysisSnapshot> {
    let paths: Vec<String> = (0..findings.div_ceil(10))
        .map(|i| format!("src/module{i:05}.ts"))
        .collect();
    let findings = (0..findings)
        .map(|i| Finding {
            rule: "typescript-no-non-null-assertion-ts".into(),
            severity: Severity::Warning,
            message: "Non-null assertion `!` hides a possibly null or undefined value.".into(),
            note: None,
            path: paths[i / 10].clone().into(),
            range: SourceRange {
                start: Position {
                    line: i % 10 * 3,
                    column: 8,
                },
                end: Position {
                    line: i % 10 * 3,
                    column: 20,
                },
            },
            text_hash: format!("{i:016x}"),
            fix: None,
        })
        .collect();
    Arc::new(AnalysisSnapshot {
        analyzer: AnalyzerKey::builtin(),
        paths,
        findings,
        ..AnalysisSnapshot::default()
    })
}

const CLOSURE_POLICY: &str = r#"
const ID = "closure-policy";
const KIND = "diagnostic";
const ANALYZER = "ast-grep";
const RULES = ["typescript-no-non-null-assertion-ts"];
fn evaluate(snapshot) {
    snapshot.findings.filter(|f| !f.path.contains("/generated/")).map(|f| #{
        path: f.path, line: f.line, column: f.column, rule: f.rule, message: f.message,
        guidance: "Narrow the value. // ast-grep-ignore: typescript-no-non-null-assertion-ts -- <reason>",
    })
}
"#;

fn policy_evaluation(c: &mut Criterion) {
    bench_policy(c, "policy_evaluation", &PolicyRegistry::builtin(), POLICY);
    let closure = PolicyRegistry::from_sources(
        RegistrySource::Builtin,
        vec![PolicySource {
            path: "closure-policy.rhai".into(),
            relative: "policies/closure-policy.rhai".to_owned(),
            text: Ok(CLOSURE_POLICY.to_owned()),
        }],
        Arc::new(Sandbox::default()),
    );
    bench_policy(c, "policy_evaluation_closure", &closure, "closure-policy");
}

fn bench_policy(c: &mut Criterion, name: &str, registry: &PolicyRegistry, id: &str) {
    let policy = registry.policy(id).expect("the policy loads");
    let cancel = CancelToken::new();
    let mut group = c.benchmark_group(name);
    for findings in FINDINGS {
        let snapshot = snapshot(findings);
        let run = registry.evaluate_policy(policy, &snapshot, &cancel);
        assert!(run.failures.is_empty(), "{:?}", run.failures);
        assert_eq!(run.diagnostics.len(), findings);
        group.throughput(Throughput::Elements(findings as u64));
        group.bench_with_input(
            BenchmarkId::from_parameter(findings),
            &snapshot,
            |b, snapshot| {
                b.iter(|| black_box(registry.evaluate_policy(policy, snapshot, &cancel)));
            },
        );
    }
    group.finish();
}

criterion_group!(benches, policy_evaluation);

/// The snapshot sizes measured.
const FINDINGS: [usize; 3] = [100, 1_000, 10_000];
/// The target: at most this many nanoseconds per 1,000 findings per policy, on one core.
const TARGET_PER_1000_NS: f64 = 1.5e6;

/// Each style's mean per snapshot size and per 1,000 findings, with the target's verdict.
fn figures(mean: impl Fn(&str, usize) -> Result<f64, NoEstimate>) -> Option<String> {
    let mut out = String::from(
        "| style | findings | mean | per 1,000 findings | target (≤ 1.5 ms per 1,000) |\n| --- | ---: | ---: | ---: | --- |\n",
    );
    let mut measured = false;
    for (group, style, target) in [
        (
            "policy_evaluation",
            "shipped (`snapshot.report(guidance)`)",
            true,
        ),
        (
            "policy_evaluation_closure",
            "closure (`filter` + `map` to maps)",
            false,
        ),
    ] {
        for findings in FINDINGS {
            let Ok(nanos) = mean(group, findings) else {
                continue;
            };
            measured = true;
            let per_1000 = nanos * 1000.0 / findings as f64;
            let verdict = if !target {
                "— (not the shipped style)"
            } else if per_1000 <= TARGET_PER_1000_NS {
                "met"
            } else {
                "**missed**"
            };
            let _ = writeln!(
                out,
                "| {style} | {} | {} | {} | {verdict} |",
                thousands(findings),
                format_duration(nanos),
                format_duration(per_1000)
            );
        }
    }
    measured.then_some(out)
}

fn main() {
    let started = SystemTime::now();
    benches();
    Criterion::default().configure_from_args().final_summary();
    let home = criterion_home(&Path::new(env!("CARGO_MANIFEST_DIR")).join(".."));
    let table =
        figures(|group, findings| mean_estimate(&home, group, &findings.to_string(), started));
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(
        stdout,
        "\n{}",
        table
            .as_deref()
            .unwrap_or("Nothing was measured in this run.")
    );
    if let Some(line) = write_figures("policy", table.as_deref()) {
        let _ = writeln!(stdout, "{line}");
    }
}

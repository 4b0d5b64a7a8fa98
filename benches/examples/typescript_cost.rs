//! The engine's own work of warm TypeScript waves, for instruction counting (the `typescript`
//! bench's `analyzer` group without criterion, so a tool that counts instructions sees only the
//! waves): the generated 1,000-file project, the pinned TypeScript 7
//! (`PI_NATIVE_HOOKS_TS7_MODULES`, set by `scripts/provision.sh`), an analyzer warmed by four
//! waves, then `measured` runs N waves (default 10) alternating an exported edit of the library
//! module, so its importers are re-checked every wave. The count is this process's: the language
//! server is a process of its own, and its work is the floor the bench compares with.
//!
//! ```sh
//! cargo build --release -p pi-native-hooks-benches --example typescript_cost
//! valgrind --tool=callgrind --collect-atstart=no \
//!     --toggle-collect='*typescript_cost::measured*' target/release/examples/typescript_cost 10
//! ```

#![expect(
    clippy::print_stdout,
    reason = "an example that prints what it measured"
)]

use pi_native_hooks_benches::ts_project::{self, EditKind};
use pi_native_hooks_typescript::{PriorTexts, TypeScriptAnalyzer, TypeScriptLimits};
use std::path::Path;
use std::time::Duration;

#[inline(never)]
fn measured(
    analyzer: &mut TypeScriptAnalyzer,
    root: &Path,
    target: &str,
    texts: &[String; 2],
    waves: usize,
) -> usize {
    let mut findings = 0;
    for wave in 0..waves {
        std::fs::write(root.join(target), &texts[wave % 2]).expect("write");
        let snapshot = analyzer.scan(root, &[target.to_owned()]);
        assert!(snapshot.skipped.is_empty(), "{:?}", snapshot.skipped);
        findings += snapshot.findings.len() + snapshot.parsed_files + snapshot.cached_files;
    }
    findings
}

fn main() {
    let waves: usize = std::env::args()
        .nth(1)
        .and_then(|w| w.parse().ok())
        .unwrap_or(10);
    let modules = std::path::PathBuf::from(
        std::env::var("PI_NATIVE_HOOKS_TS7_MODULES").expect("PI_NATIVE_HOOKS_TS7_MODULES"),
    );
    let dir = tempfile::tempdir().expect("temp");
    let root = dir.path();
    let generated = ts_project::generate(root, 1_000, ts_project::SEED).expect("generate");
    std::fs::write(root.join("tsconfig.json"), r#"{ "compilerOptions": { "strict": true, "target": "es2022", "module": "nodenext", "noEmit": true }, "include": ["src"] }
"#).expect("tsconfig");
    std::fs::write(root.join("package.json"), "{ \"type\": \"module\" }\n").expect("package");
    std::fs::create_dir_all(root.join("node_modules")).expect("node_modules");
    std::os::unix::fs::symlink(
        modules.join("typescript"),
        root.join("node_modules/typescript"),
    )
    .expect("link");
    let text = std::fs::read_to_string(root.join(&generated.target)).expect("read");
    let texts = ts_project::edit_pair(&text, EditKind::Exported).expect("edit point");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let (target, head) = (generated.target.clone(), texts[0].clone());
    let prior: PriorTexts = Box::new(move |paths: &[String]| {
        paths
            .iter()
            .map(|p| (*p == target).then(|| head.clone().into_bytes()))
            .collect()
    });
    let limits = TypeScriptLimits {
        wait: Duration::from_secs(120),
        ..TypeScriptLimits::default()
    };
    let mut analyzer = TypeScriptAnalyzer::new(root, runtime.handle().clone(), limits, prior);
    std::fs::write(root.join(&generated.target), &texts[0]).expect("write");
    for wave in 0..4 {
        std::fs::write(root.join(&generated.target), &texts[(wave + 1) % 2]).expect("write");
        let snapshot = analyzer.scan(root, std::slice::from_ref(&generated.target));
        assert!(snapshot.skipped.is_empty(), "{:?}", snapshot.skipped);
    }
    let total = measured(&mut analyzer, root, &generated.target, &texts, waves);
    println!("waves {waves}, findings+pulled+reused {total}");
    drop(analyzer);
    drop(runtime);
}

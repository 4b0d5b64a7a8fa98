//! Owns the targets of the config files a user writes or a project holds: `settings.toml`, policy
//! fixtures, rule YAML, Rhai policies, and the `package.json` and `Cargo.toml` manifests. Each
//! goes through the engine's own entry point and renders every problem it reports.

use pi_native_hooks_analysis::{Analyzer, RuleSet, ScanLimits};
use pi_native_hooks_cli::fixtures::FixtureFile;
use pi_native_hooks_config::ConfigFile;
use pi_native_hooks_config::settings::parse_settings;
use pi_native_hooks_policy::{
    PolicyRegistry, PolicySource, RegistrySource, Sandbox, SandboxLimits,
};
use pi_native_hooks_verification::{ProposedPolicy, manifest_name, propose_at};
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

/// A TypeScript and a TSX file the loaded rules of the `rule` target are run on.
const SAMPLES: [(&str, &str); 2] = [
    (
        "src/sample.ts",
        "import { a } from \"./a\";\n// ast-grep-ignore: some-rule\nexport function f(x: any): number {\n  console.log(x!.y);\n  try { return a(x) } catch {}\n  debugger;\n  return import(\"./b\") as any;\n}\n",
    ),
    (
        "src/Sample.tsx",
        "export const Row = (props: { cells: string[] }) => <tr>{props.cells.map((c) => <td key={c}>{c}</td>)}</tr>;\n",
    ),
];

/// `settings.toml`, parsed as the config root's file.
pub fn settings(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (settings, problems) = parse_settings(Path::new("settings.toml"), &text);
    let _ = settings.to_string();
    for problem in problems {
        let _ = problem.to_string();
    }
}

/// A policy fixture file (`policies/tests/<id>.yml`).
pub fn fixture(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Err(error) = FixtureFile::parse(&text) {
        let _ = error.to_string();
    }
}

/// A rule file loaded by the engine's loader; the rules that load are run on two small files.
pub fn rule(data: &[u8]) {
    let file = ConfigFile {
        path: PathBuf::from("rules/fuzz.yml"),
        text: String::from_utf8_lossy(data).into_owned(),
    };
    let load = RuleSet::load(&[file], &[]);
    for error in &load.errors {
        let _ = error.to_string();
    }
    if load.rules.ids().is_empty() {
        return;
    }
    let Ok(mut analyzer) = Analyzer::new(
        "ast-grep:fuzz",
        Arc::new(load.rules),
        ScanLimits::default(),
        1,
    ) else {
        return;
    };
    let files: Vec<(String, String)> = SAMPLES
        .iter()
        .map(|(path, text)| ((*path).to_owned(), (*text).to_owned()))
        .collect();
    // A panic inside ast-grep is caught by the analyzer and named in the snapshot, as in a wave.
    let _ = analyzer.scan_sources(&files);
}

/// One sandbox for every policy input: the engine's default limits.
static SANDBOX: LazyLock<Arc<Sandbox>> =
    LazyLock::new(|| Arc::new(Sandbox::new(SandboxLimits::default())));

/// A Rhai policy, loaded (compiled in the sandbox, its contract validated) as a config root's.
pub fn policy(data: &[u8]) {
    let source = PolicySource {
        path: PathBuf::from("policies/fuzz.rhai"),
        relative: "policies/fuzz.rhai".to_owned(),
        text: Ok(String::from_utf8_lossy(data).into_owned()),
    };
    let registry =
        PolicyRegistry::from_sources(RegistrySource::Builtin, vec![source], Arc::clone(&SANDBOX));
    for problem in registry.problems() {
        let _ = problem.to_string();
    }
}

thread_local! {
    /// A project folder per thread, rewritten for each input.
    static PROJECT: RefCell<Option<tempfile::TempDir>> = const { RefCell::new(None) };
}

/// The policy `init` proposes is Rhai built from the manifest's strings: whatever they hold, it
/// must load without a problem and name exactly the project and commands proposed (a name that
/// escaped its string literal would change them, or run code).
fn proposal_loads_unchanged(proposal: &ProposedPolicy) {
    let registry = PolicyRegistry::from_sources(
        RegistrySource::Builtin,
        vec![PolicySource {
            path: PathBuf::from(proposal.file_name()),
            relative: proposal.file_name(),
            text: Ok(proposal.text.clone()),
        }],
        Arc::clone(&SANDBOX),
    );
    assert!(
        registry.problems().is_empty(),
        "the proposed policy does not load: {:?}\n{}",
        registry.problems(),
        proposal.text
    );
    let mut policies = registry.verification_policies();
    let (_, spec) = policies
        .next()
        .unwrap_or_else(|| panic!("no verification policy in\n{}", proposal.text));
    assert_eq!(
        (spec.project.manifest.as_str(), spec.project.name.as_str()),
        (proposal.manifest, proposal.project.as_str()),
        "{}",
        proposal.text
    );
    let commands: Vec<&str> = spec
        .requirements
        .iter()
        .map(|r| r.command.as_str())
        .collect();
    assert_eq!(commands, proposal.commands, "{}", proposal.text);
}

/// A manifest read from a project folder: the first byte picks `package.json` (even) or
/// `Cargo.toml` (odd), the rest is its content. Read for the project's name, as verification
/// policies match projects, and for the verification policy `init` proposes.
pub fn manifest(data: &[u8]) {
    let Some((&pick, content)) = data.split_first() else {
        return;
    };
    let name = if pick % 2 == 0 {
        "package.json"
    } else {
        "Cargo.toml"
    };
    PROJECT.with_borrow_mut(|project| {
        if project.is_none() {
            *project = tempfile::tempdir().ok();
        }
        let Some(dir) = project.as_ref().map(tempfile::TempDir::path) else {
            return;
        };
        let path = dir.join(name);
        if std::fs::write(&path, content).is_err() {
            return;
        }
        match manifest_name(dir, name) {
            Ok(_) => {}
            Err(error) => {
                let _ = error.to_string();
            }
        }
        match propose_at(dir) {
            Ok(proposal) => proposal_loads_unchanged(&proposal),
            Err(reason) => {
                let _ = reason.to_string();
            }
        }
        let _ = std::fs::remove_file(path);
    });
}

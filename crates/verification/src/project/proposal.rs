//! Owns proposing one verification policy for the project `init` runs in, from the manifests at
//! its git root (where the gate looks for them): `package.json` (`name`, and the `test`,
//! `typecheck` and `lint` scripts that exist, run with the package manager its lockfile shows) and
//! `Cargo.toml` (`[package] name` or `[workspace.package] name`, requiring `cargo test`, the one
//! command every Cargo project has). With both, the policy matches the project by `package.json`
//! and requires the commands of both.
//!
//! Manifests are read as the gate reads them (never through a symlink, never blocking, at most
//! 1 MiB). A manifest that cannot be read or parsed, a project without a name or without a
//! command, or a directory outside git gives no proposal and a named reason, never an error. The
//! project's name is user input written into Rhai source: it is written as an escaped string
//! literal, and the policy's id keeps only lowercase letters, digits and `-`.

use crate::project::manifest::read_manifest;
use pi_native_hooks_policy::InitPlan;
use pi_native_hooks_workspace::{WorkspaceKind, probe};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A verification policy proposed for a project.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProposedPolicy {
    /// The policy id (`<name>-verification`, reduced to the id alphabet).
    pub id: String,
    /// The manifest that identifies the project (`package.json` or `Cargo.toml`).
    pub manifest: &'static str,
    /// The project name that manifest declares.
    pub project: String,
    /// The required commands, in order.
    pub commands: Vec<String>,
    /// The policy's source.
    pub text: String,
}

impl ProposedPolicy {
    /// The file name under `policies/`.
    pub fn file_name(&self) -> String {
        format!("{}.rhai", self.id)
    }
}

/// Why no policy is proposed.
#[expect(missing_docs, reason = "variant fields name what they hold")]
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NoProposal {
    /// The directory is not inside a git worktree: the gate matches projects at a git root.
    #[error("{}: not inside a git repository, where the gate matches projects", .0.display())]
    NotGit(PathBuf),
    /// The git root has neither manifest.
    #[error("{}: no package.json or Cargo.toml at the project root", .0.display())]
    NoManifest(PathBuf),
    /// A manifest could not be read or parsed, or declares no name.
    #[error("{}: {reason}", path.display())]
    Unusable {
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The manifests name no command every change could require.
    #[error("{}: no `test`, `typecheck` or `lint` script to require", .0.display())]
    NoCommand(PathBuf),
}

/// The `init` plan for `root`: the built-in pack, plus the policy proposed for the project around
/// `project_dir` with a note naming its commands, or a note saying why nothing is proposed.
pub fn init_plan(root: &Path, project_dir: &Path) -> InitPlan {
    let plan = InitPlan::new(root);
    match propose(project_dir) {
        Ok(policy) => {
            let note = format!(
                "proposed verification policy {} for the project {:?} ({}): {}",
                policy.file_name(),
                policy.project,
                policy.manifest,
                policy.commands.join(", ")
            );
            plan.with_policy(&policy.file_name(), policy.text)
                .with_note(note)
        }
        Err(reason) => plan.with_note(format!(
            "no verification policy proposed: {reason}; examples are in the docs (verification.md)"
        )),
    }
}

/// The proposal for the project around `dir`, or why there is none.
pub fn propose(dir: &Path) -> Result<ProposedPolicy, NoProposal> {
    let root = match probe(dir) {
        Ok(WorkspaceKind::Git { worktree_root }) => worktree_root,
        Ok(WorkspaceKind::NotGit { .. }) => return Err(NoProposal::NotGit(dir.to_path_buf())),
        Err(error) => {
            return Err(NoProposal::Unusable {
                path: dir.to_path_buf(),
                reason: error.to_string(),
            });
        }
    };
    propose_at(&root)
}

/// The proposal from the manifests directly in `root` (the project's git root).
pub fn propose_at(root: &Path) -> Result<ProposedPolicy, NoProposal> {
    let node = read(&root.join("package.json"), parse_package_json)?;
    let cargo = read(&root.join("Cargo.toml"), parse_cargo_toml)?;
    let (manifest, project, mut requirements) = match (&node, &cargo) {
        (Some(node), _) => {
            let name = node
                .name
                .clone()
                .ok_or_else(|| unnamed(root, "package.json"))?;
            let manager = package_manager(root);
            ("package.json", name, node.requirements(manager))
        }
        (None, Some(cargo)) => {
            let name = cargo.clone().ok_or_else(|| unnamed(root, "Cargo.toml"))?;
            ("Cargo.toml", name, Vec::new())
        }
        (None, None) => return Err(NoProposal::NoManifest(root.to_path_buf())),
    };
    if cargo.is_some() {
        requirements.push(Requirement {
            id: "cargo-test",
            command: "cargo test".to_owned(),
            affects: "affects_rust",
        });
    }
    if requirements.is_empty() {
        return Err(NoProposal::NoCommand(root.join(manifest)));
    }
    let id = policy_id(&project);
    let text = render(&id, manifest, &project, &requirements);
    Ok(ProposedPolicy {
        id,
        manifest,
        project,
        commands: requirements.into_iter().map(|r| r.command).collect(),
        text,
    })
}

fn unnamed(root: &Path, manifest: &str) -> NoProposal {
    NoProposal::Unusable {
        path: root.join(manifest),
        reason: "declares no project name, so no policy can match it".to_owned(),
    }
}

/// `Ok(None)` when the file does not exist.
fn read<T>(
    path: &Path,
    parse: fn(&str) -> Result<T, ManifestSyntax>,
) -> Result<Option<T>, NoProposal> {
    let unusable = |reason: String| NoProposal::Unusable {
        path: path.to_path_buf(),
        reason,
    };
    match read_manifest(path).map_err(|error| unusable(error.to_string()))? {
        None => Ok(None),
        Some(text) => parse(&text)
            .map(Some)
            .map_err(|error| unusable(error.to_string())),
    }
}

struct Requirement {
    id: &'static str,
    command: String,
    affects: &'static str,
}

#[derive(Deserialize)]
struct PackageJson {
    name: Option<String>,
    #[serde(default)]
    scripts: BTreeMap<String, serde_json::Value>,
}

impl PackageJson {
    /// The `test`, `typecheck` and `lint` scripts that exist, as `manager` runs them. npm's
    /// placeholder test script (`echo "Error: no test specified" && exit 1`) is not a test.
    fn requirements(&self, manager: &str) -> Vec<Requirement> {
        ["test", "typecheck", "lint"]
            .into_iter()
            .filter(|script| {
                self.scripts
                    .get(*script)
                    .and_then(|v| v.as_str())
                    .is_some_and(|body| {
                        !body.trim().is_empty() && !body.contains("no test specified")
                    })
            })
            .map(|script| Requirement {
                id: script,
                command: if script == "test" {
                    format!("{manager} test")
                } else {
                    format!("{manager} run {script}")
                },
                affects: "affects_code",
            })
            .collect()
    }
}

/// A manifest the proposal cannot parse; the proposal's refusal shows it after the file's path.
#[derive(Debug, thiserror::Error)]
enum ManifestSyntax {
    #[error("is not valid JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("is not valid TOML: {0}")]
    Toml(#[from] toml::de::Error),
}

fn parse_package_json(text: &str) -> Result<PackageJson, ManifestSyntax> {
    let mut parsed: PackageJson = serde_json::from_str(text)?;
    parsed.name = parsed.name.filter(|name| !name.trim().is_empty());
    Ok(parsed)
}

/// The name the gate would read (`[package] name`, else `[workspace.package] name`).
fn parse_cargo_toml(text: &str) -> Result<Option<String>, ManifestSyntax> {
    let table: toml::Table = toml::from_str(text)?;
    let name_in = |table: Option<&toml::Value>| {
        table
            .and_then(|t| t.get("name"))
            .and_then(|n| n.as_str())
            .filter(|n| !n.trim().is_empty())
            .map(str::to_owned)
    };
    let workspace_package = table.get("workspace").and_then(|w| w.get("package"));
    Ok(name_in(table.get("package")).or_else(|| name_in(workspace_package)))
}

/// The package manager the lockfile at `root` shows; npm without one.
fn package_manager(root: &Path) -> &'static str {
    let has = |name: &str| std::fs::symlink_metadata(root.join(name)).is_ok();
    if has("pnpm-lock.yaml") {
        "pnpm"
    } else if has("yarn.lock") {
        "yarn"
    } else if has("bun.lock") || has("bun.lockb") {
        "bun"
    } else {
        "npm"
    }
}

/// The longest policy id a contract accepts.
const MAX_ID_BYTES: usize = 64;
const ID_SUFFIX: &str = "-verification";

/// `<name>-verification` in the id alphabet: lowercase ASCII letters and digits kept, every other
/// run of characters one `-`, the name cut so the id stays within the contract's 64 bytes (npm
/// allows names of 214).
fn policy_id(name: &str) -> String {
    let mut id = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            id.push(c.to_ascii_lowercase());
        } else if !id.is_empty() && !id.ends_with('-') {
            id.push('-');
        }
    }
    // Every character kept is ASCII, so any byte index is a boundary.
    id.truncate(MAX_ID_BYTES - ID_SUFFIX.len());
    let id = id.trim_end_matches('-');
    if id.is_empty() {
        "project-verification".to_owned()
    } else {
        format!("{id}{ID_SUFFIX}")
    }
}

/// `text` as a Rhai string literal: printable ASCII other than `"` and `\` as is, everything
/// else as a `\u`/`\U` escape, so no name can end the literal, a comment or a line.
pub(crate) fn rhai_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            ' '..='~' if c != '"' && c != '\\' => out.push(c),
            c if u32::from(c) <= 0xFFFF => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => {
                let _ = write!(out, "\\U{:08X}", u32::from(c));
            }
        }
    }
    out.push('"');
    out
}

fn render(id: &str, manifest: &str, project: &str, requirements: &[Requirement]) -> String {
    let mut text = format!(
        "// Proposed by `pi-native-hooks init` from this project's {manifest}: the commands that must\n\
         // succeed after a relevant change. Adjust the commands and the `affects` predicates to your\n\
         // layout, then run `pi-native-hooks test`.\n\
         const ID = {};\n\
         const KIND = \"verification\";\n\
         const DESCRIPTION = \"Required checks for this project (proposed by init).\";\n\
         const PROJECT = #{{ manifest: {}, name: {} }};\n\
         const REQUIREMENTS = [\n",
        rhai_string(id),
        rhai_string(manifest),
        rhai_string(project)
    );
    for r in requirements {
        let _ = writeln!(
            text,
            "    #{{ id: {}, command: {}, affects: {} }},",
            rhai_string(r.id),
            rhai_string(&r.command),
            rhai_string(r.affects)
        );
    }
    text.push_str("];\n");
    if requirements.iter().any(|r| r.affects == "affects_code") {
        text.push_str(
            "\n// Code, tests and manifests; documentation needs nothing.\n\
             fn affects_code(path) {\n    \
             path.ends_with(\".ts\") || path.ends_with(\".tsx\") || path.ends_with(\".js\")\n        \
             || path.ends_with(\".jsx\") || path.ends_with(\".mjs\") || path.ends_with(\".cjs\")\n        \
             || path.ends_with(\".mts\") || path.ends_with(\".cts\") || path == \"package.json\"\n        \
             || path.ends_with(\"-lock.json\") || path.ends_with(\".lock\") || path.ends_with(\"-lock.yaml\")\n        \
             || (path.starts_with(\"tsconfig\") && path.ends_with(\".json\"))\n}\n",
        );
    }
    if requirements.iter().any(|r| r.affects == "affects_rust") {
        text.push_str(
            "\n// Rust sources and what cargo reads.\n\
             fn affects_rust(path) {\n    \
             path.ends_with(\".rs\") || path.ends_with(\"Cargo.toml\") || path == \"Cargo.lock\"\n}\n",
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use pi_native_hooks_policy::PolicyRegistry;
    use pi_native_hooks_policy::PolicySource;
    use pi_native_hooks_policy::RegistrySource;
    use std::sync::Arc;

    fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        dir
    }

    /// Loads `policy` as the only policy of a registry; returns its registry.
    fn load(policy: &ProposedPolicy) -> PolicyRegistry {
        PolicyRegistry::from_sources(
            RegistrySource::Builtin,
            vec![PolicySource {
                path: PathBuf::from(policy.file_name()),
                relative: policy.file_name(),
                text: Ok(policy.text.clone()),
            }],
            Arc::default(),
        )
    }

    fn loaded_project(policy: &ProposedPolicy) -> (String, String, Vec<String>) {
        let registry = load(policy);
        assert!(
            registry.problems().is_empty(),
            "{:?}\n{}",
            registry.problems(),
            policy.text
        );
        let (_, spec) = registry.verification_policies().next().unwrap();
        (
            spec.project.manifest.clone(),
            spec.project.name.clone(),
            spec.requirements
                .iter()
                .map(|r| r.command.clone())
                .collect(),
        )
    }

    #[test]
    fn a_node_project_requires_the_scripts_it_has() {
        let dir = project(&[(
            "package.json",
            r#"{ "name": "web-app", "scripts": { "test": "vitest", "lint": "eslint .", "build": "tsc" } }"#,
        )]);
        let policy = propose_at(dir.path()).unwrap();
        assert_eq!(policy.id, "web-app-verification");
        assert_eq!(policy.commands, ["npm test", "npm run lint"]);
        assert_eq!(
            loaded_project(&policy),
            (
                "package.json".to_owned(),
                "web-app".to_owned(),
                vec!["npm test".to_owned(), "npm run lint".to_owned()]
            )
        );
    }

    #[test]
    fn the_lockfile_names_the_package_manager_and_npms_placeholder_is_no_test() {
        let dir = project(&[
            (
                "package.json",
                r#"{ "name": "p", "scripts": { "test": "echo \"Error: no test specified\" && exit 1", "typecheck": "tsc" } }"#,
            ),
            ("pnpm-lock.yaml", ""),
        ]);
        assert_eq!(
            propose_at(dir.path()).unwrap().commands,
            ["pnpm run typecheck"]
        );
    }

    #[test]
    fn a_cargo_project_requires_cargo_test() {
        let dir = project(&[(
            "Cargo.toml",
            "[package]\nname = \"tool\"\nversion = \"0.1.0\"\n",
        )]);
        let policy = propose_at(dir.path()).unwrap();
        assert_eq!(
            loaded_project(&policy),
            (
                "Cargo.toml".to_owned(),
                "tool".to_owned(),
                vec!["cargo test".to_owned()]
            )
        );
        let workspace = project(&[("Cargo.toml", "[workspace.package]\nname = \"ws\"\n")]);
        assert_eq!(propose_at(workspace.path()).unwrap().project, "ws");
    }

    #[test]
    fn both_manifests_give_one_policy_matched_by_package_json() {
        let dir = project(&[
            (
                "package.json",
                r#"{ "name": "both", "scripts": { "test": "node --test" } }"#,
            ),
            ("Cargo.toml", "[workspace]\nmembers = []\n"),
        ]);
        let policy = propose_at(dir.path()).unwrap();
        assert_eq!(policy.manifest, "package.json");
        assert_eq!(policy.commands, ["npm test", "cargo test"]);
        loaded_project(&policy);
    }

    #[test]
    fn no_manifest_a_malformed_one_or_no_command_is_a_named_reason() {
        let none = project(&[]);
        assert_eq!(
            propose_at(none.path()),
            Err(NoProposal::NoManifest(none.path().to_path_buf()))
        );
        let bad_json = project(&[("package.json", "{ \"name\": ")]);
        let error = propose_at(bad_json.path()).unwrap_err().to_string();
        assert!(error.contains("package.json: is not valid JSON"), "{error}");
        let bad_toml = project(&[("Cargo.toml", "[package\n")]);
        let error = propose_at(bad_toml.path()).unwrap_err().to_string();
        assert!(error.contains("Cargo.toml: is not valid TOML"), "{error}");
        let unnamed = project(&[("Cargo.toml", "[workspace]\n")]);
        let error = propose_at(unnamed.path()).unwrap_err().to_string();
        assert!(error.contains("declares no project name"), "{error}");
        let no_scripts = project(&[(
            "package.json",
            r#"{ "name": "x", "scripts": { "build": "tsc" } }"#,
        )]);
        assert_eq!(
            propose_at(no_scripts.path()),
            Err(NoProposal::NoCommand(
                no_scripts.path().join("package.json")
            ))
        );
        let scripts_not_strings = project(&[(
            "package.json",
            r#"{ "name": "x", "scripts": { "test": 1 } }"#,
        )]);
        assert!(matches!(
            propose_at(scripts_not_strings.path()),
            Err(NoProposal::NoCommand(_))
        ));
    }

    #[test]
    fn a_hostile_name_is_escaped_into_the_policy_and_loads_unchanged() {
        let names = [
            "evil\" };\nfn evaluate(s) { loop {} }\n//",
            "back\\slash `${x}` \u{1b}[2J \u{202e} 名前 😀",
            "@scope/Pkg.Name",
            "\u{0}",
            // npm allows 214 characters; the id is cut to the contract's 64 bytes (found by the
            // `manifest` fuzz target: the proposed policy did not load).
            &"a-very-long-package-name".repeat(9),
        ];
        for name in names {
            let json = serde_json::json!({ "name": name, "scripts": { "test": "t" } }).to_string();
            let dir = project(&[("package.json", &json)]);
            let policy = propose_at(dir.path()).unwrap();
            assert!(
                policy
                    .id
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            );
            assert!(policy.id.len() <= 64 && policy.id.ends_with("-verification"));
            let (_, loaded, commands) = loaded_project(&policy);
            assert_eq!(loaded, name, "{}", policy.text);
            assert_eq!(commands, ["npm test"]);
            assert!(policy.text.lines().all(|line| !line.contains('\u{1b}')));
        }
        assert_eq!(policy_id("@scope/Pkg.Name"), "scope-pkg-name-verification");
        assert_eq!(policy_id("名前"), "project-verification");
    }

    #[test]
    fn a_fifo_manifest_is_a_reason_not_a_hang() {
        let dir = project(&[]);
        nix::unistd::mkfifo(
            &dir.path().join("package.json"),
            nix::sys::stat::Mode::S_IRWXU,
        )
        .unwrap();
        let error = propose_at(dir.path()).unwrap_err().to_string();
        assert!(error.contains("not a regular file"), "{error}");
    }
}

//! Owns the doctor's report on a config root: whether it exists and is trusted (the whole path
//! to it), the trust, load and compile status of its rule files (every rule compiled, problems
//! worded as `check` words them) and of each policy, the rules no policy consumes
//! (informational: they are delivered as their own message and note), the registry digest, and
//! the settings file (its values and problems).

use pi_native_hooks_base::Escaped;
use pi_native_hooks_base::{PolicyId, RuleId};
use pi_native_hooks_base::{RepoPath, relative_to};
use pi_native_hooks_compose::LoadedConfig;
use pi_native_hooks_config::ConfigSource;
use pi_native_hooks_config::settings::{LoadedSettings, SettingsOrigin};
use pi_native_hooks_policy::{PolicyKind, RootProblem};
use std::path::{Path, PathBuf};

/// The state of one policy file.
#[expect(missing_docs, reason = "the variant's doc names its fields")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PolicyHealth {
    /// Loaded with this id and kind.
    Loaded { id: PolicyId, kind: PolicyKind },
    /// Not loaded; the reason names file and line.
    Failed(String),
}

/// What the doctor found in one config root and its settings file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RootReport {
    /// The config root examined.
    pub root: PathBuf,
    /// `ok`, or what is wrong with the root itself.
    pub root_status: Result<(), RootProblem>,
    /// Problems with `sgconfig.yml` and the rule files (trust, YAML, compilation), worded as
    /// `check` words them.
    pub rule_problems: Vec<String>,
    /// How many rule files were read.
    pub rule_files: usize,
    /// How many rules compiled.
    pub rules: usize,
    /// The compiled rules no loaded diagnostic policy lists in its `RULES`, sorted. Not a
    /// problem: their findings reach the agent (and `check`) as the rule's message and note.
    pub unconsumed_rules: Vec<RuleId>,
    /// Each policy file and its state, in file order.
    pub policies: Vec<(PathBuf, PolicyHealth)>,
    /// The registry digest over the policies and rule files that were read.
    pub digest: String,
    /// The settings file: where the values come from, the values, the problems.
    pub settings: LoadedSettings,
}

impl RootReport {
    /// True when the root exists and is trusted and every rule and policy file loaded. Rules no
    /// policy consumes do not count against it.
    pub fn healthy(&self) -> bool {
        self.root_status.is_ok()
            && self.rule_problems.is_empty()
            && self.settings.problems.is_empty()
            && self
                .policies
                .iter()
                .all(|(_, h)| matches!(h, PolicyHealth::Loaded { .. }))
    }
}

/// Examines `root` without changing anything. The root is loaded by the same
/// [`LoadedConfig::load`] that `check` uses, so the doctor reports exactly the problems `check`
/// refuses to run with.
pub fn root_report(root: &Path) -> RootReport {
    examine(root).0
}

/// [`root_report`] with the config it loaded, for a report that goes on to match the
/// verification policies against a repository and to name the analyzers without loading the
/// root twice.
pub(crate) fn examine(root: &Path) -> (RootReport, LoadedConfig) {
    let config = LoadedConfig::load(&ConfigSource::Root(root.to_path_buf()));
    let registry = &config.registry;
    let root_status = registry.root_problem().map_or(Ok(()), Err);
    // The rules of a root that is absent or not trusted are not reported: the root's own problem
    // says what to do first.
    let (rule_texts, rule_problems, rule_ids): (Vec<(String, &str)>, Vec<String>, &[String]) =
        match &root_status {
            Err(_) => (Vec::new(), Vec::new(), &[]),
            Ok(()) => (
                config
                    .rule_files
                    .iter()
                    .map(|file| (relative(root, &file.path), file.text.as_str()))
                    .collect(),
                config
                    .rule_problems
                    .iter()
                    .map(ToString::to_string)
                    .collect(),
                config.rules.ids(),
            ),
        };
    let analyzer = config.source.analyzer_key();
    let unconsumed_rules: Vec<RuleId> = rule_ids
        .iter()
        .filter(|rule| !registry.consumes_rule(&analyzer, rule))
        .map(RuleId::from)
        .collect();
    let mut policies: Vec<(PathBuf, PolicyHealth)> = registry
        .policies()
        .iter()
        .map(|p| {
            let health = PolicyHealth::Loaded {
                id: p.contract.id.clone(),
                kind: p.contract.kind(),
            };
            (p.path.clone(), health)
        })
        .chain(
            registry
                .problems()
                .iter()
                .map(|p| (p.path.clone(), PolicyHealth::Failed(p.to_string()))),
        )
        .collect();
    policies.sort_by(|a, b| a.0.cmp(&b.0));
    let report = RootReport {
        root: root.to_path_buf(),
        digest: registry.digest_with(rule_texts.iter().map(|(p, t)| (p.as_str(), *t))),
        rule_files: rule_texts.len(),
        rules: rule_ids.len(),
        unconsumed_rules,
        root_status,
        rule_problems,
        policies,
        settings: config.settings.clone(),
    };
    (report, config)
}

/// A rule file's name under the root, or its full path if it is not under it.
fn relative(root: &Path, path: &Path) -> String {
    relative_to(root, path).map_or_else(|| path.display().to_string(), RepoPath::into_string)
}

/// The config root's sections as `pi-native-hooks doctor` and `/hooks-doctor` print them.
impl std::fmt::Display for RootReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "config root: {}", self.root.display())?;
        match &self.root_status {
            Ok(()) => writeln!(
                f,
                "  ok: exists, owned by you, neither it nor a directory above it writable by others"
            )?,
            Err(problem) => writeln!(f, "  problem: {problem}")?,
        }
        writeln!(
            f,
            "rules: {} file(s) read, {} rule(s) compiled",
            self.rule_files, self.rules
        )?;
        for problem in &self.rule_problems {
            writeln!(f, "  problem: {problem}")?;
        }
        for rule in &self.unconsumed_rules {
            writeln!(
                f,
                "  info: no policy consumes `{}`: its findings are delivered as the rule's message and note",
                Escaped(rule)
            )?;
        }
        writeln!(f, "policies: {}", self.policies.len())?;
        for (path, health) in &self.policies {
            match health {
                PolicyHealth::Loaded { id, kind } => {
                    writeln!(f, "  ok: {id} ({kind}) {}", path.display())?;
                }
                PolicyHealth::Failed(reason) => writeln!(f, "  failed: {reason}")?,
            }
        }
        writeln!(f, "registry digest: {}", self.digest)?;
        if self.root_status.is_ok() {
            write_settings(f, &self.settings)?;
        }
        Ok(())
    }
}

/// The settings section: where the values come from, each value in force, each problem.
fn write_settings(f: &mut std::fmt::Formatter<'_>, loaded: &LoadedSettings) -> std::fmt::Result {
    writeln!(f, "settings: {}", loaded.origin)?;
    // Without a file the values are the documented defaults.
    if matches!(loaded.origin, SettingsOrigin::File(_)) {
        write!(f, "{}", loaded.settings)?;
    }
    for problem in &loaded.problems {
        writeln!(f, "  problem: {problem}")?;
    }
    Ok(())
}

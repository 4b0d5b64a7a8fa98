//! The policy registry: every policy of a config root (or of the built-in pack) compiled once,
//! validated, with the files that failed and why, the digest of what was read, and reloads that
//! report a previously loaded policy that now fails as degraded.

pub(crate) mod contract;
pub(crate) mod digest;
pub(crate) mod failure;
pub(crate) mod literal;
pub(crate) mod source;

use crate::sandbox::Sandbox;
use contract::{DiagnosticSpec, PolicyContract, PolicySpec, read_contract};
use digest::{RequirementDigest, registry_digest, requirement_digests};
use failure::{PolicyProblem, ProblemReason};
use pi_native_hooks_base::PolicyId;
use pi_native_hooks_config::AnalyzerKey;
use pi_native_hooks_config::trust::TrustError;
use rhai::AST;
use source::{PolicySource, RootPolicies, builtin_sources, read_root};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where a registry's policies came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegistrySource {
    /// A personal config root that exists.
    Root(PathBuf),
    /// The config root does not exist: nothing is loaded (see [`PolicyRegistry::guidance`]).
    Absent(PathBuf),
    /// The config root or its `policies/` directory failed a trust check: nothing is loaded.
    Untrusted(PathBuf, TrustError),
    /// The built-in pack compiled into the binary.
    Builtin,
}

/// Why a config root loaded nothing. Its text is the guidance the status and `doctor` show.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RootProblem {
    /// The root does not exist.
    #[error(
        "no personal config at {}; create it with /hooks-init in Pi or `pi-native-hooks init` in a terminal (the built-in rules and diagnostic policies apply meanwhile, without verification)",
        .0.display()
    )]
    Absent(PathBuf),
    /// The root or its `policies/` directory failed a trust check.
    #[error("the personal config is not trusted, nothing was loaded: {0}")]
    Untrusted(TrustError),
}

/// A policy that compiled and passed validation.
#[derive(Clone, Debug)]
pub struct LoadedPolicy {
    /// The file, as problems and failures name it.
    pub path: PathBuf,
    /// The validated metadata.
    pub contract: PolicyContract,
    pub(crate) ast: Arc<AST>,
    /// SHA-256 of the policy text: what the `affects` cache is keyed by.
    pub(crate) digest: Arc<str>,
    /// A verification policy's requirements by id, with what defines each (empty for a
    /// diagnostic policy).
    requirement_digests: BTreeMap<String, RequirementDigest>,
}

impl LoadedPolicy {
    /// The digest of what defines requirement `id` of this verification policy.
    pub fn requirement_digest(&self, id: &str) -> Option<&RequirementDigest> {
        self.requirement_digests.get(id)
    }
}

/// The loaded policies of one config root. Immutable; reload by building a new one.
#[derive(Clone, Debug)]
pub struct PolicyRegistry {
    source: RegistrySource,
    pub(crate) sandbox: Arc<Sandbox>,
    policies: Vec<LoadedPolicy>,
    problems: Vec<PolicyProblem>,
    files: Vec<(String, String)>,
}

impl PolicyRegistry {
    /// Loads `<root>/policies/*.rhai` with the default sandbox. An absent root gives an empty,
    /// inactive registry.
    pub fn load(root: &Path) -> Self {
        Self::load_with(root, Arc::new(Sandbox::default()))
    }

    /// Loads `<root>/policies/*.rhai` into `sandbox`.
    pub fn load_with(root: &Path, sandbox: Arc<Sandbox>) -> Self {
        match read_root(root) {
            RootPolicies::Absent => {
                Self::empty(RegistrySource::Absent(root.to_path_buf()), sandbox)
            }
            RootPolicies::Untrusted(error) => Self::empty(
                RegistrySource::Untrusted(root.to_path_buf(), error),
                sandbox,
            ),
            RootPolicies::Files(files) => {
                Self::build(RegistrySource::Root(root.to_path_buf()), files, sandbox)
            }
        }
    }

    /// The built-in pack (the repository's `policies/`), with the default sandbox.
    pub fn builtin() -> Self {
        Self::build(
            RegistrySource::Builtin,
            builtin_sources(),
            Arc::new(Sandbox::default()),
        )
    }

    /// The personal policies when `root` exists, otherwise the built-in pack.
    pub fn personal_or_builtin(root: &Path) -> Self {
        let personal = Self::load(root);
        if matches!(personal.source, RegistrySource::Absent(_)) {
            Self::builtin()
        } else {
            personal
        }
    }

    /// Builds a registry from already-read sources (used by loading and by tests).
    pub fn from_sources(
        source: RegistrySource,
        files: Vec<PolicySource>,
        sandbox: Arc<Sandbox>,
    ) -> Self {
        Self::build(source, files, sandbox)
    }

    /// Loads the same source again. A policy file that the previous registry (`self`) had loaded
    /// and that now fails is reported with [`PolicyProblem::degraded_from`] set.
    #[must_use]
    pub fn reload(&self) -> Self {
        let next = match &self.source {
            RegistrySource::Builtin => Self::builtin(),
            RegistrySource::Root(root)
            | RegistrySource::Absent(root)
            | RegistrySource::Untrusted(root, _) => {
                Self::load_with(root, Arc::clone(&self.sandbox))
            }
        };
        self.mark_degraded(next)
    }

    /// Marks the problems of `next` whose file this registry had loaded as degraded.
    #[must_use]
    pub fn mark_degraded(&self, mut next: Self) -> Self {
        let before: HashMap<&Path, &str> = self
            .policies
            .iter()
            .map(|p| (p.path.as_path(), p.contract.id.as_str()))
            .collect();
        for problem in &mut next.problems {
            if let Some(id) = before.get(problem.path.as_path()) {
                problem.degraded_from = Some((*id).to_owned());
            }
        }
        next
    }

    fn empty(source: RegistrySource, sandbox: Arc<Sandbox>) -> Self {
        Self {
            source,
            sandbox,
            policies: Vec::new(),
            problems: Vec::new(),
            files: Vec::new(),
        }
    }

    fn build(source: RegistrySource, sources: Vec<PolicySource>, sandbox: Arc<Sandbox>) -> Self {
        let mut registry = Self::empty(source, sandbox);
        let mut ids: HashMap<PolicyId, PathBuf> = HashMap::new();
        for PolicySource {
            path,
            relative,
            text,
        } in sources
        {
            let loaded = text
                .map_err(ProblemReason::Untrusted)
                .inspect(|text| registry.files.push((relative, text.clone())))
                .and_then(|text| registry.compile(&path, &text));
            let loaded = loaded.and_then(|policy| {
                if let Some(first) = ids.get(&policy.contract.id) {
                    Err(ProblemReason::DuplicateId {
                        id: policy.contract.id,
                        first: first.clone(),
                    })
                } else {
                    ids.insert(policy.contract.id.clone(), path.clone());
                    Ok(policy)
                }
            });
            match loaded {
                Ok(policy) => registry.policies.push(policy),
                Err(reason) => registry.problems.push(PolicyProblem {
                    path,
                    reason,
                    degraded_from: None,
                }),
            }
        }
        registry
    }

    fn compile(&self, path: &Path, text: &str) -> Result<LoadedPolicy, ProblemReason> {
        let ast = self.sandbox.compile(text).map_err(ProblemReason::Compile)?;
        let contract = read_contract(&ast, text).map_err(ProblemReason::Contract)?;
        let requirement_digests = match &contract.spec {
            PolicySpec::Verification(spec) => requirement_digests(
                self.sandbox.engine(),
                &ast,
                contract.id.as_str(),
                text,
                spec,
            ),
            PolicySpec::Diagnostic(_) => BTreeMap::new(),
        };
        Ok(LoadedPolicy {
            path: path.to_path_buf(),
            contract,
            ast: Arc::new(ast),
            digest: registry_digest([("", text)]).into(),
            requirement_digests,
        })
    }

    /// Where the policies came from.
    pub fn source(&self) -> &RegistrySource {
        &self.source
    }

    /// False when nothing could be loaded because the root is absent or untrusted.
    pub fn is_active(&self) -> bool {
        matches!(
            self.source,
            RegistrySource::Root(_) | RegistrySource::Builtin
        )
    }

    /// What to do when the registry is inactive.
    pub fn guidance(&self) -> Option<String> {
        self.root_problem().map(|problem| problem.to_string())
    }

    /// Why the config root gave no policies, when it is absent or not trusted.
    pub fn root_problem(&self) -> Option<RootProblem> {
        match &self.source {
            RegistrySource::Absent(root) => Some(RootProblem::Absent(root.clone())),
            RegistrySource::Untrusted(_, error) => Some(RootProblem::Untrusted(error.clone())),
            RegistrySource::Root(_) | RegistrySource::Builtin => None,
        }
    }

    /// The loaded policies, in file order.
    pub fn policies(&self) -> &[LoadedPolicy] {
        &self.policies
    }

    /// The loaded diagnostic policies that consume snapshots of `analyzer` (their `ANALYZER`
    /// selects it), in file order.
    pub fn diagnostic_consumers<'a>(
        &'a self,
        analyzer: &'a AnalyzerKey,
    ) -> impl Iterator<Item = (&'a LoadedPolicy, &'a DiagnosticSpec)> {
        self.policies
            .iter()
            .filter_map(move |policy| match &policy.contract.spec {
                PolicySpec::Diagnostic(spec) if spec.accepts_analyzer(analyzer) => {
                    Some((policy, spec))
                }
                PolicySpec::Diagnostic(_) | PolicySpec::Verification(_) => None,
            })
    }

    /// True when a loaded diagnostic policy consuming `analyzer` lists `rule` in its `RULES`:
    /// its diagnostics then speak for the rule's findings. A rule no policy consumes is delivered
    /// as its own message and note, in Pi as by `check`.
    pub fn consumes_rule(&self, analyzer: &AnalyzerKey, rule: &str) -> bool {
        self.diagnostic_consumers(analyzer)
            .any(|(_, spec)| spec.selects(rule))
    }

    /// The loaded policy with `id`.
    pub fn policy(&self, id: &str) -> Option<&LoadedPolicy> {
        self.policies.iter().find(|p| p.contract.id == id)
    }

    /// The files that were not loaded, with the reason.
    pub fn problems(&self) -> &[PolicyProblem] {
        &self.problems
    }

    /// The policy files that were read (root-relative path, content), for the registry digest.
    pub fn files(&self) -> impl Iterator<Item = (&str, &str)> {
        self.files
            .iter()
            .map(|(path, text)| (path.as_str(), text.as_str()))
    }

    /// The digest of the policy files plus `rule_files` (root-relative path, content).
    pub fn digest_with<'a>(
        &'a self,
        rule_files: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> String {
        registry_digest(self.files().chain(rule_files))
    }
}

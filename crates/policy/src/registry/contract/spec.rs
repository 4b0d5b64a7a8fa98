//! The validated contract's types: a policy's kind, id and description, and what each kind
//! declares (the rules a diagnostic policy consumes; the project and requirements of a
//! verification policy).

use pi_native_hooks_analysis::AnalyzerKey;
use pi_native_hooks_base::{PolicyId, RuleId};
use std::fmt;

/// What a policy is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PolicyKind {
    /// Turns analyzer findings into guidance (`fn evaluate(snapshot)`).
    Diagnostic,
    /// Names the commands a project requires after relevant changes.
    Verification,
}

impl fmt::Display for PolicyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PolicyKind::Diagnostic => "diagnostic",
            PolicyKind::Verification => "verification",
        })
    }
}

/// A validated policy's metadata.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyContract {
    /// `ID`: unique across the loaded policies; lowercase letters, digits and `-`.
    pub id: PolicyId,
    /// `DESCRIPTION`, if given.
    pub description: Option<String>,
    /// The kind-specific part.
    pub spec: PolicySpec,
}

impl PolicyContract {
    /// Follows from [`Self::spec`]'s variant.
    pub fn kind(&self) -> PolicyKind {
        match self.spec {
            PolicySpec::Diagnostic(_) => PolicyKind::Diagnostic,
            PolicySpec::Verification(_) => PolicyKind::Verification,
        }
    }
}

/// The kind-specific metadata.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PolicySpec {
    /// `KIND = "diagnostic"`.
    Diagnostic(DiagnosticSpec),
    /// `KIND = "verification"`.
    Verification(VerificationSpec),
}

/// What a diagnostic policy consumes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiagnosticSpec {
    /// `ANALYZER`: `ast-grep` matches every ast-grep snapshot (`ast-grep:personal`,
    /// `ast-grep:builtin`); a qualified key matches only itself.
    pub analyzer: String,
    /// `RULES`: the rule ids whose findings the policy sees; an entry ending in `*` selects every
    /// rule id that starts with what precedes it (`"TS*"`: every TypeScript error code).
    pub rules: Vec<RuleId>,
}

/// True when `rule` is selected by one of `rules`: the same id, or an entry ending in `*` whose
/// prefix it starts with.
pub(crate) fn rule_selected<'a>(rules: impl IntoIterator<Item = &'a RuleId>, rule: &str) -> bool {
    rules.into_iter().any(|entry| {
        let entry = entry.as_str();
        entry == rule
            || entry
                .strip_suffix('*')
                .is_some_and(|prefix| rule.starts_with(prefix))
    })
}

impl DiagnosticSpec {
    /// True when `RULES` selects `rule`.
    pub fn selects(&self, rule: &str) -> bool {
        rule_selected(&self.rules, rule)
    }

    /// True when this policy consumes snapshots produced by `analyzer`.
    pub fn accepts_analyzer(&self, analyzer: &AnalyzerKey) -> bool {
        analyzer.is_selected_by(&self.analyzer)
    }
}

/// What a verification policy requires.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerificationSpec {
    /// `PROJECT`: which project the requirements belong to.
    pub project: ProjectSpec,
    /// `REQUIREMENTS`, in declaration order.
    pub requirements: Vec<Requirement>,
}

/// `PROJECT = #{ manifest, name }`, optionally with `dir`; or `PROJECT = #{ manifests }`,
/// optionally with `name`, for one project per manifest a glob matches.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ProjectSpec {
    /// The manifest file in the project directory, e.g. `Cargo.toml` or `package.json` (for
    /// `manifests`, the glob's last component).
    pub manifest: String,
    /// The project's name; empty for a `manifests` glob without `name` (any declared name).
    pub name: String,
    /// `PROJECT.dir`: the project directory relative to the repository root (`packages/a`),
    /// `/`-separated, without `.` or `..` components; `None` for the repository root. Left out
    /// of the serialized form when absent, so the digest of a root project is what it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dir: Option<String>,
    /// `PROJECT.manifests`: a glob of manifest paths relative to the repository root
    /// (`packages/*/package.json`); each match is a project of its own, in the manifest's
    /// directory. Never with `dir`. Left out of the serialized form when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub manifests: Option<String>,
}

/// One entry of `REQUIREMENTS`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Requirement {
    /// Unique within the policy.
    pub id: String,
    /// The exact command, trimmed of ASCII spaces, tabs and newlines
    /// ([`trim_command`](super::trim_command)); run from the project root, never parsed as
    /// shell. Holds no other control, Unicode space or invisible character
    /// ([`unsafe_command_char`](super::unsafe_command_char)).
    pub command: String,
    /// The name of the policy's `fn <name>(path)` deciding whether a changed path needs it.
    pub affects: String,
    /// `dir`: the directory the command must run in, relative to the project directory, in the
    /// form of [`ProjectSpec::dir`]; `None` for the project directory itself. Left out of the
    /// serialized form when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dir: Option<String>,
}

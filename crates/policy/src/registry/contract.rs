//! The policy contract: the metadata a policy declares as top-level `const NAME = <literal>;`
//! statements, read from the syntax tree without running code, and its structural validation.
//! Every problem names the line it was found on.

use crate::registry::literal::{self, Literal, Value};
use pi_native_hooks_analysis::AnalyzerKey;
use pi_native_hooks_base::{PolicyId, RuleId};
use rhai::{AST, ASTFlags, Stmt};
use std::collections::{BTreeMap, HashSet};
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
    /// The exact command, trimmed of ASCII spaces, tabs and newlines ([`trim_command`]); run
    /// from the project root, never parsed as shell. Holds no other control, Unicode space or
    /// invisible character ([`unsafe_command_char`]).
    pub command: String,
    /// The name of the policy's `fn <name>(path)` deciding whether a changed path needs it.
    pub affects: String,
    /// `dir`: the directory the command must run in, relative to the project directory, in the
    /// form of [`ProjectSpec::dir`]; `None` for the project directory itself. Left out of the
    /// serialized form when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dir: Option<String>,
}

/// The blanks stripped from both ends of a required command and of a `bash` call's command: the
/// ASCII space, tab and newline bash splits words on. Unicode spaces, `\r` or `\v` are not blanks
/// to bash (`cargo test\u{a0}` runs `cargo test` with a test filter), so they are never stripped.
pub(crate) const COMMAND_BLANKS: [char; 3] = [' ', '\t', '\n'];

/// `command` without [`COMMAND_BLANKS`] at its ends.
pub fn trim_command(command: &str) -> &str {
    command.trim_matches(COMMAND_BLANKS)
}

/// The first character of `command` (index in characters, and the character) that a required
/// command may not hold: a control character other than tab and newline, a Unicode space
/// character other than the ASCII space, or an invisible formatting character (zero-width
/// spaces and joiners, the byte-order mark, bidirectional controls, the soft hyphen). A policy
/// whose command holds one does not load, and a `bash` call whose command holds one is never a
/// run of any requirement.
pub fn unsafe_command_char(command: &str) -> Option<(usize, char)> {
    command.chars().enumerate().find(|(_, c)| {
        !COMMAND_BLANKS.contains(c)
            && (c.is_control()
                || c.is_whitespace()
                || matches!(
                    c,
                    '\u{00AD}'
                        | '\u{061C}'
                        | '\u{180E}'
                        | '\u{200B}'..='\u{200F}'
                        | '\u{202A}'..='\u{202E}'
                        | '\u{2060}'..='\u{2064}'
                        | '\u{2066}'..='\u{206F}'
                        | '\u{FEFF}'
                ))
    })
}

/// `U+00A0`.
fn code_point(c: char) -> String {
    format!("U+{:04X}", u32::from(c))
}

/// One structural problem in a policy, with its 1-based line when known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContractError {
    /// The line the problem is on.
    pub line: Option<usize>,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl fmt::Display for ContractError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "line {line}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

const COMMON_FIELDS: &[&str] = &["ID", "KIND", "DESCRIPTION"];
const DIAGNOSTIC_FIELDS: &[&str] = &["ANALYZER", "RULES"];
const VERIFICATION_FIELDS: &[&str] = &["PROJECT", "REQUIREMENTS"];

/// Collects problems while reading fields.
#[derive(Default)]
struct Problems(Vec<ContractError>);

impl Problems {
    fn at(&mut self, line: usize, message: impl Into<String>) {
        self.0.push(ContractError {
            line: (line > 0).then_some(line),
            message: message.into(),
        });
    }
}

/// Reads and validates the contract of a compiled policy. `source` is only used to find the
/// line of a function definition. Returns every problem found, not just the first.
pub(crate) fn read_contract(ast: &AST, source: &str) -> Result<PolicyContract, Vec<ContractError>> {
    let mut problems = Problems::default();
    let consts = read_consts(ast, &mut problems);
    let id = required(&consts, "ID", &mut problems).and_then(|l| string(l, "ID", &mut problems));
    if let Some(id) = &id
        && !is_valid_id(id)
    {
        problems.at(
            consts["ID"].line,
            format!(
                "`ID` {id:?} must be 1 to 64 lowercase letters, digits and `-`, not starting \
                 with `-`"
            ),
        );
    }
    let description = consts
        .get("DESCRIPTION")
        .and_then(|l| string(l, "DESCRIPTION", &mut problems));
    let kind =
        required(&consts, "KIND", &mut problems).and_then(|l| string(l, "KIND", &mut problems));
    let functions = Functions::of(ast, source);
    let spec = match kind.as_deref() {
        Some("diagnostic") => {
            check_known(&consts, DIAGNOSTIC_FIELDS, &mut problems);
            diagnostic_spec(&consts, &functions, &mut problems).map(PolicySpec::Diagnostic)
        }
        Some("verification") => {
            check_known(&consts, VERIFICATION_FIELDS, &mut problems);
            verification_spec(&consts, &functions, &mut problems).map(PolicySpec::Verification)
        }
        Some(other) => {
            problems.at(
                consts["KIND"].line,
                format!("`KIND` must be \"diagnostic\" or \"verification\", not {other:?}"),
            );
            None
        }
        None => None,
    };
    match (id, spec) {
        (Some(id), Some(spec)) if problems.0.is_empty() => Ok(PolicyContract {
            id: id.into(),
            description,
            spec,
        }),
        _ => Err(problems.0),
    }
}

fn is_valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !id.starts_with('-')
}

fn read_consts(ast: &AST, problems: &mut Problems) -> BTreeMap<String, Literal> {
    let mut consts = BTreeMap::new();
    for stmt in ast.statements() {
        let line = stmt.position().line().unwrap_or(0);
        match stmt {
            Stmt::Var(var, flags, _) if flags.contains(ASTFlags::CONSTANT) => {
                let (ident, expr, _) = var.as_ref();
                match literal::read(expr) {
                    Ok(value) => {
                        if consts.insert(ident.name.to_string(), value).is_some() {
                            problems.at(line, format!("`{}` is declared twice", ident.name));
                        }
                    }
                    Err(at) => problems.at(
                        at.max(line),
                        format!(
                            "`{}` must be a literal value (no variables, calls or operators)",
                            ident.name
                        ),
                    ),
                }
            }
            Stmt::Noop(_) => {}
            _ => problems.at(
                line,
                "only `const NAME = <literal>;` and `fn` definitions are allowed at the top level",
            ),
        }
    }
    consts
}

fn check_known(consts: &BTreeMap<String, Literal>, kind_fields: &[&str], problems: &mut Problems) {
    for (name, literal) in consts {
        if !COMMON_FIELDS.contains(&name.as_str()) && !kind_fields.contains(&name.as_str()) {
            let allowed = COMMON_FIELDS
                .iter()
                .chain(kind_fields)
                .copied()
                .collect::<Vec<_>>()
                .join(", ");
            let hint = pi_native_hooks_base::did_you_mean(
                name,
                COMMON_FIELDS.iter().chain(kind_fields).copied(),
            );
            problems.at(
                literal.line,
                format!("unknown field `{name}` (allowed: {allowed}){hint}"),
            );
        }
    }
}

fn required<'a>(
    consts: &'a BTreeMap<String, Literal>,
    name: &str,
    problems: &mut Problems,
) -> Option<&'a Literal> {
    let found = consts.get(name);
    if found.is_none() {
        problems.at(0, format!("missing `const {name}`"));
    }
    found
}

fn string(literal: &Literal, what: &str, problems: &mut Problems) -> Option<String> {
    match &literal.value {
        Value::Str(text) if !text.trim().is_empty() => Some(text.clone()),
        Value::Str(_) => {
            problems.at(literal.line, format!("`{what}` must not be empty"));
            None
        }
        other => {
            problems.at(
                literal.line,
                format!("`{what}` must be a string, not {}", other.type_name()),
            );
            None
        }
    }
}

/// The script's functions by name, with their arities and definition lines.
struct Functions<'s> {
    arities: BTreeMap<String, Vec<usize>>,
    source: &'s str,
}

impl<'s> Functions<'s> {
    fn of(ast: &AST, source: &'s str) -> Self {
        let mut arities: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for function in ast.iter_functions() {
            arities
                .entry(function.name.to_owned())
                .or_default()
                .push(function.params.len());
        }
        Self { arities, source }
    }

    /// Checks that `fn name(..)` exists with `arity` parameters; `line` is where it is required.
    fn require(
        &self,
        name: &str,
        arity: usize,
        signature: &str,
        line: usize,
        problems: &mut Problems,
    ) {
        match self.arities.get(name) {
            Some(arities) if arities.contains(&arity) => {}
            Some(arities) => problems.at(
                self.line_of(name).unwrap_or(line),
                format!(
                    "`fn {name}` takes {} parameter(s); expected `fn {signature}`",
                    arities[0]
                ),
            ),
            None => problems.at(line, format!("missing function `fn {signature}`")),
        }
    }

    fn line_of(&self, name: &str) -> Option<usize> {
        self.source
            .lines()
            .position(|text| {
                let text = text.trim_start();
                let text = text.strip_prefix("private ").unwrap_or(text);
                text.strip_prefix("fn ")
                    .and_then(|rest| rest.trim_start().strip_prefix(name))
                    .is_some_and(|rest| rest.trim_start().starts_with('('))
            })
            .map(|index| index + 1)
    }
}

fn diagnostic_spec(
    consts: &BTreeMap<String, Literal>,
    functions: &Functions<'_>,
    problems: &mut Problems,
) -> Option<DiagnosticSpec> {
    let kind_line = consts.get("KIND").map_or(0, |l| l.line);
    functions.require("evaluate", 1, "evaluate(snapshot)", kind_line, problems);
    let analyzer =
        required(consts, "ANALYZER", problems).and_then(|l| string(l, "ANALYZER", problems));
    let rules = required(consts, "RULES", problems).and_then(|literal| match &literal.value {
        Value::Array(items) if !items.is_empty() => {
            let rules: Vec<RuleId> = items
                .iter()
                .filter_map(|item| string(item, "RULES entry", problems).map(RuleId::from))
                .collect();
            (rules.len() == items.len()).then_some(rules)
        }
        Value::Array(_) => {
            problems.at(literal.line, "`RULES` must name at least one rule id");
            None
        }
        other => {
            problems.at(
                literal.line,
                format!(
                    "`RULES` must be an array of rule ids, not {}",
                    other.type_name()
                ),
            );
            None
        }
    });
    Some(DiagnosticSpec {
        analyzer: analyzer?,
        rules: rules?,
    })
}

fn verification_spec(
    consts: &BTreeMap<String, Literal>,
    functions: &Functions<'_>,
    problems: &mut Problems,
) -> Option<VerificationSpec> {
    let project = required(consts, "PROJECT", problems).and_then(|l| project(l, problems));
    let requirements =
        required(consts, "REQUIREMENTS", problems).and_then(|literal| match &literal.value {
            Value::Array(items) if !items.is_empty() => {
                let mut seen = HashSet::new();
                let mut requirements = Vec::new();
                for item in items {
                    let requirement = map_fields(
                        item,
                        "requirement",
                        &["id", "command", "affects", "dir"],
                        1,
                        problems,
                    )?;
                    let [id, command, affects, dir] = requirement;
                    let dir = match dir {
                        Some(dir) => Some(directory(dir, "requirement `dir`", problems)?),
                        None => None,
                    };
                    let id = string(id?, "requirement `id`", problems)?;
                    if !seen.insert(id.clone()) {
                        problems.at(item.line, format!("duplicate requirement id {id:?}"));
                    }
                    let command_literal = command?;
                    let command = string(command_literal, "requirement `command`", problems)?;
                    let command = trim_command(&command).to_owned();
                    if let Some((index, c)) = unsafe_command_char(&command) {
                        problems.at(
                            command_literal.line,
                            format!(
                                "requirement `command` {command:?} contains {} at character {}: \
                                 only ASCII spaces, tabs and newlines may separate its words, and \
                                 no other control, space or invisible character may appear (bash \
                                 does not split on them, so a run could not be told apart from a \
                                 different command); retype it",
                                code_point(c),
                                index + 1
                            ),
                        );
                    }
                    let affects_literal = affects?;
                    let affects = string(affects_literal, "requirement `affects`", problems)?;
                    functions.require(
                        &affects,
                        1,
                        &format!("{affects}(path)"),
                        affects_literal.line,
                        problems,
                    );
                    requirements.push(Requirement {
                        id,
                        command,
                        affects,
                        dir,
                    });
                }
                (requirements.len() == items.len()).then_some(requirements)
            }
            Value::Array(_) => {
                problems.at(
                    literal.line,
                    "`REQUIREMENTS` must list at least one requirement",
                );
                None
            }
            other => {
                problems.at(
                    literal.line,
                    format!(
                        "`REQUIREMENTS` must be an array of maps, not {}",
                        other.type_name()
                    ),
                );
                None
            }
        });
    Some(VerificationSpec {
        project: project?,
        requirements: requirements?,
    })
}

fn project(literal: &Literal, problems: &mut Problems) -> Option<ProjectSpec> {
    if let Value::Map(entries) = &literal.value
        && entries.iter().any(|(key, _, _)| key == "manifests")
    {
        return manifests_project(literal, problems);
    }
    let [manifest, name, dir] = map_fields(
        literal,
        "`PROJECT`",
        &["manifest", "name", "dir"],
        1,
        problems,
    )?;
    let dir = match dir {
        Some(dir) => Some(directory(dir, "`PROJECT.dir`", problems)?),
        None => None,
    };
    let manifest = string(manifest?, "`PROJECT.manifest`", problems)?;
    if manifest.contains('/') || manifest.contains('\\') || manifest == ".." {
        problems.at(
            literal.line,
            format!("`PROJECT.manifest` must be a file name at the project root, not {manifest:?}"),
        );
        return None;
    }
    Some(ProjectSpec {
        manifest,
        name: string(name?, "`PROJECT.name`", problems)?,
        dir,
        manifests: None,
    })
}

/// `PROJECT = #{ manifests: "packages/*/package.json" }`, optionally with `name`: the glob must
/// compile, stay inside the repository (relative, `/`-separated, no `.` or `..` components) and
/// end in a literal manifest file name.
fn manifests_project(literal: &Literal, problems: &mut Problems) -> Option<ProjectSpec> {
    let [manifests, name] = map_fields(literal, "`PROJECT`", &["manifests", "name"], 1, problems)?;
    let name = match name {
        Some(name) => string(name, "`PROJECT.name`", problems)?,
        None => String::new(),
    };
    let glob = string(manifests?, "`PROJECT.manifests`", problems)?;
    let fault = |what: String| {
        format!(
            "`PROJECT.manifests` must be a glob of manifest paths relative to the repository \
             root, such as \"packages/*/package.json\": {what}"
        )
    };
    let components: Vec<&str> = glob.split('/').collect();
    if let Some(component) = components.iter().find(|component| {
        component.is_empty()
            || **component == "."
            || **component == ".."
            || component.contains('\\')
            || component.chars().any(char::is_control)
    }) {
        problems.at(
            literal.line,
            fault(format!("{glob:?} has the component {component:?}")),
        );
        return None;
    }
    let manifest = components.last().copied().unwrap_or_default();
    if manifest.contains(['*', '?', '[', '{']) {
        problems.at(
            literal.line,
            fault(format!(
                "{glob:?} ends in a pattern; end it in the manifest's file name"
            )),
        );
        return None;
    }
    if let Err(error) = globset::GlobBuilder::new(&glob)
        .literal_separator(true)
        .build()
    {
        problems.at(
            literal.line,
            fault(format!("{glob:?} is not a valid glob: {error}")),
        );
        return None;
    }
    Some(ProjectSpec {
        manifest: manifest.to_owned(),
        name,
        dir: None,
        manifests: Some(glob),
    })
}

/// A directory relative to the repository (or project) root: `/`-separated normal components
/// only, so it can neither leave the root nor name it twice (`a/./b`, `a//b`, `a/`).
fn directory(literal: &Literal, what: &str, problems: &mut Problems) -> Option<String> {
    let dir = string(literal, what, problems)?;
    let bad = dir.split('/').find(|component| {
        component.is_empty()
            || *component == "."
            || *component == ".."
            || component.contains('\\')
            || component.chars().any(char::is_control)
    });
    if let Some(component) = bad {
        problems.at(
            literal.line,
            format!(
                "{what} must be a relative directory such as \"packages/app\" (`/`-separated, no \
                 leading or trailing `/`, no `.` or `..`), not {dir:?} (component {component:?}); \
                 leave it out for the root"
            ),
        );
        return None;
    }
    if unsafe_command_char(&dir).is_some() {
        problems.at(
            literal.line,
            format!("{what} {dir:?} contains a space, control or invisible character other than an ASCII space"),
        );
        return None;
    }
    Some(dir)
}

/// Reads a map literal with the keys `keys` and no others: all of them must be
/// present, the last `optional` may be left out.
fn map_fields<'a, const N: usize>(
    literal: &'a Literal,
    what: &str,
    keys: &[&str; N],
    optional: usize,
    problems: &mut Problems,
) -> Option<[Option<&'a Literal>; N]> {
    let Value::Map(entries) = &literal.value else {
        problems.at(
            literal.line,
            format!(
                "{what} must be an object map `#{{...}}`, not {}",
                literal.value.type_name()
            ),
        );
        return None;
    };
    let mut found = [None; N];
    for (key, line, value) in entries {
        match keys.iter().position(|k| k == key) {
            Some(index) => found[index] = Some(value),
            None => problems.at(
                *line,
                format!(
                    "unknown field `{key}` in {what} (allowed: {})",
                    keys.join(", ")
                ),
            ),
        }
    }
    for (key, value) in keys.iter().zip(&found).take(N - optional) {
        if value.is_none() {
            problems.at(literal.line, format!("{what} is missing field `{key}`"));
        }
    }
    Some(found)
}

#[cfg(test)]
mod tests {
    //! The policy contract is read from the syntax tree and every violation names its line.

    use super::*;
    use crate::Sandbox;

    fn errors(script: &str) -> Vec<ContractError> {
        let ast = Sandbox::default().compile(script).expect("compiles");
        read_contract(&ast, script).expect_err("should be invalid")
    }

    fn has(errors: &[ContractError], line: Option<usize>, needle: &str) -> bool {
        errors
            .iter()
            .any(|e| e.line == line && e.message.contains(needle))
    }

    const DIAGNOSTIC: &str = r#"const ID = "demo";
const KIND = "diagnostic";
const ANALYZER = "ast-grep";
const RULES = ["rule-a", "rule-b"];
fn evaluate(snapshot) { [] }
"#;

    #[test]
    fn valid_diagnostic_policy_is_read_without_running_it() {
        let script = format!("{DIAGNOSTIC}fn never_called() {{ loop {{}} }}\n");
        let ast = Sandbox::default().compile(&script).unwrap();
        let contract = read_contract(&ast, &script).unwrap();
        assert_eq!(contract.id, "demo");
        assert_eq!(contract.kind(), PolicyKind::Diagnostic);
        let PolicySpec::Diagnostic(spec) = contract.spec else {
            panic!("diagnostic")
        };
        assert_eq!(spec.rules, ["rule-a", "rule-b"]);
        assert!(spec.accepts_analyzer(&"ast-grep:personal".into()));
        assert!(spec.accepts_analyzer(&"ast-grep".into()));
        assert!(!spec.accepts_analyzer(&"ast-grepx".into()));
    }

    #[test]
    fn valid_verification_policy_is_read() {
        let script = r#"const ID = "v";
const KIND = "verification";
const PROJECT = #{ manifest: "Cargo.toml", name: "demo" };
const REQUIREMENTS = [#{ id: "test", command: "  cargo test  ", affects: "code" }];
fn code(path) { path.ends_with(".rs") }
"#;
        let ast = Sandbox::default().compile(script).unwrap();
        let PolicySpec::Verification(spec) = read_contract(&ast, script).unwrap().spec else {
            panic!()
        };
        assert_eq!(spec.project.manifest, "Cargo.toml");
        assert_eq!(spec.requirements[0].command, "cargo test", "trimmed only");
        assert_eq!(spec.requirements[0].affects, "code");
    }

    fn verification_with_project(project: &str) -> String {
        format!(
            "const ID = \"v\";\nconst KIND = \"verification\";\nconst PROJECT = {project};\nconst REQUIREMENTS = [#{{ id: \"t\", command: \"npm test\", affects: \"f\" }}];\nfn f(p) {{ true }}\n"
        )
    }

    #[test]
    fn a_glob_of_manifests_is_read_with_or_without_a_name() {
        for (project, name) in [
            (r#"#{ manifests: "packages/*/package.json" }"#, ""),
            (
                r#"#{ manifests: "crates/**/Cargo.toml", name: "core" }"#,
                "core",
            ),
        ] {
            let script = verification_with_project(project);
            let ast = Sandbox::default().compile(&script).unwrap();
            let PolicySpec::Verification(spec) = read_contract(&ast, &script).unwrap().spec else {
                panic!()
            };
            assert_eq!(spec.project.name, name);
            assert_eq!(spec.project.dir, None);
            let glob = spec.project.manifests.as_deref().expect("the glob");
            assert!(glob.ends_with(&spec.project.manifest), "{glob}");
        }
    }

    #[test]
    fn a_bad_glob_of_manifests_is_named_with_its_line() {
        for (project, needle) in [
            (
                r#"#{ manifests: "../*/package.json" }"#,
                "has the component \"..\"",
            ),
            (
                r#"#{ manifests: "/packages/*/package.json" }"#,
                "has the component \"\"",
            ),
            (
                r#"#{ manifests: "packages/*/*.json" }"#,
                "ends in a pattern",
            ),
            (
                r#"#{ manifests: "packages/[a/package.json" }"#,
                "is not a valid glob",
            ),
            (
                r#"#{ manifests: "packages/*/package.json", dir: "a" }"#,
                "unknown field `dir` in `PROJECT` (allowed: manifests, name)",
            ),
            (r"#{ manifests: 3 }", "`PROJECT.manifests`"),
        ] {
            let found = errors(&verification_with_project(project));
            assert!(has(&found, Some(3), needle), "{project}: {found:?}");
        }
    }

    #[test]
    fn missing_and_mistyped_fields_are_named() {
        let found = errors(
            "const KIND = \"diagnostic\";\nconst ANALYZER = 3;\nconst RULES = \"rule-a\";\nfn evaluate(s) { [] }\n",
        );
        assert!(has(&found, None, "missing `const ID`"), "{found:?}");
        assert!(
            has(&found, Some(2), "`ANALYZER` must be a string, not integer"),
            "{found:?}"
        );
        assert!(
            has(
                &found,
                Some(3),
                "`RULES` must be an array of rule ids, not string"
            ),
            "{found:?}"
        );
        let found = errors("const ID = \"x\";\nconst KIND = \"linter\";\n");
        assert!(
            has(
                &found,
                Some(2),
                "`KIND` must be \"diagnostic\" or \"verification\""
            ),
            "{found:?}"
        );
        let found = errors(
            "const ID = \"Bad Id\";\nconst KIND = \"diagnostic\";\nconst ANALYZER = \"a\";\nconst RULES = [\"r\"];\nfn evaluate(s) { [] }\n",
        );
        assert!(has(&found, Some(1), "lowercase"), "{found:?}");
    }

    #[test]
    fn missing_function_and_wrong_arity_are_named() {
        let found = errors(&DIAGNOSTIC.replace("fn evaluate(snapshot) { [] }", ""));
        assert!(
            has(&found, Some(2), "missing function `fn evaluate(snapshot)`"),
            "{found:?}"
        );
        let found = errors(&DIAGNOSTIC.replace("fn evaluate(snapshot)", "fn evaluate(a, b)"));
        assert!(
            has(&found, Some(5), "`fn evaluate` takes 2 parameter(s)"),
            "{found:?}"
        );
        let found = errors(
            "const ID = \"v\";\nconst KIND = \"verification\";\nconst PROJECT = #{ manifest: \"Cargo.toml\", name: \"d\" };\nconst REQUIREMENTS = [\n  #{ id: \"t\", command: \"c\", affects: \"nope\" },\n];\n",
        );
        assert!(
            has(&found, Some(5), "missing function `fn nope(path)`"),
            "{found:?}"
        );
    }

    #[test]
    fn non_literal_consts_and_top_level_code_are_refused() {
        let found = errors(&DIAGNOSTIC.replace(
            "const ANALYZER = \"ast-grep\";",
            "const ANALYZER = \"ast\" + \"-grep\";",
        ));
        assert!(
            has(&found, Some(3), "`ANALYZER` must be a literal value"),
            "{found:?}"
        );
        let found = errors(&DIAGNOSTIC.replace(
            "const RULES = [\"rule-a\", \"rule-b\"];",
            "const RULES = [\"a\", name()];",
        ));
        assert!(
            has(&found, Some(4), "`RULES` must be a literal value"),
            "{found:?}"
        );
        let found = errors(&format!("{DIAGNOSTIC}let x = 1;\nprint(x);\n"));
        assert!(
            has(&found, Some(6), "only `const NAME = <literal>;`"),
            "{found:?}"
        );
        assert!(
            has(&found, Some(7), "only `const NAME = <literal>;`"),
            "{found:?}"
        );
    }

    #[test]
    fn unknown_and_duplicate_fields_are_refused() {
        let found = errors(&format!(
            "{DIAGNOSTIC}const PROJECT = #{{}};\nconst EXTRA = 1;\n"
        ));
        assert!(has(&found, Some(6), "unknown field `PROJECT`"), "{found:?}");
        assert!(has(&found, Some(7), "unknown field `EXTRA`"), "{found:?}");
        let found = errors(
            "const ID = \"v\";\nconst KIND = \"verification\";\nconst PROJECT = #{ manifest: \"Cargo.toml\", name: \"d\", extra: 1 };\nconst REQUIREMENTS = [\n  #{ id: \"t\", command: \"c\", affects: \"f\" },\n  #{ id: \"t\", command: \"d\", affects: \"f\" },\n  #{ id: \"u\", command: \"d\" },\n];\nfn f(p) { true }\n",
        );
        assert!(
            has(&found, Some(3), "unknown field `extra` in `PROJECT`"),
            "{found:?}"
        );
        assert!(
            has(&found, Some(6), "duplicate requirement id \"t\""),
            "{found:?}"
        );
        assert!(has(&found, Some(7), "missing field `affects`"), "{found:?}");
    }
}

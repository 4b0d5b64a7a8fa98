//! The digests of what was loaded: the registry digest (SHA-256 over the sorted paths and
//! contents of the loaded configuration, policies and rule files, identifying exactly what was
//! loaded) and one [`RequirementDigest`] per verification requirement, identifying only what
//! defines that requirement.
//!
//! A requirement is defined by its policy's `ID`, the policy's `PROJECT`, the requirement's entry
//! in `REQUIREMENTS` (id, command, the name of its `affects` function, and any field added later,
//! since the entry is digested as its serialized form) and the code of its predicate: the
//! `affects` function and every script function it can call, as the tokens Rhai's own lexer reads
//! from them. Comments and whitespace are not tokens, and positions are never hashed, so editing
//! a comment, re-indenting, editing a diagnostic policy or another requirement's predicate leaves
//! the digest as it was; changing a token of the predicate (or of a function it calls), the
//! command or the project changes it.
//!
//! Function calls are followed by name (every overload of a name it mentions, as identifier or as
//! string, is included). A predicate that mentions `Fn`, `call` or `curry` may call any function
//! by a name built at run time, so every script function of the policy is included. When the
//! script cannot be split into functions (the lexer reports an error the compiler did not), the
//! whole policy text stands in for the predicate: any edit of that policy changes its digests.

use crate::registry::contract::{ProjectSpec, Requirement, VerificationSpec};
use rhai::{AST, Engine, Token};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::{self, Write};

/// Hex SHA-256 over `files` (path relative to the config root, content), sorted by path. Each path
/// and content is length-prefixed, so no two different file sets hash alike.
pub fn registry_digest<'a>(files: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut files: Vec<(&str, &str)> = files.into_iter().collect();
    files.sort_unstable();
    let mut hasher = Sha256::new();
    for (path, text) in files {
        for part in [path, text] {
            hasher.update((part.len() as u64).to_le_bytes());
            hasher.update(part.as_bytes());
        }
    }
    hex(&hasher.finalize())
}

/// What defines one verification requirement: its policy's id and project, its entry and the
/// code of its `affects` predicate (see the module documentation). Shown and persisted as 64
/// hex digits of SHA-256.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RequirementDigest(String);

impl RequirementDigest {
    /// The digest's hex text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The first 12 hex digits, for messages.
    pub fn short(&self) -> &str {
        self.0.get(..12).unwrap_or(&self.0)
    }
}

impl fmt::Display for RequirementDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Tags the digested form, so a later change of what is digested never collides with this one.
const REQUIREMENT_DIGEST_FORM: &str = "pi-native-hooks-requirement-v1";

/// The names through which a predicate can call a function named at run time.
const DYNAMIC_CALLS: [&str; 3] = ["Fn", "call", "curry"];

/// One top-level `fn` of a policy script, as tokens.
#[derive(Debug, PartialEq, Eq)]
struct ScriptFunction {
    name: String,
    /// Every token from `fn` (or `private`) to the closing `}`, in a position-free form.
    tokens: Vec<String>,
    /// Every identifier and string the function mentions.
    mentions: BTreeSet<String>,
}

/// The digest of every requirement of the verification policy `id` (whose text is `source`,
/// compiled to `ast`, and whose contract is `spec`), by requirement id. `engine` is the engine
/// the policy compiled in, so the lexer reads the script as the compiler did.
pub(crate) fn requirement_digests(
    engine: &Engine,
    ast: &AST,
    id: &str,
    source: &str,
    spec: &VerificationSpec,
) -> BTreeMap<String, RequirementDigest> {
    let functions = script_functions(engine, source).filter(|functions| {
        // The split must find exactly the functions the compiler found, or it is not trusted.
        let mut split: Vec<&str> = functions.iter().map(|f| f.name.as_str()).collect();
        let mut compiled: Vec<&str> = ast.iter_functions().map(|f| f.name).collect();
        split.sort_unstable();
        compiled.sort_unstable();
        split == compiled
    });
    spec.requirements
        .iter()
        .map(|requirement| {
            let digest =
                requirement_digest(id, &spec.project, requirement, functions.as_deref(), source);
            (requirement.id.clone(), digest)
        })
        .collect()
}

fn requirement_digest(
    id: &str,
    project: &ProjectSpec,
    requirement: &Requirement,
    functions: Option<&[ScriptFunction]>,
    source: &str,
) -> RequirementDigest {
    let mut hasher = Sha256::new();
    let mut part = |text: &str| {
        hasher.update((text.len() as u64).to_le_bytes());
        hasher.update(text.as_bytes());
    };
    part(REQUIREMENT_DIGEST_FORM);
    part(id);
    // Serialized, so a field added to either later is part of the digest without a change here.
    part(&serde_json::to_string(project).unwrap_or_default());
    part(&serde_json::to_string(requirement).unwrap_or_default());
    if let Some(predicate) =
        functions.and_then(|functions| predicate(functions, &requirement.affects))
    {
        part("functions");
        for function in predicate {
            part(&function.name);
            part(&function.tokens.len().to_string());
            for token in &function.tokens {
                part(token);
            }
        }
    } else {
        part("source");
        part(source);
    }
    RequirementDigest(hex(&hasher.finalize()))
}

/// The functions `affects` can call, itself included, in script order; `None` when it is not a
/// function of the script.
fn predicate<'f>(
    functions: &'f [ScriptFunction],
    affects: &str,
) -> Option<Vec<&'f ScriptFunction>> {
    let names: BTreeSet<&str> = functions.iter().map(|f| f.name.as_str()).collect();
    if !names.contains(affects) {
        return None;
    }
    let mut reached: BTreeSet<&str> = BTreeSet::from([affects]);
    let mut pending = vec![affects];
    while let Some(name) = pending.pop() {
        for function in functions.iter().filter(|f| f.name == name) {
            if DYNAMIC_CALLS
                .iter()
                .any(|dynamic| function.mentions.contains(*dynamic))
            {
                return Some(functions.iter().collect());
            }
            for mention in &function.mentions {
                if let Some(callee) = names.get(mention.as_str())
                    && reached.insert(callee)
                {
                    pending.push(callee);
                }
            }
        }
    }
    Some(
        functions
            .iter()
            .filter(|f| reached.contains(f.name.as_str()))
            .collect(),
    )
}

/// Splits `source` into its top-level functions with Rhai's lexer; `None` when the lexer reports
/// an error. Comments and whitespace are not tokens. The lexer is driven through interpolated
/// strings as Rhai's parser drives it: after the `}` that closes a `${`, it reads text again.
fn script_functions(engine: &Engine, source: &str) -> Option<Vec<ScriptFunction>> {
    let inputs = [source];
    let (tokens, control) = engine.lex(&inputs);
    let mut functions = Vec::new();
    let mut item: Vec<Token> = Vec::new();
    let mut depth = 0_usize;
    let mut interpolations: Vec<usize> = Vec::new();
    for (token, _) in tokens {
        match &token {
            Token::EOF => break,
            Token::LexError(_) => return None,
            Token::InterpolatedString(_) => interpolations.push(depth),
            Token::LeftBrace | Token::MapStart => depth += 1,
            Token::RightBrace => {
                depth = depth.checked_sub(1)?;
                if interpolations.last() == Some(&depth) {
                    interpolations.pop();
                    control.borrow_mut().is_within_text = true;
                }
            }
            _ => {}
        }
        let closes = depth == 0
            && interpolations.is_empty()
            && (matches!(token, Token::SemiColon)
                || (matches!(token, Token::RightBrace) && is_function(&item)));
        item.push(token);
        if closes {
            if is_function(&item) {
                functions.push(function_of(&item)?);
            }
            item.clear();
        }
    }
    if is_function(&item) {
        return None;
    }
    Some(functions)
}

/// Whether the item's tokens so far start a function definition (`fn` or `private fn`).
fn is_function(item: &[Token]) -> bool {
    matches!(item, [Token::Fn, ..] | [Token::Private, Token::Fn, ..])
}

fn function_of(item: &[Token]) -> Option<ScriptFunction> {
    // The name is the last identifier before the parameter list (`fn name(`, `fn "T".name(`).
    let name = item
        .iter()
        .take_while(|token| !matches!(token, Token::LeftParen | Token::Unit))
        .filter_map(|token| match token {
            Token::Identifier(name) => Some(name.to_string()),
            _ => None,
        })
        .last()?;
    let mentions = item
        .iter()
        .filter_map(|token| match token {
            Token::Identifier(text)
            | Token::Reserved(text)
            | Token::StringConstant(text)
            | Token::InterpolatedString(text) => Some(text.to_string()),
            _ => None,
        })
        .collect();
    Some(ScriptFunction {
        name,
        tokens: item.iter().map(|token| format!("{token:?}")).collect(),
        mentions,
    })
}

fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .fold(String::with_capacity(64), |mut hex, byte| {
            let _ = write!(hex, "{byte:02x}");
            hex
        })
}

#[cfg(test)]
mod tests {
    use super::registry_digest;

    #[test]
    fn digest_is_order_independent_and_unambiguous() {
        let a = registry_digest([("policies/a.rhai", "x"), ("rules/b.yml", "y")]);
        let b = registry_digest([("rules/b.yml", "y"), ("policies/a.rhai", "x")]);
        assert_eq!(a, b);
        assert_eq!(a.len(), 64);
        assert_ne!(
            registry_digest([("ab", "c")]),
            registry_digest([("a", "bc")])
        );
        assert_ne!(
            a,
            registry_digest([("policies/a.rhai", "x!"), ("rules/b.yml", "y")])
        );
    }
}

#[cfg(test)]
mod requirement_tests {
    use super::{RequirementDigest, requirement_digests, script_functions};
    use crate::registry::contract::{PolicySpec, read_contract};
    use crate::sandbox::Sandbox;
    use std::collections::BTreeMap;

    const POLICY: &str = r#"// The demo checks.
const ID = "demo";
const KIND = "verification";
const PROJECT = #{ manifest: "package.json", name: "demo" };
const REQUIREMENTS = [
    #{ id: "test", command: "npm test", affects: "affects_code" },
    #{ id: "docs", command: "npm run docs", affects: "affects_docs" },
];

// TypeScript and the manifest.
fn affects_code(path) {
    is_ts(path) || path == "package.json"
}

fn is_ts(path) { path.ends_with(".ts") }

fn affects_docs(path) {
    let prefix = `docs${"/"}`;
    path.starts_with(prefix)
}
"#;

    fn digests(source: &str) -> BTreeMap<String, RequirementDigest> {
        let sandbox = Sandbox::default();
        let ast = sandbox.compile(source).expect("compiles");
        let contract = read_contract(&ast, source).expect("valid contract");
        let PolicySpec::Verification(spec) = &contract.spec else {
            panic!("not a verification policy");
        };
        requirement_digests(sandbox.engine(), &ast, contract.id.as_str(), source, spec)
    }

    /// Which requirements' digests differ between `POLICY` and `edited`.
    fn changed(edited: &str) -> Vec<String> {
        let (before, after) = (digests(POLICY), digests(edited));
        assert_eq!(
            before.keys().collect::<Vec<_>>(),
            after.keys().collect::<Vec<_>>()
        );
        before
            .iter()
            .filter(|(id, digest)| after[*id] != **digest)
            .map(|(id, _)| id.clone())
            .collect()
    }

    #[test]
    fn the_script_splits_into_its_functions_through_interpolated_strings() {
        let sandbox = Sandbox::default();
        let functions = script_functions(sandbox.engine(), POLICY).expect("splits");
        let names: Vec<&str> = functions.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["affects_code", "is_ts", "affects_docs"]);
        assert!(functions[0].mentions.contains("is_ts"));
        assert!(functions[2].tokens.iter().any(|t| t.contains("docs")));
        assert_eq!(
            functions[2].tokens.last().map(String::as_str),
            Some("RightBrace")
        );
    }

    #[test]
    fn comments_whitespace_and_layout_change_no_digest() {
        let edited = POLICY
            .replace(
                "// TypeScript and the manifest.",
                "// Code: TypeScript.\n/* and */",
            )
            .replace("    is_ts(path) || path", "\tis_ts( path )||\n\n path")
            .replace(
                "fn is_ts(path) { path",
                "fn is_ts(path) {\n    // helper\n    path",
            );
        assert_eq!(changed(&edited), Vec::<String>::new());
        assert_eq!(digests(POLICY), digests(POLICY), "stable");
        assert_eq!(digests(POLICY)["test"].as_str().len(), 64);
    }

    #[test]
    fn the_predicate_and_what_it_calls_define_a_requirement() {
        assert_eq!(
            changed(&POLICY.replace("path == \"package.json\"", "path == \"deno.json\"")),
            ["test"]
        );
        assert_eq!(
            changed(&POLICY.replace("ends_with(\".ts\")", "ends_with(\".tsx\")")),
            ["test"],
            "a helper the predicate calls is part of it"
        );
        assert_eq!(
            changed(&POLICY.replace("`docs${\"/\"}`", "`doc${\"/\"}`")),
            ["docs"],
            "inside an interpolated string"
        );
        assert_eq!(
            changed(&format!("{POLICY}\nfn unused(path) {{ true }}\n")),
            Vec::<String>::new(),
            "a function no predicate calls"
        );
    }

    #[test]
    fn the_command_project_and_id_define_a_requirement() {
        assert_eq!(
            changed(&POLICY.replace("\"npm test\"", "\"npm run test:ci\"")),
            ["test"]
        );
        assert_eq!(
            changed(&POLICY.replace("name: \"demo\"", "name: \"demo-app\"")),
            ["docs", "test"]
        );
        assert_eq!(
            changed(&POLICY.replace("const ID = \"demo\"", "const ID = \"demo2\"")),
            ["docs", "test"]
        );
        assert_eq!(
            changed(&POLICY.replace("const KIND", "const DESCRIPTION = \"x\";\nconst KIND")),
            Vec::<String>::new(),
            "the description defines no requirement"
        );
    }

    #[test]
    fn a_predicate_calling_by_name_at_run_time_covers_every_function() {
        let dynamic = POLICY.replace(
            "is_ts(path) || path",
            "call(Fn(\"is_\" + \"ts\"), path) || path",
        );
        let edited = dynamic.replace(
            "path.starts_with(prefix)",
            "path.starts_with(prefix) && true",
        );
        let (before, after) = (digests(&dynamic), digests(&edited));
        assert_ne!(
            before["test"], after["test"],
            "any function may be the one called"
        );
        assert_ne!(before["docs"], after["docs"]);
    }
}

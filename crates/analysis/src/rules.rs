//! Compiling ast-grep rule files into a [`RuleSet`], the way the ast-grep CLI does (default ids
//! from the file stem, duplicate-id check), restricted to the languages linked in: TypeScript and
//! Tsx. The language and severity are checked before a rule is compiled, because ast-grep panics at
//! run time on a language whose parser is not compiled in.

use super::prefilter::{Prefilter, RuleNeeds};
use crate::rule_texts::{RuleTextIndex, RuleTexts};
use ast_grep_config::{
    CombinedScan, DeserializeEnv, GlobalRules, RuleCollection, RuleConfig, SerializableGlobalRule,
    SerializableRuleConfig, Severity as AstSeverity,
};
use ast_grep_language::SupportLang;
use pi_native_hooks_config::{
    ConfigFile, ConfigProblem, ConfigSource, YamlError, builtin, parse_yaml, parse_yaml_documents,
    read_project,
};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The languages this engine links: anything else is a load error.
pub const SUPPORTED_LANGUAGES: [SupportLang; 2] = [SupportLang::TypeScript, SupportLang::Tsx];

/// Why a rule or utility file could not be loaded. Each variant names the file.
#[expect(missing_docs, reason = "variant fields name what they hold")]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// The YAML does not parse as an ast-grep rule (syntax error, unknown key, wrong type).
    #[error(transparent)]
    Yaml(YamlError),
    /// The rule targets a language other than TypeScript or Tsx.
    #[error(
        "{}: rule `{rule}` targets {language}; pi-native-hooks analyzes only TypeScript and Tsx (use `language: TypeScript` or `language: Tsx`)",
        path.display()
    )]
    UnsupportedLanguage {
        path: PathBuf,
        rule: String,
        /// The language the rule names.
        language: String,
    },
    /// The rule has `severity: error`; steering rules stay warning, info or hint.
    #[error(
        "{}: rule `{rule}` has severity `error`; steering rules must use warning, info or hint",
        path.display()
    )]
    ErrorSeverity { path: PathBuf, rule: String },
    /// Two rules share an id.
    #[error("{}: duplicate rule id `{rule}` (first defined in {})", second.display(), first.display())]
    DuplicateId {
        rule: String,
        /// The file that defined it first.
        first: PathBuf,
        /// The file that defined it again.
        second: PathBuf,
    },
    /// The rule parsed but does not compile (bad pattern, missing kind, undefined utility, ...).
    #[error("{}: rule `{rule}` is invalid: {message}", path.display())]
    Invalid {
        path: PathBuf,
        rule: String,
        /// What ast-grep reported.
        message: String,
    },
    /// The rule file has no usable default id (file stem is not UTF-8).
    #[error("{}: the rule has no `id` and the file name cannot serve as one", path.display())]
    MissingId { path: PathBuf },
    /// A file or directory of the config root could not be used.
    #[error(transparent)]
    Config(#[from] ConfigProblem),
    /// The utility rules do not compile.
    #[error("utility rules are invalid: {message}")]
    InvalidUtils {
        /// What ast-grep reported.
        message: String,
    },
}

/// Compiled rules, ready to scan. Immutable after loading; share it with `Arc`.
pub struct RuleSet {
    collection: RuleCollection<SupportLang>,
    unused_suppression: RuleConfig<SupportLang>,
    ids: Vec<String>,
    /// The literals each rule needs, checked before its matcher runs.
    prefilter: Prefilter,
    /// Each rule's id, note and constant message, shared by its findings.
    texts: RuleTextIndex,
}

/// The result of loading rule files: the rules that compiled, and an error per file that did not.
pub struct RuleLoad {
    /// Every rule that loaded.
    pub rules: RuleSet,
    /// Files (or rules) that did not load, in discovery order.
    pub errors: Vec<RuleError>,
}

fn yaml_error(path: &Path, error: &ast_grep_config::RuleConfigError) -> RuleError {
    RuleError::Yaml(match error {
        ast_grep_config::RuleConfigError::Yaml(inner) => {
            YamlError::new(path, inner.location().map(|l| l.line()), inner)
        }
        other => YamlError::new(path, None, other),
    })
}

fn check_language(path: &Path, rule: &str, lang: SupportLang) -> Result<(), RuleError> {
    if SUPPORTED_LANGUAGES.contains(&lang) {
        Ok(())
    } else {
        Err(RuleError::UnsupportedLanguage {
            path: path.to_path_buf(),
            rule: rule.to_owned(),
            language: lang.to_string(),
        })
    }
}

/// Compiles the utility files into global rules, as `utilDirs` does for the ast-grep CLI.
fn load_utils(utils: &[ConfigFile], errors: &mut Vec<RuleError>) -> GlobalRules {
    let mut parsed = Vec::new();
    for file in utils {
        match parse_yaml::<SerializableGlobalRule<SupportLang>>(&file.path, &file.text) {
            Ok(util) => match check_language(&file.path, &util.id, util.language) {
                Ok(()) => parsed.push(util),
                Err(error) => errors.push(error),
            },
            Err(error) => errors.push(RuleError::Yaml(error)),
        }
    }
    DeserializeEnv::<SupportLang>::parse_global_utils(parsed).unwrap_or_else(|error| {
        errors.push(RuleError::InvalidUtils {
            message: error.to_string(),
        });
        GlobalRules::default()
    })
}

/// Parses one rule file (possibly several YAML documents) without compiling anything.
fn parse_rule_file(
    file: &ConfigFile,
) -> Result<Vec<SerializableRuleConfig<SupportLang>>, RuleError> {
    let mut docs =
        parse_yaml_documents::<SerializableRuleConfig<SupportLang>>(&file.path, &file.text)
            .map_err(RuleError::Yaml)?;
    let stem = file.path.file_stem().and_then(|s| s.to_str());
    let multiple = docs.len() > 1;
    for (index, doc) in docs.iter_mut().enumerate() {
        if doc.id.is_empty() {
            let stem = stem.ok_or_else(|| RuleError::MissingId {
                path: file.path.clone(),
            })?;
            doc.id = if multiple {
                format!("{stem}-{index}")
            } else {
                stem.to_owned()
            };
        }
    }
    Ok(docs)
}

/// Checks language and severity, then compiles.
fn compile_rule(
    path: &Path,
    doc: SerializableRuleConfig<SupportLang>,
    globals: &GlobalRules,
) -> Result<Option<RuleConfig<SupportLang>>, RuleError> {
    check_language(path, &doc.id, doc.language)?;
    match doc.severity {
        AstSeverity::Error => {
            return Err(RuleError::ErrorSeverity {
                path: path.to_path_buf(),
                rule: doc.id.clone(),
            });
        }
        AstSeverity::Off => return Ok(None),
        AstSeverity::Hint | AstSeverity::Info | AstSeverity::Warning => {}
    }
    let id = doc.id.clone();
    RuleConfig::try_from(doc, globals)
        .map(Some)
        .map_err(|error| match error {
            ast_grep_config::RuleConfigError::Yaml(_) => yaml_error(path, &error),
            other => RuleError::Invalid {
                path: path.to_path_buf(),
                rule: id,
                message: error_chain(&other),
            },
        })
}

/// Formats an error with its sources, since ast-grep's top-level messages are generic.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(inner) = source {
        message.push_str(": ");
        message.push_str(&inner.to_string());
        source = inner.source();
    }
    message
}

impl RuleSet {
    /// Loads rule files and utility files. A file that fails is reported in
    /// [`RuleLoad::errors`] and contributes no rule; the others still load.
    pub fn load(rules: &[ConfigFile], utils: &[ConfigFile]) -> RuleLoad {
        let mut errors = Vec::new();
        let globals = load_utils(utils, &mut errors);
        let mut compiled = Vec::new();
        let mut defined: HashMap<String, PathBuf> = HashMap::new();
        for file in rules {
            let docs = match parse_rule_file(file) {
                Ok(docs) => docs,
                Err(error) => {
                    errors.push(error);
                    continue;
                }
            };
            // A file loads whole or not at all, so a half-loaded file never looks healthy.
            let mut file_rules = Vec::new();
            let mut file_errors = Vec::new();
            for doc in docs {
                if let Some(first) = defined.get(&doc.id) {
                    file_errors.push(RuleError::DuplicateId {
                        rule: doc.id.clone(),
                        first: first.clone(),
                        second: file.path.clone(),
                    });
                    continue;
                }
                let id = doc.id.clone();
                match compile_rule(&file.path, doc, &globals) {
                    Ok(Some(rule)) => file_rules.push((id, rule)),
                    Ok(None) => {}
                    Err(error) => file_errors.push(error),
                }
            }
            if file_errors.is_empty() {
                for (id, rule) in file_rules {
                    defined.insert(id, file.path.clone());
                    compiled.push(rule);
                }
            } else {
                errors.extend(file_errors);
            }
        }
        let mut ids: Vec<String> = compiled.iter().map(|r| r.id.clone()).collect();
        ids.sort();
        let mut prefilter = Prefilter::new(compiled.iter().map(|r| (r.id.as_str(), &r.rule)));
        let collection = match RuleCollection::try_new(compiled) {
            Ok(collection) => collection,
            Err(error) => {
                errors.push(RuleError::InvalidUtils {
                    message: format!("invalid `files`/`ignores` glob: {error}"),
                });
                ids.clear();
                prefilter = Prefilter::none();
                RuleCollection::default()
            }
        };
        let unused_suppression =
            CombinedScan::unused_config(AstSeverity::Hint, SupportLang::TypeScript);
        let mut texts = RuleTextIndex::default();
        collection.for_each_rule(|rule| texts.add(rule));
        texts.add(&unused_suppression);
        RuleLoad {
            rules: RuleSet {
                collection,
                unused_suppression,
                ids,
                prefilter,
                texts,
            },
            errors,
        }
    }

    /// The ids of every loaded rule, sorted.
    pub fn ids(&self) -> &[String] {
        &self.ids
    }

    /// The rules that apply to `path` parsed as `lang`, honouring `files` and `ignores`, in the
    /// order they were loaded.
    pub fn rules_for(&self, path: &Path, lang: SupportLang) -> Vec<&RuleConfig<SupportLang>> {
        self.collection.get_rule_from_lang(path, lang)
    }

    /// Calls `f` with every loaded rule.
    pub(crate) fn for_each_rule(&self, f: impl FnMut(&RuleConfig<SupportLang>)) {
        self.collection.for_each_rule(f);
    }

    /// The same rules with every rule's matcher tried on every node of its kinds: what the literal
    /// pre-filters are checked against (they must never change a finding).
    #[must_use]
    pub fn without_prefilters(mut self) -> Self {
        self.prefilter = Prefilter::none();
        self
    }

    /// The literals rule `id` needs (in a node it matches, in a file it matches in), as derived
    /// from its `regex:` constraints; empty for a rule without such a condition.
    pub fn prefilter_needs(&self, id: &str) -> RuleNeeds {
        self.prefilter.needs(id)
    }

    /// The literal pre-filters of these rules.
    pub(crate) fn prefilter(&self) -> &Prefilter {
        &self.prefilter
    }

    /// The shared texts of `rule` (one of these rules, or made for it if not).
    pub(crate) fn texts(&self, rule: &RuleConfig<SupportLang>) -> RuleTexts {
        self.texts.get(rule)
    }

    /// The hint rule ast-grep uses for unused `ast-grep-ignore` comments.
    pub fn unused_suppression(&self) -> &RuleConfig<SupportLang> {
        &self.unused_suppression
    }
}

/// The rules of a config source, with the files they were compiled from.
pub struct LoadedRules {
    /// Every rule that compiled.
    pub rules: Arc<RuleSet>,
    /// Every file, directory or rule that did not load, in discovery order.
    pub problems: Vec<RuleError>,
    /// The rule files, then the utility files, that were read.
    pub files: Vec<ConfigFile>,
}

/// Reads and compiles the rules of a config source. `check`, `test`, a session and `doctor`
/// all load through here, so they report the same problems.
pub fn load_rules(source: &ConfigSource) -> LoadedRules {
    let (rules, utils, mut problems) = match source {
        ConfigSource::BuiltIn => (builtin::rule_files(), Vec::new(), Vec::new()),
        ConfigSource::Root(root) => match read_project(root) {
            Ok(files) => (
                files.rules,
                files.utils,
                files.problems.into_iter().map(RuleError::from).collect(),
            ),
            Err(problem) => (Vec::new(), Vec::new(), vec![RuleError::from(problem)]),
        },
    };
    let load = RuleSet::load(&rules, &utils);
    problems.extend(load.errors);
    LoadedRules {
        rules: Arc::new(load.rules),
        problems,
        files: rules.into_iter().chain(utils).collect(),
    }
}

/// Reads and compiles the rules of a config source. Problems are returned beside the rules that
/// did load, so a session can run degraded while `check` refuses to run.
pub fn load_source(source: &ConfigSource) -> (Arc<RuleSet>, Vec<RuleError>) {
    let loaded = load_rules(source);
    (loaded.rules, loaded.problems)
}

/// The language a path is parsed as, or `None` when it is not TypeScript or TSX.
pub fn language_of(path: &str) -> Option<SupportLang> {
    match Path::new(path).extension().and_then(|e| e.to_str())? {
        "ts" | "mts" | "cts" => Some(SupportLang::TypeScript),
        "tsx" => Some(SupportLang::Tsx),
        _ => None,
    }
}

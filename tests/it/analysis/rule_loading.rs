//! Loading an ast-grep project from a config root: discovery as the ast-grep CLI does it, and a
//! clear error naming the file (and line) for every kind of bad rule — never a panic.

use crate::support::{ConfigRoot, write};
use pi_native_hooks_analysis::{Analyzer, RuleSet, ScanLimits};
use pi_native_hooks_analysis::{RuleError, load_source};
use pi_native_hooks_config::{ConfigFile, ConfigProblem, ConfigSource, YamlError};
use std::path::{Path, PathBuf};
use std::sync::Arc;

const NON_NULL: &str = "id: no-bang\nlanguage: TypeScript\nseverity: warning\nmessage: no bang\nrule:\n  kind: non_null_expression\n";

fn file(path: &str, text: &str) -> ConfigFile {
    ConfigFile {
        path: PathBuf::from(path),
        text: text.to_owned(),
    }
}

fn only_error(rules: &[ConfigFile]) -> RuleError {
    let load = RuleSet::load(rules, &[]);
    assert_eq!(load.errors.len(), 1, "{:?}", load.errors);
    load.errors.into_iter().next().expect("one error")
}

fn project(files: &[(&str, &str)]) -> ConfigRoot {
    files
        .iter()
        .fold(
            ConfigRoot::builder()
                .file(
                    "sgconfig.yml",
                    "ruleDirs:\n  - ast-grep/rules\nutilDirs:\n  - ast-grep/utils\n",
                )
                .dir("ast-grep/utils"),
            |root, (path, text)| root.file(path, text),
        )
        .build()
}

#[test]
fn a_rule_for_another_language_is_refused_before_compiling() {
    let error = only_error(&[file(
        "r/python.yml",
        "id: py\nlanguage: Python\nrule:\n  pattern: print($A)\n",
    )]);
    assert_eq!(
        error.to_string(),
        "r/python.yml: rule `py` targets Python; pi-native-hooks analyzes only TypeScript and Tsx (use `language: TypeScript` or `language: Tsx`)"
    );
}

#[test]
fn a_duplicate_id_names_both_files() {
    let load = RuleSet::load(&[file("r/a.yml", NON_NULL), file("r/b.yml", NON_NULL)], &[]);
    assert_eq!(load.rules.ids(), ["no-bang"]);
    let messages: Vec<String> = load.errors.iter().map(ToString::to_string).collect();
    assert_eq!(
        messages,
        ["r/b.yml: duplicate rule id `no-bang` (first defined in r/a.yml)"]
    );
}

#[test]
fn an_unknown_key_is_a_yaml_error_with_the_file() {
    let error = only_error(&[file("r/typo.yml", &format!("{NON_NULL}mesage: typo\n"))]);
    let RuleError::Yaml(YamlError { path, message, .. }) = &error else {
        panic!("expected a YAML error, got {error:?}")
    };
    assert_eq!(path, Path::new("r/typo.yml"));
    assert!(message.contains("mesage"), "{message}");
}

#[test]
fn severity_error_is_refused() {
    let error = only_error(&[file("r/loud.yml", &NON_NULL.replace("warning", "error"))]);
    assert_eq!(
        error.to_string(),
        "r/loud.yml: rule `no-bang` has severity `error`; steering rules must use warning, info or hint"
    );
}

#[test]
fn a_yaml_syntax_error_names_file_and_line() {
    let error = only_error(&[file(
        "r/broken.yml",
        "id: broken\nlanguage: TypeScript\nrule:\n  kind: [unclosed\n",
    )]);
    let RuleError::Yaml(YamlError { path, line, .. }) = &error else {
        panic!("expected a YAML error, got {error:?}")
    };
    assert_eq!(path, Path::new("r/broken.yml"));
    assert!(matches!(line, Some(4 | 5)), "line {line:?} in {error}");
    assert!(error.to_string().starts_with("r/broken.yml:"), "{error}");
}

#[test]
fn an_invalid_pattern_names_the_rule() {
    let error = only_error(&[file(
        "r/bad.yml",
        "id: bad\nlanguage: TypeScript\nrule:\n  kind: no_such_kind\n",
    )]);
    let RuleError::Invalid { path, rule, .. } = &error else {
        panic!("expected an invalid rule, got {error:?}")
    };
    assert_eq!(
        (path.as_path(), rule.as_str()),
        (Path::new("r/bad.yml"), "bad")
    );
}

#[test]
fn a_bad_file_does_not_hide_its_siblings() {
    let load = RuleSet::load(
        &[file("r/a.yml", "id: [oops"), file("r/b.yml", NON_NULL)],
        &[],
    );
    assert_eq!(load.rules.ids(), ["no-bang"]);
    assert_eq!(load.errors.len(), 1);
}

#[test]
fn default_ids_come_from_the_file_stem_as_in_the_cli() {
    let single = "language: TypeScript\nrule:\n  kind: non_null_expression\n";
    let load = RuleSet::load(
        &[
            file("r/single.yml", single),
            file("r/multi.yml", &format!("{single}---\n{single}")),
        ],
        &[],
    );
    assert!(load.errors.is_empty(), "{:?}", load.errors);
    assert_eq!(load.rules.ids(), ["multi-0", "multi-1", "single"]);
}

#[test]
fn a_project_loads_rules_and_utils_like_ast_grep() {
    let root = project(&[
        (
            "ast-grep/utils/is-bang.yml",
            "id: is-bang\nlanguage: TypeScript\nrule:\n  kind: non_null_expression\n",
        ),
        (
            "ast-grep/rules/nested/uses-util.yml",
            "id: uses-util\nlanguage: TypeScript\nseverity: info\nmessage: via util\nrule:\n  matches: is-bang\n",
        ),
        ("ast-grep/rules/.hidden.yml", "id: [ignored because hidden"),
        ("ast-grep/rules/readme.md", "not a rule"),
    ]);
    let (rules, errors) = load_source(&ConfigSource::Root(root.path().to_path_buf()));
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(rules.ids(), ["uses-util"]);
    let mut analyzer =
        Analyzer::new("ast-grep:personal", rules, ScanLimits::default(), 1).expect("analyzer");
    let snapshot =
        analyzer.scan_sources(&[("a.ts".to_owned(), "export const n = m!;\n".to_owned())]);
    let found: Vec<String> = snapshot.findings.iter().map(ToString::to_string).collect();
    assert_eq!(found, ["a.ts:1:18 uses-util via util"]);
}

#[test]
fn a_symlinked_rule_file_is_reported_not_loaded() {
    let root = project(&[("ast-grep/rules/real.yml", NON_NULL)]);
    let outside = tempfile::tempdir().expect("temp dir");
    write(
        outside.path(),
        "other.yml",
        NON_NULL.replace("no-bang", "linked"),
    );
    std::os::unix::fs::symlink(
        outside.path().join("other.yml"),
        root.path().join("ast-grep/rules/linked.yml"),
    )
    .expect("symlink");
    let (rules, errors) = load_source(&ConfigSource::Root(root.path().to_path_buf()));
    assert_eq!(rules.ids(), ["no-bang"]);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        matches!(&errors[0], RuleError::Config(ConfigProblem::Trust(_))),
        "{errors:?}"
    );
    assert!(
        errors[0]
            .to_string()
            .contains("linked.yml: is a symbolic link"),
        "{}",
        errors[0]
    );
}

#[test]
fn an_unknown_sgconfig_key_names_the_file() {
    let root = project(&[]);
    root.write(
        "sgconfig.yml",
        "ruleDirs: [ast-grep/rules]\ncustomLanguages: {}\n",
    );
    let (rules, errors) = load_source(&ConfigSource::Root(root.path().to_path_buf()));
    assert!(rules.ids().is_empty());
    assert_eq!(errors.len(), 1, "{errors:?}");
    let message = errors[0].to_string();
    assert!(
        message.contains("sgconfig.yml") && message.contains("customLanguages"),
        "{message}"
    );
}

#[test]
fn built_in_rules_load_cleanly() {
    let (rules, errors) = load_source(&ConfigSource::BuiltIn);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(rules.ids().len(), 24);
    let _shared: Arc<RuleSet> = rules;
}

//! Every example policy in the docs and the authoring skill is executed: the ```rhai blocks of
//! each Markdown file are loaded as the policies of a fresh config root, its ```yaml blocks as
//! their fixtures, and the fixtures run through the real analyzer. The skill's frontmatter is
//! checked too.

#![expect(clippy::unwrap_used, reason = "test helpers: a panic is a failed test")]

use crate::support::{ConfigRoot, checkout};
use pi_native_hooks_analysis::load_source;
use pi_native_hooks_analysis::{Analyzer, ScanLimits};
use pi_native_hooks_cli::fixtures::run_fixtures;
use pi_native_hooks_config::ConfigSource;
use pi_native_hooks_policy::PolicyRegistry;
use std::fs;

fn repo_file(relative: &str) -> String {
    fs::read_to_string(checkout().join(relative)).unwrap()
}

/// The bodies of the fenced blocks tagged `language`.
fn blocks(markdown: &str, language: &str) -> Vec<String> {
    let fence = format!("```{language}");
    let mut found = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        match &mut current {
            None if line.trim_end() == fence => current = Some(String::new()),
            Some(body) if line.trim_end() == "```" => {
                found.push(std::mem::take(body));
                current = None;
            }
            Some(body) => {
                body.push_str(line);
                body.push('\n');
            }
            None => {}
        }
    }
    found
}

fn run_examples(relative: &str, expected_policies: usize) {
    let markdown = repo_file(relative);
    let policies = blocks(&markdown, "rhai");
    assert_eq!(policies.len(), expected_policies, "{relative}: rhai blocks");
    let root = ConfigRoot::builder().dir("policies/tests").build();
    for (index, policy) in policies.iter().enumerate() {
        root.write_policy(&format!("example-{index}.rhai"), policy);
    }
    for (index, fixture) in blocks(&markdown, "yaml").iter().enumerate() {
        root.write(&format!("policies/tests/example-{index}.yml"), fixture);
    }
    let registry = PolicyRegistry::load(root.path());
    assert!(
        registry.problems().is_empty(),
        "{relative}: {:#?}",
        registry.problems()
    );
    assert_eq!(registry.policies().len(), expected_policies);
    let (rules, errors) = load_source(&ConfigSource::BuiltIn);
    assert!(errors.is_empty());
    let mut analyzer = Analyzer::new("ast-grep:builtin", rules, ScanLimits::default(), 1).unwrap();
    let report = run_fixtures(root.path(), &registry, &mut analyzer, true);
    assert!(report.passed(), "{relative}: {report:#?}");
    assert!(
        report.untested.is_empty(),
        "{relative}: every example runs: {:?}",
        report.untested
    );
}

#[test]
fn docs_examples_run() {
    run_examples("docs/policies.md", 4);
}

#[test]
fn skill_reference_examples_run() {
    run_examples("skills/native-hook-authoring/references/contract.md", 2);
}

#[test]
fn skill_frontmatter_is_valid() {
    let skill = repo_file("skills/native-hook-authoring/SKILL.md");
    let frontmatter = skill
        .strip_prefix("---\n")
        .and_then(|rest| rest.split_once("\n---\n"))
        .unwrap()
        .0;
    let field = |name: &str| {
        frontmatter
            .lines()
            .find_map(|line| line.strip_prefix(&format!("{name}: ")))
            .unwrap_or_else(|| panic!("frontmatter has `{name}`"))
    };
    assert_eq!(
        field("name"),
        "native-hook-authoring",
        "name equals the folder name"
    );
    let description = field("description");
    assert!(!description.is_empty() && description.chars().count() < 1024);
    assert!(
        skill.contains("references/contract.md"),
        "points to the contract reference"
    );
    assert!(
        blocks(&skill, "rhai").is_empty(),
        "examples live in the reference, which is tested"
    );
}

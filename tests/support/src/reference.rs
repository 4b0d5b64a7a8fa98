//! The reference the analyzer's matcher is checked against: ast-grep's own `CombinedScan` over
//! every rule that applies to a file (no literal pre-filter, no kind index of the engine's),
//! with its suppression comments and unused-suppression hints, findings normalized as the
//! analyzer normalizes its own.

use ast_grep_config::CombinedScan;
use ast_grep_core::tree_sitter::LanguageExt;
use pi_native_hooks_analysis::{Finding, RuleSet, findings_of_matches, language_of};
use std::path::Path;

/// What ast-grep's `CombinedScan` finds in `text` as the content of `path`, sorted as a snapshot
/// sorts its findings; nothing for a path that is not TypeScript or TSX.
pub fn findings(rules: &RuleSet, path: &str, text: &str) -> Vec<Finding> {
    let Some(lang) = language_of(path) else {
        return Vec::new();
    };
    let grep = lang.ast_grep(text);
    let mut combined = CombinedScan::new(rules.rules_for(Path::new(path), lang));
    combined.set_unused_suppression_rule(rules.unused_suppression());
    let mut findings: Vec<Finding> = combined
        .scan(&grep, false)
        .matches
        .into_iter()
        .flat_map(|(rule, matches)| findings_of_matches(rule, path, text, &matches))
        .collect();
    findings.sort();
    findings
}

//! Matching one parsed file against the rules: the one place rules meet nodes, for the cold
//! scan, an incremental re-match and a file's findings at another revision alike.
//!
//! [`FileRules`] narrows the rules for one text: those whose `files`/`ignores` take its path,
//! with the literal pre-filters ([`crate::prefilter`]) checked against it in one pass. A text
//! holding none of the literals its rules need, and no suppression comment, cannot have a finding
//! and is not parsed. [`NodeMatcher`] indexes the rules by the AST kinds they can match, so a
//! traversal hands each node only to the rules of its kind, and only to those whose node literals
//! it holds; each match becomes a [`KeyedFinding`] (the [`Finding`], see [`normalize`], with the
//! node it came from, which incremental re-analysis keys held findings by).
//! [`FileRules::reported`] then applies the file's `ast-grep-ignore` comments ([`suppression`])
//! and adds an `unused-suppression` hint for each comment that suppressed nothing, exactly as
//! ast-grep's `CombinedScan` does; the tests keep `CombinedScan` as the reference.

mod normalize;
mod suppression;

pub(crate) use normalize::Content;
pub use normalize::text_hash;

use crate::prefilter::{NodeCheck, Occurrences};
use crate::rule_texts::RuleTexts;
use crate::rules::{RuleSet, language_of};
use crate::snapshot::finding::Finding;
use ast_grep_config::RuleConfig;
use ast_grep_core::matcher::{Matcher, MatcherExt};
use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_core::{AstGrep, Node, NodeMatch};
use ast_grep_language::SupportLang;
use pi_native_hooks_base::SharedText;
use std::path::Path;
use suppression::{SUPPRESSION_MARKER, Suppressions};

type Root = AstGrep<StrDoc<SupportLang>>;

/// What identifies the node a finding was matched on: its byte range and AST kind, and the
/// index of the rule among the rules applicable to the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct NodeKey {
    pub(crate) rule: usize,
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) kind: u16,
}

/// One finding with the node it came from.
#[derive(Clone, Debug)]
pub(crate) struct KeyedFinding {
    pub(crate) key: NodeKey,
    pub(crate) finding: Finding,
}

/// The rules that apply to one text, and where it holds their pre-filters' literals.
pub(crate) struct FileRules<'r> {
    rules: &'r RuleSet,
    /// The text's path, shared by its findings.
    path: SharedText,
    lang: SupportLang,
    /// In the order the rule set gives them for the path: the held findings' keys index it, so
    /// a rule the text lacks the literals of is kept (it simply tries no node).
    applicable: Vec<&'r RuleConfig<SupportLang>>,
    found: Occurrences,
    /// Whether the text mentions the suppression marker: only then are its comments looked for.
    suppressions: bool,
}

impl<'r> FileRules<'r> {
    /// The rules for `path` (parsed as TypeScript unless it names TSX) and `text`.
    pub(crate) fn new(rules: &'r RuleSet, path: &str, text: &str) -> Self {
        let lang = language_of(path).unwrap_or(SupportLang::TypeScript);
        let applicable = rules.rules_for(Path::new(path), lang);
        Self {
            rules,
            path: SharedText::from(path),
            lang,
            applicable,
            found: rules.prefilter().occurrences(text),
            suppressions: text.contains(SUPPRESSION_MARKER),
        }
    }

    pub(crate) fn lang(&self) -> SupportLang {
        self.lang
    }

    pub(crate) fn applicable(&self) -> &[&'r RuleConfig<SupportLang>] {
        &self.applicable
    }

    /// Whether the text can have a finding: some rule's literals occur in it, or it mentions a
    /// suppression comment (an unused one is a finding). In `CombinedScan` a rule without a match
    /// changes nothing either: a suppression counts as used only when it suppresses a match.
    pub(crate) fn may_find(&self) -> bool {
        self.suppressions || self.applicable.iter().any(|rule| self.may_apply(rule))
    }

    fn may_apply(&self, rule: &RuleConfig<SupportLang>) -> bool {
        self.rules.prefilter().file_may_match(&rule.id, &self.found)
    }

    /// A matcher of these rules on the nodes of the file's `text` (whose bytes hash to
    /// `content`).
    pub(crate) fn matcher<'m>(&'m self, text: &'m str, content: &'m Content) -> NodeMatcher<'m> {
        let prefilter = self.rules.prefilter();
        let filters = self
            .applicable
            .iter()
            .map(|rule| {
                if !self.may_apply(rule) {
                    RuleFilter::Off
                } else if let Some(check) = prefilter.node_check(&rule.id, &self.found) {
                    RuleFilter::Nodes(check)
                } else {
                    RuleFilter::All
                }
            })
            .collect();
        NodeMatcher {
            applicable: &self.applicable,
            // Looked up here, not with the file's rules: a file the pre-filter rules out never
            // needs them.
            texts: self
                .applicable
                .iter()
                .map(|rule| self.rules.texts(rule))
                .collect(),
            by_kind: index_by_kind(&self.applicable),
            filters,
            path: &self.path,
            text,
            content,
        }
    }

    /// Matches every rule on every node of `root` (the parse of `path`'s text, hashed to
    /// `content`): the matches sorted by finding, and what is reported of them.
    pub(crate) fn match_file(
        &self,
        root: &Root,
        content: &Content,
    ) -> (Vec<KeyedFinding>, Vec<Finding>) {
        let matcher = self.matcher(root.get_text(), content);
        let mut keyed = Vec::new();
        matcher.match_tree(root, |_| true, &mut keyed);
        keyed.sort_by(|a, b| a.finding.cmp(&b.finding));
        let findings = self.reported(root, &keyed, content);
        (keyed, findings)
    }

    /// What is reported of `root`'s matches `keyed` (sorted): those its suppression comments
    /// leave, and a hint for each comment that suppressed nothing, sorted.
    pub(crate) fn reported(
        &self,
        root: &Root,
        keyed: &[KeyedFinding],
        content: &Content,
    ) -> Vec<Finding> {
        if !self.suppressions {
            return keyed.iter().map(|k| k.finding.clone()).collect();
        }
        let mut suppressions = Suppressions::of(root);
        if suppressions.silences_file() {
            return Vec::new();
        }
        let mut findings: Vec<Finding> = keyed
            .iter()
            .filter(|k| {
                !suppressions.suppresses(k.finding.rule.as_str(), k.finding.range.start.line)
            })
            .map(|k| k.finding.clone())
            .collect();
        let unused = self.rules.unused_suppression();
        let texts = self.rules.texts(unused);
        let text = root.get_text();
        findings.extend(
            suppressions
                .unused()
                .iter()
                .map(|node| normalize::finding((unused, &texts), &self.path, node, text, content)),
        );
        findings.sort();
        findings
    }
}

/// One rule's pre-filter in one text.
enum RuleFilter<'a> {
    /// The text holds none of the literals the rule needs: it matches nowhere.
    Off,
    /// The rule may match only a node holding one of its node literals.
    Nodes(NodeCheck<'a>),
    /// No literal condition: every node of the rule's kinds is tried.
    All,
}

/// The rules of one text indexed by AST kind, with their pre-filters, ready to try on its nodes.
pub(crate) struct NodeMatcher<'m> {
    applicable: &'m [&'m RuleConfig<SupportLang>],
    /// The shared texts of `applicable`, by the same index.
    texts: Vec<RuleTexts>,
    path: &'m SharedText,
    /// For each AST kind id, the indexes of the rules that can match a node of that kind.
    by_kind: Vec<Vec<usize>>,
    /// By rule index.
    filters: Vec<RuleFilter<'m>>,
    text: &'m str,
    content: &'m Content,
}

impl NodeMatcher<'_> {
    /// The indexes of the rules that can match a node of `kind`.
    pub(crate) fn candidates(&self, kind: u16) -> &[usize] {
        self.by_kind
            .get(usize::from(kind))
            .map_or(&[], Vec::as_slice)
    }

    /// Whether some rule that `wanted` selects (by index) can match a node of some kind.
    pub(crate) fn any_rule(&self, wanted: impl Fn(usize) -> bool) -> bool {
        self.by_kind.iter().flatten().any(|&index| wanted(index))
    }

    /// Tries rule `index` on `node`, unless its pre-filter rules the node out.
    pub(crate) fn try_rule(
        &self,
        index: usize,
        node: &Node<'_, StrDoc<SupportLang>>,
    ) -> Option<KeyedFinding> {
        let range = node.range();
        let may_try = match &self.filters[index] {
            RuleFilter::Off => false,
            RuleFilter::Nodes(check) => check.may_match(range.clone()),
            RuleFilter::All => true,
        };
        if !may_try {
            return None;
        }
        let rule = (self.applicable[index], &self.texts[index]);
        let matched = rule.0.matcher.match_node(node.clone())?;
        Some(KeyedFinding {
            key: NodeKey {
                rule: index,
                start: range.start,
                end: range.end,
                kind: node.kind_id(),
            },
            finding: normalize::finding(rule, self.path, &matched, self.text, self.content),
        })
    }

    /// Tries the rules that `wanted` selects (by index) on every node of `root`, in one
    /// pre-order traversal.
    pub(crate) fn match_tree(
        &self,
        root: &Root,
        wanted: impl Fn(usize) -> bool,
        out: &mut Vec<KeyedFinding>,
    ) {
        preorder(root, |inner| {
            let candidates = self.candidates(inner.kind_id());
            if candidates.is_empty() {
                return;
            }
            let node = root.adopt(inner);
            for &index in candidates {
                if wanted(index)
                    && let Some(found) = self.try_rule(index, &node)
                {
                    out.push(found);
                }
            }
        });
    }
}

/// Visits every node of `root` in pre-order, as ast-grep's `dfs` does.
///
/// The cursor is driven here rather than through `dfs`, so that a node no rule can match costs
/// only the cursor's step and its kind, and so that the last child of a node is known from the
/// node's child count (what the cursor's steps visit, hidden nodes flattened, as tree-sitter's own
/// `children` iterator relies on) instead of from a failed step to a next sibling, which costs
/// tree-sitter's cursor about as much as a step that succeeds.
fn preorder<'r>(root: &'r Root, mut visit: impl FnMut(tree_sitter::Node<'r>)) {
    let mut cursor = root.root().get_inner_node().walk();
    // For each level below the root, how many siblings of the current node follow it.
    let mut following: Vec<u32> = Vec::new();
    loop {
        let node = cursor.node();
        visit(node);
        let children = node.child_count();
        if children > 0 && cursor.goto_first_child() {
            following.push(children - 1);
            continue;
        }
        loop {
            match following.last_mut() {
                None => return,
                Some(left) if *left > 0 && cursor.goto_next_sibling() => {
                    *left -= 1;
                    break;
                }
                Some(_) => {
                    following.pop();
                    cursor.goto_parent();
                }
            }
        }
    }
}

/// For each AST kind id, the indexes of the rules that can match a node of that kind.
fn index_by_kind(rules: &[&RuleConfig<SupportLang>]) -> Vec<Vec<usize>> {
    let mut by_kind: Vec<Vec<usize>> = Vec::new();
    for (index, rule) in rules.iter().enumerate() {
        for kind in rule
            .matcher
            .potential_kinds()
            .iter()
            .flat_map(|kinds| kinds.iter())
        {
            if by_kind.len() <= kind {
                by_kind.resize_with(kind + 1, Vec::new);
            }
            by_kind[kind].push(index);
        }
    }
    by_kind
}

/// Normalizes `matches` of `rule` in `path`'s `text` as the matcher normalizes its own: what a
/// reference scan outside the analyzer (ast-grep's `CombinedScan`, in the tests) compares with.
pub fn findings_of_matches<'n, 't: 'n>(
    rule: &RuleConfig<SupportLang>,
    path: &str,
    text: &str,
    matches: impl IntoIterator<Item = &'n NodeMatch<'t, StrDoc<SupportLang>>>,
) -> Vec<Finding> {
    let content = Content::new(None);
    let texts = RuleTexts::of(rule);
    let path = SharedText::from(path);
    matches
        .into_iter()
        .map(|node| normalize::finding((rule, &texts), &path, node, text, &content))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ast_grep_core::tree_sitter::LanguageExt;

    fn preorder_ids(root: &Root) -> Vec<usize> {
        let mut ids = Vec::new();
        preorder(root, |node| ids.push(node.id()));
        ids
    }

    fn dfs_ids(root: &Root) -> Vec<usize> {
        root.root()
            .dfs()
            .map(|node| node.get_inner_node().id())
            .collect()
    }

    #[test]
    fn preorder_visits_what_dfs_visits_in_its_order() {
        let sources = [
            ("a.ts", ""),
            ("a.ts", "x"),
            (
                "a.ts",
                "const a = 1;\nfunction f(x: number) { return x! + (a as any); }\n",
            ),
            ("a.ts", "class { ( ) => ;; if (\n// ast-grep-ignore\nlet"),
            (
                "a.tsx",
                "export const C = () => <div a={1}>{/* c */}<b>t</b></div>;",
            ),
            (
                "a.ts",
                "type T = { a?: string }[]; enum E { A = 1 } @d class K<T> {}",
            ),
        ];
        let mut checked = 0;
        let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/real-corpus");
        let mut files = vec![corpus];
        let mut texts: Vec<(String, String)> = sources
            .iter()
            .map(|(path, text)| ((*path).to_owned(), (*text).to_owned()))
            .collect();
        while let Some(dir) = files.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                let name = path.to_string_lossy().into_owned();
                if path.is_dir() {
                    files.push(path);
                } else if language_of(&name).is_some()
                    && let Ok(text) = std::fs::read_to_string(&path)
                {
                    texts.push((name, text));
                }
            }
        }
        for (path, text) in &texts {
            let lang = language_of(path).unwrap_or(SupportLang::TypeScript);
            let root = lang.ast_grep(text);
            assert_eq!(preorder_ids(&root), dfs_ids(&root), "{path}");
            checked += 1;
        }
        assert!(checked > sources.len(), "the real corpus was read");
    }
}

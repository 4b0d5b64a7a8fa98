//! Incremental re-analysis of an edited file whose previous version is held in the
//! [`TreeCache`](super::tree_cache::TreeCache): the edit is applied to the held syntax tree, the
//! new text is re-parsed with tree-sitter reusing that tree, the rules are matched again only on
//! the nodes the edit can have changed, and the held findings of every other node are kept,
//! shifted to their new positions. The result equals a full scan's, finding for finding.
//!
//! **Which nodes are matched again.** Tree-sitter reports the ranges whose syntactic structure
//! changed; characters outside them have identical ancestor nodes in both trees. The *dirty
//! span* is the hull of those ranges and the edited bytes, widened to whole lines (a fix's
//! indentation and a finding's columns depend on the text before the node on its line). A node
//! is *dirty* when its range touches the dirty span; every ancestor of a dirty node is dirty.
//! Each rule has a *reach* ([`reach`]): how many levels above a node its match can look.
//! `pattern`, `kind`, `regex`, `has` and constraints look only inside the node (reach 0); `inside`
//! without `stopBy` looks at the parent, `follows`, `precedes` and `nthChild` at the parent's
//! children (reach 1 plus the sub-rule's own); `inside` with `stopBy: end` whose sub-rule only
//! names kinds reads the kinds of the ancestors, which are identical outside the dirty span
//! (reach 0). A node is matched again for a rule when its ancestor that many levels up is dirty.
//! A rule whose reach cannot be bounded (`matches`, `range`, `inside` with `stopBy: end` over more
//! than kinds, a rule `stopBy`, rewriters, a fix with `expandStart`/`expandEnd`) is matched again
//! on the whole tree: the parse is still incremental.
//!
//! **Matching.** Nodes are matched by [`crate::matcher`], which the cold scan uses too: a full
//! analysis is its whole-file match, an incremental one hands it only the nodes above. The held
//! findings are a file's *unsuppressed* matches; the matcher applies the `ast-grep-ignore`
//! comments of each version to them afresh, so a file with suppression comments is re-analyzed
//! incrementally like any other, and editing a comment re-decides what it suppresses everywhere
//! in the file.
//!
//! **When the whole file is analyzed instead.** No held tree (first analysis, evicted, a skipped
//! version in between); the edit touches more than 1/[`MAX_EDIT_SHARE_DIVISOR`](edit::MAX_EDIT_SHARE_DIVISOR) of the file; the
//! old or the re-parsed tree holds a syntax error (tree-sitter's error recovery after an
//! incremental parse can differ from a fresh parse's, outside the changed ranges: the edit
//! property tests found such a case).
//! An edit hint that does not reproduce the new text is ignored, and the edit is found by
//! comparing the old and new text instead.

mod edit;
mod reach;

pub use edit::EditHint;
pub(crate) use reach::RuleReach;

use crate::cache::tree_cache::HeldFile;
use crate::matcher::{Content, FileRules, KeyedFinding, NodeKey, NodeMatcher};
use crate::rules::RuleSet;
use crate::snapshot::finding::{Finding, SourceRange};
use ast_grep_core::AstGrep;
use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_language::SupportLang;
use edit::{Placement, Span, edit_tree};
use pi_native_hooks_base::ContentHash;
use std::collections::HashSet;

/// How one file was analyzed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Parsed from scratch, every rule matched on every node.
    Full,
    /// Re-parsed from the held tree, matched only where the edit can have changed a match.
    Incremental,
}

/// One file's analysis, with what to hold for the next one.
pub(crate) struct Analyzed {
    pub(crate) findings: Vec<Finding>,
    /// What to hold for the next analysis: nothing when the text was not parsed.
    pub(crate) held: Option<HeldFile>,
    pub(crate) mode: Mode,
}

/// A new version of a file: its path, text, and the hash of the text's bytes.
pub(crate) struct Version<'a> {
    pub(crate) path: &'a str,
    pub(crate) text: String,
    pub(crate) content: ContentHash,
}

/// Analyzes `version` with `rules` (whose reaches are `reach`), incrementally from `previous`
/// when it allows, otherwise in full. `hint` is the `edit` call that produced it, if known.
pub(crate) fn analyze(
    rules: &RuleSet,
    reach: &RuleReach,
    version: Version<'_>,
    previous: Option<HeldFile>,
    hint: Option<&EditHint>,
) -> Analyzed {
    let Version {
        path,
        text,
        content,
    } = version;
    let file = FileRules::new(rules, path, &text);
    // A text that can have no finding is not parsed, and nothing is held (its next version is
    // analyzed in full).
    if !file.may_find() {
        return Analyzed {
            findings: Vec::new(),
            held: None,
            mode: Mode::Full,
        };
    }
    let lang = file.lang();
    let hash = Content::new(Some(content));
    let edited = previous.and_then(|held| {
        // Tree-sitter's error recovery differs between an incremental and a fresh parse: a held
        // error subtree can be reused where a fresh parse recovers otherwise, far from the edit
        // and outside the changed ranges. A syntax error in either version means a fresh parse.
        if held.root.root().get_inner_node().has_error() {
            return None;
        }
        let (tree, placement) = edit_tree(&held, &text, hint, lang)?;
        if tree.root_node().has_error() {
            return None;
        }
        Some((held.keyed, tree, placement))
    });
    let Some((previous, tree, placement)) = edited else {
        let root = AstGrep::new(&text, lang);
        let (keyed, findings) = file.match_file(&root, &hash);
        return Analyzed {
            findings,
            held: Some(HeldFile {
                content,
                root,
                keyed: keyed.into(),
            }),
            mode: Mode::Full,
        };
    };
    let root = AstGrep::doc(StrDoc {
        src: text,
        lang,
        tree,
    });
    let reaches: Vec<Option<usize>> = file
        .applicable()
        .iter()
        .map(|rule| reach.get(rule))
        .collect();
    let matcher = file.matcher(root.get_text(), &hash);
    let (mut fresh, rematched) = rematch(&matcher, &reaches, &root, placement.dirty);
    keep_previous(
        &previous,
        &reaches,
        &rematched,
        &placement,
        (content, root.get_text().len()),
        &mut fresh,
    );
    fresh.sort_by(|a, b| a.finding.cmp(&b.finding));
    let findings = file.reported(&root, &fresh, &hash);
    Analyzed {
        findings,
        held: Some(HeldFile {
            content,
            root,
            keyed: fresh.into(),
        }),
        mode: Mode::Incremental,
    }
}

/// Matches again, in the new tree `root`, every rule whose reach (in `reaches`) is unbounded on
/// every node, and every other rule on the nodes whose ancestor that many levels up is dirty.
/// Returns the findings and the non-dirty nodes matched again (their held findings are stale).
fn rematch(
    matcher: &NodeMatcher<'_>,
    reaches: &[Option<usize>],
    root: &AstGrep<StrDoc<SupportLang>>,
    dirty: Span,
) -> (Vec<KeyedFinding>, HashSet<NodeKey>) {
    let mut fresh = Vec::new();
    let unbounded = |index: usize| reaches[index].is_none();
    if matcher.any_rule(unbounded) {
        matcher.match_tree(root, unbounded, &mut fresh);
    }
    let mut rematched = HashSet::new();
    let Some(deepest) = reaches.iter().flatten().copied().max() else {
        return (fresh, rematched);
    };
    let mut stack = vec![(root.root(), 0usize)];
    while let Some((node, level)) = stack.pop() {
        for &index in matcher.candidates(node.kind_id()) {
            if reaches[index].is_none_or(|reach| reach < level) {
                continue;
            }
            if level > 0 {
                let range = node.range();
                rematched.insert(NodeKey {
                    rule: index,
                    start: range.start,
                    end: range.end,
                    kind: node.kind_id(),
                });
            }
            if let Some(found) = matcher.try_rule(index, &node) {
                fresh.push(found);
            }
        }
        for child in node.children() {
            let range = child.range();
            let child_level = if dirty.touches(range.start, range.end) {
                0
            } else {
                level + 1
            };
            if child_level <= deepest {
                stack.push((child, child_level));
            }
        }
    }
    (fresh, rematched)
}

/// Adds to `fresh` the held findings of nodes that were not matched again, shifted to the new
/// text (whose bytes hash to, and are as long as, `content`).
fn keep_previous(
    previous: &[KeyedFinding],
    reaches: &[Option<usize>],
    rematched: &HashSet<NodeKey>,
    placement: &Placement,
    content: (ContentHash, usize),
    fresh: &mut Vec<KeyedFinding>,
) {
    for old in previous {
        if reaches[old.key.rule].is_none()
            || placement.old_dirty.touches(old.key.start, old.key.end)
        {
            continue;
        }
        let after = old.key.start > placement.old_dirty.end;
        let shift = |offset: usize| {
            if after {
                offset.checked_add_signed(placement.byte_shift).unwrap_or(0)
            } else {
                offset
            }
        };
        let key = NodeKey {
            start: shift(old.key.start),
            end: shift(old.key.end),
            ..old.key
        };
        if rematched.contains(&key) {
            continue;
        }
        let mut finding = old.finding.clone();
        if after {
            shift_lines(&mut finding.range, placement.line_shift);
        }
        if let Some(fix) = finding.fix.as_mut() {
            if after {
                fix.bytes.start = shift(fix.bytes.start);
                fix.bytes.end = shift(fix.bytes.end);
                shift_lines(&mut fix.range, placement.line_shift);
            }
            (fix.content, fix.content_len) = content;
        }
        fresh.push(KeyedFinding { key, finding });
    }
}

fn shift_lines(range: &mut SourceRange, lines: isize) {
    range.start.line = range.start.line.saturating_add_signed(lines);
    range.end.line = range.end.line.saturating_add_signed(lines);
}

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
//! Each rule has a *reach* ([`rule_reach`]): how many levels above a node its match can look.
//! `pattern`, `kind`, `regex`, `has` and constraints look only inside the node (reach 0); `inside`
//! without `stopBy` looks at the parent, `follows`, `precedes` and `nthChild` at the parent's
//! children (reach 1 plus the sub-rule's own); `inside` with `stopBy: end` whose sub-rule only
//! names kinds reads the kinds of the ancestors, which are identical outside the dirty span
//! (reach 0). A node is matched again for a rule when its ancestor that many levels up is dirty.
//! A rule whose reach cannot be bounded (`matches`, `range`, `inside` with `stopBy: end` over more
//! than kinds, a rule `stopBy`, rewriters, a fix with `expandStart`/`expandEnd`) is matched again
//! on the whole tree: the parse is still incremental.
//!
//! **Suppression comments.** The held findings are a file's *unsuppressed* matches; the
//! `ast-grep-ignore` comments of each version are found afresh and applied to them
//! ([`super::suppression`], which mirrors ast-grep's `CombinedScan`), so a file with suppression
//! comments is re-analyzed incrementally like any other, and editing a comment re-decides what it
//! suppresses everywhere in the file.
//!
//! **When the whole file is analyzed instead.** No held tree (first analysis, evicted, a skipped
//! version in between); the edit touches more than 1/[`MAX_EDIT_SHARE_DIVISOR`] of the file; the
//! old or the re-parsed tree holds a syntax error (tree-sitter's error recovery after an
//! incremental parse can differ from a fresh parse's, outside the changed ranges: the edit
//! property tests found such a case).
//! An edit hint that does not reproduce the new text is ignored, and the edit is found by
//! comparing the old and new text instead.

use super::finding::Finding;
use super::prefilter::{NodeCheck, Occurrences, Prefilter};
use super::rules::RuleSet;
use super::scan::{Content, SUPPRESSION_MARKER, finding, index_by_kind, language_of};
use super::suppression::Suppressions;
use super::tree_cache::{HeldFile, KeyedFinding, NodeKey};
use ast_grep_config::RuleConfig;
use ast_grep_core::matcher::MatcherExt;
use ast_grep_core::tree_sitter::{LanguageExt, StrDoc};
use ast_grep_core::{AstGrep, Doc, Node};
use ast_grep_language::SupportLang;
use pi_native_hooks_base::ContentHash;
use serde_json::Value;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use tree_sitter::{InputEdit, Parser, Point, Tree};

/// The largest edit re-analyzed incrementally is one part in this many of the file: an edit
/// deleting or inserting more than a quarter of the file is analyzed in full (it re-parses most of
/// the file anyway, and a rewrite is not worth the bookkeeping).
pub const MAX_EDIT_SHARE_DIVISOR: usize = 4;

/// What an `edit` tool call did to one file: `old_text` replaced by `new_text`, once. It lets the
/// analyzer locate the edit without comparing the whole file; it is verified against the new
/// text, and ignored when it does not reproduce it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EditHint {
    /// The replaced text.
    pub old_text: String,
    /// The text that replaced it.
    pub new_text: String,
}

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

/// The reach of every rule of a rule set, by rule id: `Some(levels)` above a node that its match
/// can depend on, `None` when it cannot be bounded.
#[derive(Debug, Default)]
pub(crate) struct RuleReach(HashMap<String, Option<usize>>);

impl RuleReach {
    pub(crate) fn of(rules: &RuleSet) -> Self {
        let mut reach = HashMap::new();
        rules.for_each_rule(|rule| {
            reach.insert(rule.id.clone(), config_reach(rule));
        });
        Self(reach)
    }

    fn get(&self, rule: &RuleConfig<SupportLang>) -> Option<usize> {
        self.0.get(&rule.id).copied().flatten()
    }
}

/// The reach of a whole rule config: its rule, plus its constraints (evaluated on captured
/// nodes); unbounded with rewriters or an expanding fix.
fn config_reach(rule: &RuleConfig<SupportLang>) -> Option<usize> {
    let config = serde_json::to_value(&**rule).ok()?;
    let object = config.as_object()?;
    if object.get("rewriters").is_some_and(|v| !v.is_null()) {
        return None;
    }
    if let Some(Value::Object(fix)) = object.get("fix")
        && (fix.get("expandStart").is_some_and(|v| !v.is_null())
            || fix.get("expandEnd").is_some_and(|v| !v.is_null()))
    {
        return None;
    }
    let mut reach = rule_reach(object.get("rule")?)?;
    if let Some(Value::Object(constraints)) = object.get("constraints") {
        for constraint in constraints.values() {
            reach = reach.checked_add(rule_reach(constraint)?)?;
        }
    }
    Some(reach)
}

/// How many levels above a node the serialized rule `rule` can look (`None`: unbounded).
fn rule_reach(rule: &Value) -> Option<usize> {
    let Value::Object(keys) = rule else {
        return None;
    };
    let mut reach = 0usize;
    for (key, value) in keys {
        if value.is_null() {
            continue;
        }
        let here = match key.as_str() {
            "pattern" | "kind" | "regex" | "field" | "stopBy" => 0,
            "has" => {
                let stop = stop_reach(value.get("stopBy"))?;
                rule_reach(value)?.max(stop)
            }
            "not" => rule_reach(value)?,
            "all" | "any" => {
                let mut most = 0;
                for item in value.as_array()? {
                    most = most.max(rule_reach(item)?);
                }
                most
            }
            "inside" => match value.get("stopBy") {
                None | Some(Value::Null) => 1 + rule_reach(value)?,
                Some(Value::String(stop)) if stop == "neighbor" => 1 + rule_reach(value)?,
                Some(Value::String(stop)) if stop == "end" && kinds_only(value) => 0,
                _ => return None,
            },
            "follows" | "precedes" => {
                let stop = stop_reach(value.get("stopBy"))?;
                1 + rule_reach(value)?.max(stop)
            }
            "nthChild" => match value.get("ofRule") {
                Some(of) if !of.is_null() => 1 + rule_reach(of)?,
                _ => 1,
            },
            // `matches` (utility rules), `range` (absolute positions) and anything unknown.
            _ => return None,
        };
        reach = reach.max(here);
    }
    Some(reach)
}

/// The reach of a relational rule's `stopBy`: a rule is evaluated where the relation walks.
fn stop_reach(stop: Option<&Value>) -> Option<usize> {
    match stop {
        None | Some(Value::Null | Value::String(_)) => Some(0),
        Some(rule) => rule_reach(rule),
    }
}

/// Whether a relational rule names only kinds (through `any`, `all` and `not`), with `stopBy`
/// `end` and no `field`.
fn kinds_only(rule: &Value) -> bool {
    names_only_kinds(rule, true)
}

/// Whether `rule` names only kinds; `stopBy: end` is allowed on the relational rule itself
/// (`top`), not inside it.
fn names_only_kinds(rule: &Value, top: bool) -> bool {
    let Value::Object(keys) = rule else {
        return false;
    };
    keys.iter().all(|(key, value)| match key.as_str() {
        _ if value.is_null() => true,
        "kind" => value.is_string(),
        "stopBy" if top => value.as_str() == Some("end"),
        "not" => names_only_kinds(value, false),
        "any" | "all" => value
            .as_array()
            .is_some_and(|items| items.iter().all(|item| names_only_kinds(item, false))),
        _ => false,
    })
}

/// One edit of a text: `deleted` bytes at `start` replaced by `inserted` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct TextEdit {
    start: usize,
    deleted: usize,
    inserted: usize,
}

/// The edit turning `old` into `new`: their common prefix and suffix are kept, on character
/// boundaries.
fn diff_edit(old: &str, new: &str) -> TextEdit {
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let mut prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    while !old.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let most = a.len().min(b.len()) - prefix;
    let mut suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(most)
        .take_while(|(x, y)| x == y)
        .count();
    while !old.is_char_boundary(a.len() - suffix) || !new.is_char_boundary(b.len() - suffix) {
        suffix -= 1;
    }
    TextEdit {
        start: prefix,
        deleted: a.len() - suffix - prefix,
        inserted: b.len() - suffix - prefix,
    }
}

/// The edit `hint` describes, if replacing its first occurrence in `old` gives `new`, narrowed to
/// what its replacement really changes: models often send an `oldText` of many lines to change one
/// character, and the unchanged lines around it are no part of the edit.
fn hinted_edit(old: &str, new: &str, hint: &EditHint) -> Option<TextEdit> {
    if hint.old_text.is_empty() {
        return None;
    }
    let start = old.find(&hint.old_text)?;
    let after = start + hint.old_text.len();
    let inserted_end = start + hint.new_text.len();
    let reproduces = new.len() == old.len() - hint.old_text.len() + hint.new_text.len()
        && new.as_bytes()[..start] == old.as_bytes()[..start]
        && new.as_bytes()[start..inserted_end] == *hint.new_text.as_bytes()
        && new.as_bytes()[inserted_end..] == old.as_bytes()[after..];
    if !reproduces {
        return None;
    }
    let changed = diff_edit(&hint.old_text, &hint.new_text);
    Some(TextEdit {
        start: start + changed.start,
        ..changed
    })
}

/// The tree-sitter point of byte `offset` (a character boundary) in `text`: row, and column in
/// bytes.
fn point_at(text: &str, offset: usize) -> Point {
    let before = &text[..offset];
    let line_start = before.rfind('\n').map_or(0, |newline| newline + 1);
    Point::new(newlines(before), offset - line_start)
}

thread_local! {
    /// One parser per language per worker thread, as ast-grep keeps its own.
    static PARSERS: RefCell<HashMap<SupportLang, Parser>> = RefCell::new(HashMap::new());
}

/// Parses `text` as `lang` reusing the edited `old` tree.
fn reparse(lang: SupportLang, text: &str, old: &Tree) -> Option<Tree> {
    PARSERS.with(|parsers| {
        let mut parsers = parsers.borrow_mut();
        let parser = match parsers.entry(lang) {
            std::collections::hash_map::Entry::Occupied(entry) => entry.into_mut(),
            std::collections::hash_map::Entry::Vacant(entry) => {
                let mut parser = Parser::new();
                parser.set_language(&lang.get_ts_language()).ok()?;
                entry.insert(parser)
            }
        };
        parser.reset();
        parser.parse(text.as_bytes(), Some(old))
    })
}

/// What the literal pre-filters (see [`super::prefilter`]) let each rule of an `applicable` list
/// try in one text. Rule indexes stay those of the unfiltered list, which the held findings' keys
/// use: a rule the text lacks the literals of is kept, and simply tries no node.
struct Filters<'a>(Vec<RuleFilter<'a>>);

/// One rule's pre-filter in one text.
enum RuleFilter<'a> {
    /// The text holds none of the literals the rule needs: it matches nowhere.
    Off,
    /// The rule may match only a node holding one of its node literals.
    Nodes(NodeCheck<'a>),
    /// No literal condition: every node of the rule's kinds is tried.
    All,
}

impl<'a> Filters<'a> {
    fn new(
        prefilter: &Prefilter,
        applicable: &[&RuleConfig<SupportLang>],
        found: &'a Occurrences,
    ) -> Self {
        Filters(
            applicable
                .iter()
                .map(|rule| {
                    if !prefilter.file_may_match(&rule.id, found) {
                        RuleFilter::Off
                    } else if let Some(check) = prefilter.node_check(&rule.id, found) {
                        RuleFilter::Nodes(check)
                    } else {
                        RuleFilter::All
                    }
                })
                .collect(),
        )
    }

    /// Whether rule `index` may match a node spanning `range`.
    fn may_try(&self, index: usize, range: std::ops::Range<usize>) -> bool {
        match &self.0[index] {
            RuleFilter::Off => false,
            RuleFilter::Nodes(check) => check.may_match(range),
            RuleFilter::All => true,
        }
    }
}

/// Analyzes `text` (hashed to `content`) as `path`'s new content, incrementally from `previous`
/// when it allows, otherwise in full. `hint` is the `edit` call that produced it, if known.
#[allow(clippy::too_many_arguments)]
pub(crate) fn analyze(
    rules: &RuleSet,
    reach: &RuleReach,
    path: &str,
    text: String,
    content: ContentHash,
    previous: Option<HeldFile>,
    hint: Option<&EditHint>,
) -> Analyzed {
    let lang = language_of(path).unwrap_or(SupportLang::TypeScript);
    let applicable = rules.rules_for(Path::new(path), lang);
    let prefilter = rules.prefilter();
    let found = prefilter.occurrences(&text);
    // A text holding none of the literals its rules need, and no suppression comment, can have no
    // finding: it is not parsed, and nothing is held (its next version is analyzed in full).
    if !text.contains(SUPPRESSION_MARKER)
        && applicable
            .iter()
            .all(|rule| !prefilter.file_may_match(&rule.id, &found))
    {
        return Analyzed {
            findings: Vec::new(),
            held: None,
            mode: Mode::Full,
        };
    }
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
        return full(&applicable, rules, path, root, content, &found);
    };
    let root = AstGrep::doc(StrDoc {
        src: text,
        lang,
        tree,
    });
    let target = Target {
        applicable: &applicable,
        reaches: &applicable
            .iter()
            .map(|rule| reach.get(rule))
            .collect::<Vec<_>>(),
        path,
        hash: &Content::new(Some(content)),
        prefilter,
        found: &found,
    };
    incremental(&target, rules, root, content, &previous, &placement)
}

/// Matches every rule on every node of `root` (hashed to `content`) in one kind-indexed traversal.
fn full(
    applicable: &[&RuleConfig<SupportLang>],
    rules: &RuleSet,
    path: &str,
    root: AstGrep<StrDoc<SupportLang>>,
    content: ContentHash,
    found: &Occurrences,
) -> Analyzed {
    let text = root.get_text();
    let hash = Content::new(Some(content));
    let mut keyed = Vec::new();
    let by_kind = index_by_kind(applicable);
    let filters = Filters::new(rules.prefilter(), applicable, found);
    for node in root.root().dfs() {
        match_node(
            applicable, &by_kind, &filters, path, text, &hash, &node, &mut keyed,
        );
    }
    keyed.sort_by(|a, b| a.finding.cmp(&b.finding));
    let findings = reported(&root, &keyed, rules, path, &hash);
    Analyzed {
        findings,
        held: Some(HeldFile {
            content,
            root,
            keyed: keyed.into(),
        }),
        mode: Mode::Full,
    }
}

/// What is reported of `root`'s matches `keyed` (sorted): those its suppression comments leave,
/// and a hint for each comment that suppressed nothing, sorted.
fn reported(
    root: &AstGrep<StrDoc<SupportLang>>,
    keyed: &[KeyedFinding],
    rules: &RuleSet,
    path: &str,
    hash: &Content,
) -> Vec<Finding> {
    let text = root.get_text();
    if !text.contains(SUPPRESSION_MARKER) {
        return keyed.iter().map(|k| k.finding.clone()).collect();
    }
    let mut suppressions = Suppressions::of(root);
    if suppressions.silences_file() {
        return Vec::new();
    }
    let mut findings: Vec<Finding> = keyed
        .iter()
        .filter(|k| !suppressions.suppresses(k.finding.rule.as_str(), k.finding.range.start.line))
        .map(|k| k.finding.clone())
        .collect();
    let unused = rules.unused_suppression();
    findings.extend(
        suppressions
            .unused()
            .iter()
            .map(|node| finding(unused, path, node, text, hash)),
    );
    findings.sort();
    findings
}

/// Matches the rules of `by_kind` that `filters` let try `node` on it.
#[allow(clippy::too_many_arguments)]
fn match_node(
    applicable: &[&RuleConfig<SupportLang>],
    by_kind: &[Vec<usize>],
    filters: &Filters<'_>,
    path: &str,
    text: &str,
    hash: &Content,
    node: &Node<'_, StrDoc<SupportLang>>,
    out: &mut Vec<KeyedFinding>,
) {
    let Some(candidates) = by_kind.get(usize::from(node.kind_id())) else {
        return;
    };
    for &index in candidates {
        if !filters.may_try(index, node.range()) {
            continue;
        }
        let rule = applicable[index];
        if let Some(matched) = rule.matcher.match_node(node.clone()) {
            let range = node.range();
            out.push(KeyedFinding {
                key: NodeKey {
                    rule: index,
                    start: range.start,
                    end: range.end,
                    kind: node.kind_id(),
                },
                finding: finding(rule, path, &matched, text, hash),
            });
        }
    }
}

/// Where an edit left the new text, and how it moved what follows.
struct Placement {
    /// The dirty span in the new text.
    dirty: Span,
    /// The same span in the old text.
    old_dirty: Span,
    /// Bytes added (or, negative, removed) before everything after the span.
    byte_shift: isize,
    /// Lines added (or removed) likewise.
    line_shift: isize,
}

/// Applies the edit turning `held`'s text into `text` to its tree and re-parses `text` with it;
/// `None` when the edit is too large or tree-sitter cannot parse.
fn edit_tree(
    held: &HeldFile,
    text: &str,
    hint: Option<&EditHint>,
    lang: SupportLang,
) -> Option<(Tree, Placement)> {
    let doc = held.root.root().get_doc();
    let old = doc.get_source().as_str();
    let edit = hint
        .and_then(|hint| hinted_edit(old, text, hint))
        .unwrap_or_else(|| diff_edit(old, text));
    let size = old.len().max(text.len()).max(1);
    if edit
        .deleted
        .max(edit.inserted)
        .saturating_mul(MAX_EDIT_SHARE_DIVISOR)
        > size
    {
        return None;
    }
    let input = InputEdit {
        start_byte: edit.start,
        old_end_byte: edit.start + edit.deleted,
        new_end_byte: edit.start + edit.inserted,
        start_position: point_at(old, edit.start),
        old_end_position: point_at(old, edit.start + edit.deleted),
        new_end_position: point_at(text, edit.start + edit.inserted),
    };
    let mut old_tree = doc.tree.clone();
    old_tree.edit(&input);
    let new_tree = reparse(lang, text, &old_tree)?;
    let placement = place(old, text, edit, &old_tree, &new_tree);
    Some((new_tree, placement))
}

/// Matches again what the edit can have changed in `root` and keeps the other `previous`
/// findings, shifted.
fn incremental(
    target: &Target<'_>,
    rules: &RuleSet,
    root: AstGrep<StrDoc<SupportLang>>,
    content: ContentHash,
    previous: &[KeyedFinding],
    placement: &Placement,
) -> Analyzed {
    let (mut fresh, rematched) = rematch(target, &root, placement.dirty);
    keep_previous(
        previous,
        target.reaches,
        &rematched,
        placement,
        (content, root.get_text().len()),
        &mut fresh,
    );
    fresh.sort_by(|a, b| a.finding.cmp(&b.finding));
    let findings = reported(&root, &fresh, rules, target.path, target.hash);
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

/// The dirty span of `edit` (turning `old` into `new`): changed structure and edited bytes,
/// widened to whole lines.
fn place(old: &str, new: &str, edit: TextEdit, old_tree: &Tree, new_tree: &Tree) -> Placement {
    let line_shift = newlines(&new[edit.start..edit.start + edit.inserted]).cast_signed()
        - newlines(&old[edit.start..edit.start + edit.deleted]).cast_signed();
    let byte_shift = edit.inserted.cast_signed() - edit.deleted.cast_signed();
    let (mut start, mut end) = (edit.start, edit.start + edit.inserted);
    for range in old_tree.changed_ranges(new_tree) {
        start = start.min(range.start_byte);
        end = end.max(range.end_byte);
    }
    let bytes = new.as_bytes();
    let end = end.min(bytes.len());
    let start = bytes[..start.min(end)]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |newline| newline + 1);
    let end = bytes[end..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |newline| end + newline);
    Placement {
        dirty: Span { start, end },
        old_dirty: Span {
            start,
            end: end.checked_add_signed(-byte_shift).unwrap_or(0),
        },
        byte_shift,
        line_shift,
    }
}

/// What the rules are matched for.
struct Target<'a> {
    applicable: &'a [&'a RuleConfig<SupportLang>],
    reaches: &'a [Option<usize>],
    path: &'a str,
    hash: &'a Content,
    prefilter: &'a Prefilter,
    /// Where the new text holds the pre-filters' literals.
    found: &'a Occurrences,
}

/// Matches again, in the new tree, every rule whose reach is unbounded on every node, and every
/// other rule on the nodes whose ancestor that many levels up is dirty. Returns the findings and
/// the non-dirty nodes matched again (their held findings are stale).
fn rematch(
    target: &Target<'_>,
    root: &AstGrep<StrDoc<SupportLang>>,
    dirty: Span,
) -> (Vec<KeyedFinding>, HashSet<NodeKey>) {
    let text = root.get_text();
    let by_kind = index_by_kind(target.applicable);
    let filters = Filters::new(target.prefilter, target.applicable, target.found);
    let mut fresh = Vec::new();
    let unbounded: Vec<Vec<usize>> = by_kind
        .iter()
        .map(|rules| {
            let rules = rules.iter().copied();
            rules.filter(|&i| target.reaches[i].is_none()).collect()
        })
        .collect();
    if unbounded.iter().any(|rules| !rules.is_empty()) {
        for node in root.root().dfs() {
            match_node(
                target.applicable,
                &unbounded,
                &filters,
                target.path,
                text,
                target.hash,
                &node,
                &mut fresh,
            );
        }
    }
    let mut rematched = HashSet::new();
    let Some(deepest) = target.reaches.iter().flatten().copied().max() else {
        return (fresh, rematched);
    };
    let mut stack = vec![(root.root(), 0usize)];
    while let Some((node, level)) = stack.pop() {
        let candidates = by_kind.get(usize::from(node.kind_id()));
        for &index in candidates.into_iter().flatten() {
            if target.reaches[index].is_none_or(|reach| reach < level) {
                continue;
            }
            let range = node.range();
            let key = NodeKey {
                rule: index,
                start: range.start,
                end: range.end,
                kind: node.kind_id(),
            };
            if level > 0 {
                rematched.insert(key);
            }
            if !filters.may_try(index, range) {
                continue;
            }
            let rule = target.applicable[index];
            if let Some(matched) = rule.matcher.match_node(node.clone()) {
                let finding = finding(rule, target.path, &matched, text, target.hash);
                fresh.push(KeyedFinding { key, finding });
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

fn newlines(text: &str) -> usize {
    text.matches('\n').count()
}

fn shift_lines(range: &mut super::finding::SourceRange, lines: isize) {
    range.start.line = range.start.line.saturating_add_signed(lines);
    range.end.line = range.end.line.saturating_add_signed(lines);
}

/// A byte span, both ends included: a node touches it when their ranges meet or overlap.
#[derive(Clone, Copy, Debug)]
struct Span {
    start: usize,
    end: usize,
}

impl Span {
    fn touches(&self, start: usize, end: usize) -> bool {
        start <= self.end && end >= self.start
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_edit_keeps_characters_whole() {
        let edit = diff_edit("aé", "aè");
        assert_eq!(
            edit,
            TextEdit {
                start: 1,
                deleted: 2,
                inserted: 2
            }
        );
        let edit = diff_edit("xx", "xxx");
        assert_eq!(
            edit,
            TextEdit {
                start: 2,
                deleted: 0,
                inserted: 1
            }
        );
        let edit = diff_edit("abc", "");
        assert_eq!(
            edit,
            TextEdit {
                start: 0,
                deleted: 3,
                inserted: 0
            }
        );
    }

    #[test]
    fn hint_must_reproduce_the_new_text() {
        let hint = EditHint {
            old_text: "b".into(),
            new_text: "XY".into(),
        };
        assert_eq!(
            hinted_edit("abc", "aXYc", &hint),
            Some(TextEdit {
                start: 1,
                deleted: 1,
                inserted: 2
            })
        );
        assert_eq!(hinted_edit("abc", "aXYd", &hint), None);
        // A wide hint is narrowed to the characters it changes.
        let wide = EditHint {
            old_text: "line one\nline two\n".into(),
            new_text: "line one\nline 2\n".into(),
        };
        assert_eq!(
            hinted_edit("x\nline one\nline two\ny", "x\nline one\nline 2\ny", &wide),
            Some(TextEdit {
                start: 16,
                deleted: 3,
                inserted: 1
            })
        );
    }

    #[test]
    fn point_columns_count_bytes() {
        assert_eq!(point_at("é\nxé", 6), Point::new(1, 3));
    }
}

//! Cheap necessary conditions for rules, derived from the rules themselves, so a rule's full
//! ast-grep matcher runs only where it could match.
//!
//! For each rule, the `regex:` constraints of its rule tree say which literal text must occur for
//! a match: `^(//+|/\*+)\s*(eslint-disable…|biome-ignore…)` needs `eslint-disable` or
//! `biome-ignore`. A constraint on the node itself, or on a descendant (`has`), needs the literal
//! inside the node's own byte range; one on an ancestor or sibling (`inside`, `follows`,
//! `precedes`) needs it somewhere in the file. Each file's text is searched once for every literal
//! of every rule (one Aho-Corasick pass); a rule none of whose literals occurs is not applied to
//! the file, and a node whose range holds none of its rule's node literals is not handed to the
//! rule's matcher.
//!
//! Every condition is necessary, never sufficient: whatever passes still goes through the full
//! matcher, so the findings are exactly those without pre-filters. Literals are matched ASCII
//! case-insensitively (so a `(?i)` regex needs no special case), and whatever cannot be derived
//! soundly (patterns, `not`, utility rules, a regex that does not parse here) yields no condition.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use ast_grep_config::SerializableRule;
use regex_syntax::hir::{Class, Hir, HirKind};
use serde_json::{Map, Value};
use std::collections::{BTreeSet, HashMap};
use std::ops::Range;

/// Literals shorter than this are too common to be worth a condition.
const MIN_LITERAL_BYTES: usize = 3;
/// The most literals one set may hold; a bigger set is no condition.
const MAX_LITERALS: usize = 64;
/// Characters of a class expanded into literals (`(?i)s` is the class `[Ssſ]`).
const MAX_CLASS_CHARS: usize = 4;
/// Copies of a repeated literal a repetition's minimum is expanded into (`\.{3,}` needs `...`).
const MAX_REPEAT: u32 = 8;

/// A set of literals (bytes, ASCII letters lowercased), one of which must occur.
pub(crate) type Literals = BTreeSet<Vec<u8>>;

/// The literals a rule needs: inside every node it matches, and in every file it matches in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RuleNeeds {
    /// One of these occurs inside every node the rule matches.
    pub node: Option<Literals>,
    /// One of these occurs in every file the rule matches in.
    pub file: Option<Literals>,
}

impl RuleNeeds {
    /// The conditions of a rule tree (a rule's `constraints`, which only narrow, add nothing).
    pub fn of(rule: &SerializableRule) -> Self {
        // The tree is walked in its serialized form: the relational rule type of `has`, `inside`,
        // … is not exported by ast-grep-config.
        let Ok(Value::Object(tree)) = serde_json::to_value(rule) else {
            return Self::default();
        };
        let node = node_needs(&tree);
        let file = best(vec![node.clone(), file_needs(&tree)]);
        Self { node, file }
    }
}

/// The literals one of which occurs in the text of every node `rule` matches.
fn node_needs(rule: &Map<String, Value>) -> Option<Literals> {
    let mut candidates = Vec::new();
    if let Some(Value::String(regex)) = rule.get("regex") {
        candidates.push(regex_needs(regex));
    }
    // A descendant's text lies inside the node's.
    if let Some(Value::Object(has)) = rule.get("has") {
        candidates.push(node_needs(has));
    }
    if let Some(Value::Array(all)) = rule.get("all") {
        candidates.extend(all.iter().map(|sub| sub.as_object().and_then(node_needs)));
    }
    if let Some(Value::Array(any)) = rule.get("any") {
        candidates.push(union(
            any.iter().map(|sub| sub.as_object().and_then(node_needs)),
        ));
    }
    best(candidates)
}

/// The literals one of which occurs somewhere in every file `rule` matches in.
fn file_needs(rule: &Map<String, Value>) -> Option<Literals> {
    let mut candidates = vec![node_needs(rule)];
    for relation in ["has", "inside", "follows", "precedes"] {
        if let Some(Value::Object(related)) = rule.get(relation) {
            candidates.push(file_needs(related));
        }
    }
    if let Some(Value::Array(all)) = rule.get("all") {
        candidates.extend(all.iter().map(|sub| sub.as_object().and_then(file_needs)));
    }
    if let Some(Value::Array(any)) = rule.get("any") {
        candidates.push(union(
            any.iter().map(|sub| sub.as_object().and_then(file_needs)),
        ));
    }
    best(candidates)
}

/// Of several conditions that all hold, the most selective: the one whose shortest literal is
/// longest (then the one with fewer literals).
fn best(candidates: Vec<Option<Literals>>) -> Option<Literals> {
    candidates
        .into_iter()
        .flatten()
        .filter(usable)
        .max_by_key(|set| {
            let shortest = set.iter().map(Vec::len).min().unwrap_or(0);
            (shortest, std::cmp::Reverse(set.len()))
        })
}

/// One of several alternatives holds: the union of their conditions, if each has one.
fn union(alternatives: impl Iterator<Item = Option<Literals>>) -> Option<Literals> {
    let mut all = Literals::new();
    let mut any = false;
    for alternative in alternatives {
        all.extend(alternative?);
        any = true;
    }
    (any && usable(&all)).then_some(all)
}

/// A condition worth checking: not empty, not too big, no literal too short.
fn usable(set: &Literals) -> bool {
    !set.is_empty()
        && set.len() <= MAX_LITERALS
        && set.iter().all(|literal| literal.len() >= MIN_LITERAL_BYTES)
}

/// The literals one of which occurs in every text `regex` finds a match in, or `None`.
///
/// The regex is parsed with the defaults the `regex` crate (and so ast-grep) uses.
pub(crate) fn regex_needs(regex: &str) -> Option<Literals> {
    let hir = regex_syntax::Parser::new().parse(regex).ok()?;
    match shape(&hir) {
        Shape::Exact(set) => Some(set),
        Shape::Contains(set) => set,
    }
    .filter(usable)
}

/// What a sub-expression's matches are known to be.
enum Shape {
    /// Every match is exactly one of these (lowercased) strings.
    Exact(Literals),
    /// Every match contains one of these, if known.
    Contains(Option<Literals>),
}

impl Shape {
    /// As a condition: an exact set holding the empty string needs nothing.
    fn needs(self) -> Option<Literals> {
        match self {
            Shape::Exact(set) => (!set.contains(&Vec::new())).then_some(set),
            Shape::Contains(set) => set,
        }
        .filter(usable)
    }
}

fn empty_string() -> Literals {
    Literals::from([Vec::new()])
}

fn shape(hir: &Hir) -> Shape {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Shape::Exact(empty_string()),
        HirKind::Literal(literal) => Shape::Exact(Literals::from([literal.0.to_ascii_lowercase()])),
        HirKind::Class(class) => class_shape(class),
        HirKind::Capture(capture) => shape(&capture.sub),
        HirKind::Repetition(repetition) => {
            if repetition.min == 0 {
                return Shape::Contains(None);
            }
            let inner = shape(&repetition.sub);
            match inner {
                Shape::Exact(set) if repetition.max == Some(1) => Shape::Exact(set),
                Shape::Exact(set) if set.len() == 1 && repetition.min <= MAX_REPEAT => {
                    let one = set.into_iter().next().unwrap_or_default();
                    let copies = usize::try_from(repetition.min).unwrap_or(1);
                    let repeated = one.repeat(copies);
                    if repetition.max == Some(repetition.min) {
                        Shape::Exact(Literals::from([repeated]))
                    } else {
                        Shape::Contains(Some(Literals::from([repeated])).filter(usable))
                    }
                }
                other => Shape::Contains(other.needs()),
            }
        }
        HirKind::Concat(parts) => concat_shape(parts),
        HirKind::Alternation(alternatives) => {
            let shapes: Vec<Shape> = alternatives.iter().map(shape).collect();
            if shapes.iter().all(|s| matches!(s, Shape::Exact(_))) {
                let mut set = Literals::new();
                for s in shapes {
                    if let Shape::Exact(exact) = s {
                        set.extend(exact);
                    }
                }
                if set.len() <= MAX_LITERALS {
                    return Shape::Exact(set);
                }
                return Shape::Contains(None);
            }
            Shape::Contains(union(shapes.into_iter().map(Shape::needs)))
        }
    }
}

/// A class of at most [`MAX_CLASS_CHARS`] characters is the exact set of them.
fn class_shape(class: &Class) -> Shape {
    let mut set = Literals::new();
    match class {
        Class::Unicode(class) => {
            for range in class.iter() {
                for c in range.start()..=range.end() {
                    let mut buffer = [0; 4];
                    set.insert(c.encode_utf8(&mut buffer).as_bytes().to_ascii_lowercase());
                    if set.len() > MAX_CLASS_CHARS {
                        return Shape::Contains(None);
                    }
                }
            }
        }
        Class::Bytes(class) => {
            for range in class.iter() {
                for b in range.start()..=range.end() {
                    set.insert(vec![b.to_ascii_lowercase()]);
                    if set.len() > MAX_CLASS_CHARS {
                        return Shape::Contains(None);
                    }
                }
            }
        }
    }
    if set.is_empty() {
        // A class that matches nothing: nothing is known (and nothing will match).
        Shape::Contains(None)
    } else {
        Shape::Exact(set)
    }
}

/// Exact parts in a row multiply into exact strings; any other part ends the run. Each run and
/// each part's own condition is a candidate; the best one is the concatenation's condition.
fn concat_shape(parts: &[Hir]) -> Shape {
    let mut run = empty_string();
    let mut candidates = Vec::new();
    let mut exact = true;
    for part in parts {
        match shape(part) {
            Shape::Exact(set) => {
                if run.len().saturating_mul(set.len()) <= MAX_LITERALS {
                    run = run
                        .iter()
                        .flat_map(|head| {
                            set.iter().map(move |tail| {
                                let mut joined = head.clone();
                                joined.extend_from_slice(tail);
                                joined
                            })
                        })
                        .collect();
                } else {
                    exact = false;
                    candidates.push(Shape::Exact(std::mem::replace(&mut run, set)).needs());
                }
            }
            Shape::Contains(needs) => {
                exact = false;
                candidates.push(Shape::Exact(std::mem::replace(&mut run, empty_string())).needs());
                candidates.push(needs);
            }
        }
    }
    if exact {
        return Shape::Exact(run);
    }
    candidates.push(Shape::Exact(run).needs());
    Shape::Contains(best(candidates))
}

/// The literals of every rule of a set, searched for in one pass per file.
pub(crate) struct Prefilter {
    /// Every distinct literal, ASCII case-insensitive; `None` when no rule has a condition.
    automaton: Option<AhoCorasick>,
    /// The byte length of each literal, by pattern id.
    lengths: Vec<usize>,
    /// The conditions of each rule with one, by rule id, as pattern ids.
    rules: HashMap<String, RuleFilter>,
    /// The same conditions as literals, by rule id.
    needs: HashMap<String, RuleNeeds>,
}

/// One rule's conditions, as pattern ids of the automaton.
#[derive(Debug, Default)]
struct RuleFilter {
    node: Option<Vec<usize>>,
    file: Option<Vec<usize>>,
}

impl Prefilter {
    /// The conditions of `rules` (id and rule tree each).
    pub(crate) fn new<'a>(
        rules: impl IntoIterator<Item = (&'a str, &'a SerializableRule)>,
    ) -> Self {
        let mut ids: HashMap<Vec<u8>, usize> = HashMap::new();
        let mut patterns: Vec<Vec<u8>> = Vec::new();
        let mut intern = |set: Literals| -> Vec<usize> {
            set.into_iter()
                .map(|literal| {
                    *ids.entry(literal.clone()).or_insert_with(|| {
                        patterns.push(literal);
                        patterns.len() - 1
                    })
                })
                .collect()
        };
        let mut filters = HashMap::new();
        let mut all_needs = HashMap::new();
        for (id, rule) in rules {
            let needs = RuleNeeds::of(rule);
            if needs == RuleNeeds::default() {
                continue;
            }
            let filter = RuleFilter {
                node: needs.node.clone().map(&mut intern),
                file: needs.file.clone().map(&mut intern),
            };
            filters.insert(id.to_owned(), filter);
            all_needs.insert(id.to_owned(), needs);
        }
        let automaton = if patterns.is_empty() {
            None
        } else {
            AhoCorasickBuilder::new()
                .ascii_case_insensitive(true)
                .match_kind(MatchKind::Standard)
                .build(&patterns)
                .ok()
        };
        // Without an automaton no condition can be checked: keep none.
        if automaton.is_none() {
            filters.clear();
            all_needs.clear();
        }
        Self {
            automaton,
            lengths: patterns.iter().map(Vec::len).collect(),
            rules: filters,
            needs: all_needs,
        }
    }

    /// No conditions at all: every rule is tried on every node of its kinds.
    pub(crate) fn none() -> Self {
        Self {
            automaton: None,
            lengths: Vec::new(),
            rules: HashMap::new(),
            needs: HashMap::new(),
        }
    }

    /// The literals rule `id` needs; empty when it has no condition.
    pub(crate) fn needs(&self, id: &str) -> RuleNeeds {
        self.needs.get(id).cloned().unwrap_or_default()
    }

    /// Where each literal occurs in `text`: one pass over the text for every rule.
    pub(crate) fn occurrences(&self, text: &str) -> Occurrences {
        let mut starts = vec![Vec::new(); self.lengths.len()];
        if let Some(automaton) = &self.automaton {
            for found in automaton.find_overlapping_iter(text) {
                starts[found.pattern().as_usize()].push(found.start());
            }
        }
        Occurrences { starts }
    }

    /// Whether rule `id` can match anywhere in the file whose literals are `found`.
    pub(crate) fn file_may_match(&self, id: &str, found: &Occurrences) -> bool {
        match self.rules.get(id).and_then(|filter| filter.file.as_ref()) {
            Some(ids) => ids.iter().any(|&id| !found.starts[id].is_empty()),
            None => true,
        }
    }

    /// The node condition of rule `id` in the file whose literals are `found`, or `None` when the
    /// rule has none (every node of its kinds is tried).
    pub(crate) fn node_check<'a>(&self, id: &str, found: &'a Occurrences) -> Option<NodeCheck<'a>> {
        let ids = self.rules.get(id)?.node.as_ref()?;
        Some(NodeCheck {
            literals: ids
                .iter()
                .map(|&id| (found.starts[id].as_slice(), self.lengths[id]))
                .filter(|(starts, _)| !starts.is_empty())
                .collect(),
        })
    }
}

/// The start offsets of each literal in one file, by pattern id, ascending.
pub(crate) struct Occurrences {
    starts: Vec<Vec<usize>>,
}

/// One rule's node condition in one file: the literals it needs, with where they occur.
pub(crate) struct NodeCheck<'a> {
    /// Start offsets (ascending) and byte length of each needed literal that occurs in the file.
    literals: Vec<(&'a [usize], usize)>,
}

impl NodeCheck<'_> {
    /// Whether a node spanning `range` (byte offsets) holds one of the needed literals.
    pub(crate) fn may_match(&self, range: Range<usize>) -> bool {
        self.literals.iter().any(|&(starts, length)| {
            // The first occurrence starting in the node ends first: every occurrence of one
            // literal has the same length.
            let first = starts.partition_point(|&start| start < range.start);
            starts
                .get(first)
                .is_some_and(|&start| start + length <= range.end)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(items: &[&str]) -> Option<Literals> {
        let literals: Literals = items.iter().map(|item| item.as_bytes().to_vec()).collect();
        (!literals.is_empty()).then_some(literals)
    }

    #[test]
    fn a_regex_needs_its_literals() {
        assert_eq!(
            regex_needs(r"^(//+|/\*+)\s*(eslint-disable(-next-line|-line)?|biome-ignore)(\s|$)"),
            set(&["biome-ignore", "eslint-disable"])
        );
        assert_eq!(regex_needs("^x(it|test)$"), set(&["xit", "xtest"]));
        assert_eq!(regex_needs(r"^(//+|/\*+)\s*(\.{3,}|…)"), set(&["...", "…"]));
        assert_eq!(regex_needs(r"\b(TODO|FIXME)\b"), set(&["fixme", "todo"]));
    }

    #[test]
    fn case_insensitive_literals_are_lowercased_with_their_unicode_folds() {
        // `(?i)` folds `s` to `[Ssſ]` and `k` to `[KkK]`: each fold is a literal of its own.
        assert_eq!(regex_needs("(?i)^todo$"), set(&["todo"]));
        assert_eq!(regex_needs("(?i)same"), set(&["same", "ſame"]));
    }

    #[test]
    fn what_cannot_be_derived_needs_nothing() {
        for regex in ["a*", "^(a|bcd)$", "^[a-z]+$", "(foo)?bar?", "(", ".{3}", ""] {
            assert_eq!(regex_needs(regex), None, "{regex}");
        }
    }

    #[test]
    fn a_node_needs_only_what_it_and_its_descendants_hold() {
        let rule: SerializableRule = serde_json::from_value(serde_json::json!({
            "kind": "call_expression",
            "has": { "field": "function", "regex": "^console\\.log$" },
            "inside": { "kind": "function_declaration", "regex": "^async" },
            "not": { "regex": "debugger" }
        }))
        .expect("a rule");
        let needs = RuleNeeds::of(&rule);
        assert_eq!(needs.node, set(&["console.log"]));
        assert_eq!(needs.file, set(&["console.log"]));
        let rule: SerializableRule = serde_json::from_value(serde_json::json!({
            "kind": "call_expression",
            "inside": { "kind": "function_declaration", "regex": "^async" },
            "any": [ { "regex": "^foo" }, { "kind": "identifier" } ]
        }))
        .expect("a rule");
        let needs = RuleNeeds::of(&rule);
        assert_eq!(needs.node, None, "one alternative needs nothing");
        assert_eq!(needs.file, set(&["async"]));
    }

    #[test]
    fn a_node_check_looks_inside_the_node_only() {
        let rule: SerializableRule =
            serde_json::from_value(serde_json::json!({ "kind": "comment", "regex": "@ts-ignore" }))
                .expect("a rule");
        let prefilter = Prefilter::new([("r", &rule)]);
        let text = "// @TS-IGNORE\nlet a = 1; // @ts-ignore";
        let found = prefilter.occurrences(text);
        assert!(prefilter.file_may_match("r", &found));
        assert!(prefilter.file_may_match("a rule without a condition", &found));
        assert!(!prefilter.file_may_match("r", &prefilter.occurrences("// nothing")));
        let check = prefilter.node_check("r", &found).expect("a condition");
        assert!(check.may_match(0..13), "ASCII case-insensitive");
        assert!(!check.may_match(0..12), "cut short");
        assert!(!check.may_match(14..24));
        assert!(check.may_match(25..text.len()));
        assert!(check.may_match(0..text.len()));
        assert!(prefilter.node_check("other", &found).is_none());
    }
}

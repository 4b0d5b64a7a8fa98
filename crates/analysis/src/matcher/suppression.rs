//! ast-grep's suppression comments (`// ast-grep-ignore`, `// ast-grep-ignore: rule-a, rule-b`),
//! re-derived from one parsed version of a file: which comment suppresses which rules on which
//! line, and which comments suppressed nothing (reported as `unused-suppression` hints).
//!
//! ast-grep-config's `CombinedScan` applies suppressions inside its own whole-file traversal, so
//! its result cannot be kept across an edit. The matcher instead finds a file's *unsuppressed*
//! matches (which [`crate::incremental`] keeps across edits) and applies the suppressions of each
//! version to them here: finding the comments costs one substring search of the text and a walk
//! up the tree from each occurrence, not a traversal. Every rule below mirrors `CombinedScan` of
//! ast-grep-config 0.51 (`get_suppression_kind`, `parse_suppression_set`, the order in which it
//! records comments and tests a match); the incremental property tests, the suppression tests and
//! the CLI parity tests compare the two on every version they see.

/// The comment ast-grep's suppressions start with.
pub(crate) const SUPPRESSION_MARKER: &str = "ast-grep-ignore";
use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_core::{AstGrep, Node, NodeMatch};
use ast_grep_language::SupportLang;
use std::collections::{HashMap, HashSet};

type Root = AstGrep<StrDoc<SupportLang>>;

/// One suppression comment.
struct Directive<'r> {
    node: Node<'r, StrDoc<SupportLang>>,
    /// The rule ids it names; `None` suppresses every rule.
    rules: Option<HashSet<String>>,
    /// Whether it suppressed a match.
    used: bool,
}

impl Directive<'_> {
    fn covers(&self, rule: &str) -> bool {
        self.rules.as_ref().is_none_or(|rules| rules.contains(rule))
    }
}

/// The suppression comments of one version of a file.
pub(super) struct Suppressions<'r> {
    directives: Vec<Directive<'r>>,
    /// The directive heading the file, which applies to every line.
    file: Option<usize>,
    /// The directive applying to each line; a later comment for the same line replaces an earlier
    /// one, which then stays unused, as in `CombinedScan`.
    lines: HashMap<usize, usize>,
}

/// Where a suppression comment applies.
enum Reach {
    /// To the whole file: a comment on the first line, alone on it, followed by a blank line or by
    /// nothing (ast-grep issue 1541).
    File,
    /// To the matches starting on this line.
    Line(usize),
}

impl<'r> Suppressions<'r> {
    /// The suppression comments of `root`, in the order `CombinedScan`'s pre-order traversal meets
    /// them (document order: comments do not nest in the TS and TSX grammars, and a comment node
    /// holding another sorts before it).
    pub(super) fn of(root: &'r Root) -> Self {
        let mut comments: Vec<(
            usize,
            std::cmp::Reverse<usize>,
            usize,
            tree_sitter::Node<'r>,
        )> = Vec::new();
        let mut seen = HashSet::new();
        let text = root.get_text();
        let tree = root.root().get_inner_node();
        for (at, marker) in text.match_indices(SUPPRESSION_MARKER) {
            // Every comment holding the marker is an ancestor (or is the node itself) of the
            // smallest node spanning this occurrence.
            let mut cursor = tree.descendant_for_byte_range(at, at + marker.len());
            while let Some(node) = cursor {
                if node.kind().contains("comment") && seen.insert(node.id()) {
                    let depth =
                        std::iter::successors(node.parent(), tree_sitter::Node::parent).count();
                    comments.push((
                        node.start_byte(),
                        std::cmp::Reverse(node.end_byte()),
                        depth,
                        node,
                    ));
                }
                cursor = node.parent();
            }
        }
        comments.sort_unstable_by_key(|&(start, end, depth, _)| (start, end, depth));
        let mut suppressions = Self {
            directives: Vec::new(),
            file: None,
            lines: HashMap::new(),
        };
        for (.., inner) in comments {
            let node = root.adopt(inner);
            let Some(reach) = reach(&node) else {
                continue;
            };
            let index = suppressions.directives.len();
            let rules = rule_set(&node.text());
            let suppresses_all = rules.is_none();
            suppressions.directives.push(Directive {
                node,
                rules,
                used: false,
            });
            match reach {
                Reach::File => {
                    suppressions.file = Some(index);
                    // `CombinedScan` stops collecting here and reports nothing for the file.
                    if suppresses_all {
                        break;
                    }
                }
                Reach::Line(line) => {
                    suppressions.lines.insert(line, index);
                }
            }
        }
        suppressions
    }

    /// Whether a bare directive heading the file silences it entirely, unused directives included.
    pub(super) fn silences_file(&self) -> bool {
        self.file
            .is_some_and(|index| self.directives[index].rules.is_none())
    }

    /// Whether a match of `rule` whose node starts on `line` (0-based) is suppressed; the
    /// directive that suppresses it counts as used. The file's directive is consulted first.
    pub(super) fn suppresses(&mut self, rule: &str, line: usize) -> bool {
        for index in [self.file, self.lines.get(&line).copied()]
            .into_iter()
            .flatten()
        {
            let directive = &mut self.directives[index];
            if directive.covers(rule) {
                directive.used = true;
                return true;
            }
        }
        false
    }

    /// The directives that suppressed nothing, as matches for the `unused-suppression` rule (none
    /// when the file is silenced).
    pub(super) fn unused(&self) -> Vec<NodeMatch<'r, StrDoc<SupportLang>>> {
        if self.silences_file() {
            return Vec::new();
        }
        self.directives
            .iter()
            .filter(|directive| !directive.used)
            .map(|directive| NodeMatch::from(directive.node.clone()))
            .collect()
    }
}

/// Whether `node` is a suppression comment: a comment whose first alphabetic text is the marker
/// (otherwise the marker is prose).
fn is_directive(node: &Node<'_, StrDoc<SupportLang>>) -> bool {
    if !node.kind().contains("comment") {
        return false;
    }
    let text = node.text();
    text.find(char::is_alphabetic)
        .is_some_and(|start| text[start..].starts_with(SUPPRESSION_MARKER))
}

/// Where the suppression comment `node` applies, if it is one. A comment trailing code applies to
/// the line where that code (its preceding sibling) starts; a comment alone on its line applies to
/// the next line, or to the whole file when it heads the file and a blank line or nothing follows.
fn reach(node: &Node<'_, StrDoc<SupportLang>>) -> Option<Reach> {
    if !is_directive(node) {
        return None;
    }
    let line = node.start_pos().line();
    let trailing = node.prev().filter(|prev| prev.end_pos().line() == line);
    if line == 0
        && trailing.is_none()
        && node.next().is_none_or(|next| next.start_pos().line() >= 2)
    {
        return Some(Reach::File);
    }
    Some(Reach::Line(
        trailing.map_or(line + 1, |code| code.start_pos().line()),
    ))
}

/// The rule ids a directive's text names, `None` for every rule: a bare directive, or one whose
/// text after the marker has no `:`. An id ends at the first space, so a block comment's `*/`
/// is not part of it.
fn rule_set(text: &str) -> Option<HashSet<String>> {
    let (_, after) = text.trim().split_once(SUPPRESSION_MARKER)?;
    let (_, rules) = after.trim().split_once(':')?;
    Some(
        rules
            .split(',')
            .filter_map(|rule| rule.trim_start().split(' ').next())
            .map(ToOwned::to_owned)
            .collect(),
    )
}

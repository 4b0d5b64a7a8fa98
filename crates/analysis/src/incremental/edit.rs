//! Locating an edit and re-parsing around it: the edit turning a held text into the new one (from
//! an `edit` tool call's hint when it reproduces the new text, otherwise from the common prefix
//! and suffix), applied to the held syntax tree, the new text re-parsed reusing that tree, and
//! the *dirty span*: what tree-sitter reports as changed plus the edited bytes, widened to whole
//! lines.

use crate::cache::tree_cache::HeldFile;
use ast_grep_core::Doc;
use ast_grep_core::tree_sitter::LanguageExt;
use ast_grep_language::SupportLang;
use std::cell::RefCell;
use std::collections::HashMap;
use tree_sitter::{InputEdit, Parser, Point, Tree};

use pi_native_hooks_base::{TextEdit, diff_edit};

/// The largest edit re-analyzed incrementally is one part in this many of the file: an edit
/// deleting or inserting more than a quarter of the file is analyzed in full (it re-parses most of
/// the file anyway, and a rewrite is not worth the bookkeeping).
pub(super) const MAX_EDIT_SHARE_DIVISOR: usize = 4;

/// What an `edit` tool call did to one file: `old_text` replaced by `new_text`, once. It lets the
/// analyzer locate the edit without comparing the whole file; it is verified against the new
/// text, and ignored when it does not reproduce it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EditHint {
    /// The text the call says it replaced; trusted only once it reproduces the new text.
    pub old_text: String,
    /// The text that replaced it.
    pub new_text: String,
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

/// Where an edit left the new text, and how it moved what follows.
pub(super) struct Placement {
    /// The dirty span in the new text.
    pub(super) dirty: Span,
    /// The same span in the old text.
    pub(super) old_dirty: Span,
    /// Bytes added (or, negative, removed) before everything after the span.
    pub(super) byte_shift: isize,
    /// Lines added (or removed) likewise.
    pub(super) line_shift: isize,
}

/// Applies the edit turning `held`'s text into `text` to its tree and re-parses `text` with it;
/// `None` when the edit is too large or tree-sitter cannot parse.
pub(super) fn edit_tree(
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

fn newlines(text: &str) -> usize {
    text.matches('\n').count()
}

/// A byte span, both ends included: a node touches it when their ranges meet or overlap.
#[derive(Clone, Copy, Debug)]
pub(super) struct Span {
    pub(super) start: usize,
    pub(super) end: usize,
}

impl Span {
    pub(super) fn touches(&self, start: usize, end: usize) -> bool {
        start <= self.end && end >= self.start
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

//! Owns turning a document's old text into its new one as a single incremental change: the range
//! of the old text between the two texts' common prefix and common suffix (LSP positions: lines,
//! and UTF-16 code units within a line), and the text that replaces it.

use lsp_types::{Position, Range};
use pi_native_hooks_base::diff_edit;

/// One incremental change.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Edit {
    /// The range of the old text replaced.
    pub(crate) range: Range,
    /// What replaces it.
    pub(crate) text: String,
}

/// The edit that turns `old` into `new`, or `None` where positions could be read two ways (a
/// lone `\r`, which the protocol counts as a line break and the engine's line count does not):
/// the whole text is sent then.
pub(crate) fn single(old: &str, new: &str) -> Option<Edit> {
    if has_lone_cr(old) || has_lone_cr(new) {
        return None;
    }
    // The common prefix and suffix, on character boundaries, as the analyzer finds them; then
    // widened so no boundary falls between the `\r` and `\n` of a line break.
    let span = diff_edit(old, new);
    let mut prefix = span.start;
    let (mut old_end, mut new_end) = (span.start + span.deleted, span.start + span.inserted);
    while splits_crlf(old, prefix) || splits_crlf(new, prefix) {
        prefix -= 1;
    }
    while splits_crlf(old, old_end) || splits_crlf(new, new_end) {
        old_end += 1;
        new_end += 1;
    }
    Some(Edit {
        range: Range::new(position(old, prefix), position(old, old_end)),
        text: new[prefix..new_end].to_owned(),
    })
}

/// Whether the byte offset `at` falls between the `\r` and the `\n` of a line break.
fn splits_crlf(text: &str, at: usize) -> bool {
    at > 0 && text.as_bytes().get(at - 1) == Some(&b'\r') && text.as_bytes().get(at) == Some(&b'\n')
}

fn has_lone_cr(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes
        .iter()
        .enumerate()
        .any(|(i, b)| *b == b'\r' && bytes.get(i + 1) != Some(&b'\n'))
}

/// The LSP position of the byte offset `at` (a char boundary) of `text`.
fn position(text: &str, at: usize) -> Position {
    let before = &text[..at];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = before.bytes().filter(|b| *b == b'\n').count();
    let character: usize = before[line_start..].chars().map(char::len_utf16).sum();
    Position::new(
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(character).unwrap_or(u32::MAX),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Applies `edit` to `old` the way a server does, from its LSP positions.
    fn apply(old: &str, edit: &Edit) -> String {
        let offset = |p: Position| {
            let mut offset = 0;
            for (line, text) in old.split_inclusive('\n').enumerate() {
                if line == p.line as usize {
                    let mut units = 0;
                    for (i, c) in text.char_indices() {
                        if units == p.character as usize {
                            return offset + i;
                        }
                        units += c.len_utf16();
                    }
                    return offset + text.len();
                }
                offset += text.len();
            }
            offset
        };
        let (start, end) = (offset(edit.range.start), offset(edit.range.end));
        format!("{}{}{}", &old[..start], edit.text, &old[end..])
    }

    #[test]
    fn the_edit_is_the_changed_span_in_utf16_positions_and_applies_back() {
        let cases = [
            (
                "const a = 1;\nconst b = 2;\n",
                "const a = 1;\nconst b = 3;\n",
            ),
            ("a\nb\n", "// new first line\na\nb\n"),
            ("a\nb\n", "a\nb\nc\n"),
            ("a\nb\nc\n", "a\nc\n"),
            ("same\n", "same\n"),
            ("", "new\n"),
            ("old\n", ""),
            ("const s = \"héllo 🎉 x\";\n", "const s = \"héllo 🎉 y\";\n"),
            ("const s = \"🎉\";\n", "const s = \"🎊\";\n"),
            ("a\r\nb\r\n", "a\r\nB\r\n"),
            ("a\r\nb\r\n", "a\r\n\r\nb\r\n"),
            ("aaa", "aaaa"),
        ];
        for (old, new) in cases {
            let edit = single(old, new).expect("an edit");
            assert_eq!(apply(old, &edit), new, "{old:?} -> {new:?}: {edit:?}");
        }
        let emoji = single("x = \"🎉\";\n", "x = \"🎉!\";\n").expect("an edit");
        assert_eq!(
            emoji.range.start,
            Position::new(0, 7),
            "the emoji is two UTF-16 units"
        );
        assert_eq!(emoji.text, "!");
    }

    #[test]
    fn a_lone_carriage_return_sends_the_whole_text() {
        assert_eq!(single("a\rb", "a\rc"), None);
    }
}

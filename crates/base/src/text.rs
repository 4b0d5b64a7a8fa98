//! Owns how text the engine does not control is shown: file names, rule and policy messages,
//! commands and reasons reach a terminal or the model's block only through [`escape`] (or
//! [`Escaped`]), so a file name cannot start a line that looks like a result, move the cursor,
//! recolour the terminal or reorder the text around it.
//!
//! Escaped characters:
//!
//! * the C0 controls U+0000–U+001F (tab, newline and carriage return included), DEL (U+007F) and
//!   the C1 controls U+0080–U+009F (NEL and the 8-bit CSI among them);
//! * the line and paragraph separators U+2028 and U+2029;
//! * the bidirectional formatting characters: U+061C (Arabic letter mark), U+200E and U+200F
//!   (left-to-right and right-to-left marks), U+202A–U+202E (embeddings and overrides) and
//!   U+2066–U+2069 (isolates).
//!
//! `\t`, `\n` and `\r` become those two characters; every other escaped character becomes
//! `\u{…}` with its code point in lowercase hex, as Rust writes it (ESC is `\u{1b}`). Everything
//! else is kept, backslashes included: the escaped form is for reading, not reversible, and
//! machine output (`check --json`, the status object) carries the original text.

use std::borrow::Cow;
use std::fmt;

/// True for the characters [`escape`] rewrites (see the module documentation).
pub fn is_escaped(c: char) -> bool {
    matches!(
        c,
        '\u{0}'..='\u{1f}'
            | '\u{7f}'..='\u{9f}'
            | '\u{61c}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
    )
}

/// `text` with every control, separator and bidirectional formatting character escaped; borrowed
/// when there is nothing to escape.
pub fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_escaped) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(Escaped(text).to_string())
}

/// Each line of `text` escaped, the line breaks kept: for multi-line text the engine built
/// itself (a report) whose lines embed names or messages.
pub fn escape_lines(text: &str) -> String {
    text.split('\n').map(escape).collect::<Vec<_>>().join("\n")
}

/// Displays its text escaped, without an intermediate allocation: `format!("{}", Escaped(path))`.
#[derive(Clone, Copy, Debug)]
pub struct Escaped<'a>(pub &'a str);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.0;
        while let Some(at) = rest.find(is_escaped) {
            f.write_str(&rest[..at])?;
            let Some(c) = rest[at..].chars().next() else {
                break;
            };
            match c {
                '\t' => f.write_str("\\t")?,
                '\n' => f.write_str("\\n")?,
                '\r' => f.write_str("\\r")?,
                other => write!(f, "\\u{{{:x}}}", u32::from(other))?,
            }
            rest = &rest[at + c.len_utf8()..];
        }
        f.write_str(rest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_separators_and_bidi_characters_are_escaped_and_the_rest_is_kept() {
        assert_eq!(
            escape("a\tb\nc\rd\u{1b}[31me\u{7f}\u{85}\u{9b}"),
            "a\\tb\\nc\\rd\\u{1b}[31me\\u{7f}\\u{85}\\u{9b}"
        );
        assert_eq!(
            escape("\u{61c}\u{200e}\u{200f}\u{202a}\u{202e}\u{2066}\u{2069}\u{2028}\u{2029}"),
            "\\u{61c}\\u{200e}\\u{200f}\\u{202a}\\u{202e}\\u{2066}\\u{2069}\\u{2028}\\u{2029}"
        );
        assert!(matches!(
            escape("src/ünï cödé\\x.ts — ok"),
            Cow::Borrowed("src/ünï cödé\\x.ts — ok")
        ));
        assert_eq!(escape(""), "");
    }

    #[test]
    fn escape_lines_keeps_the_line_breaks_and_escapes_within_lines() {
        assert_eq!(
            escape_lines("one\u{1b}[2J\ntwo\r\n"),
            "one\\u{1b}[2J\ntwo\\r\n"
        );
    }
}

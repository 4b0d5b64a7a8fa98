//! The text a required command may hold: the blanks trimmed from its ends and the characters
//! refused inside it, shared with the gate, which compares a `bash` call's command the same way.

/// The blanks stripped from both ends of a required command and of a `bash` call's command: the
/// ASCII space, tab and newline bash splits words on. Unicode spaces, `\r` or `\v` are not blanks
/// to bash (`cargo test\u{a0}` runs `cargo test` with a test filter), so they are never stripped.
const COMMAND_BLANKS: [char; 3] = [' ', '\t', '\n'];

/// `command` without [`COMMAND_BLANKS`] at its ends.
pub fn trim_command(command: &str) -> &str {
    command.trim_matches(COMMAND_BLANKS)
}

/// The first character of `command` (index in characters, and the character) that a required
/// command may not hold: a control character other than tab and newline, a Unicode space
/// character other than the ASCII space, or an invisible formatting character (zero-width
/// spaces and joiners, the byte-order mark, bidirectional controls, the soft hyphen). A policy
/// whose command holds one does not load, and a `bash` call whose command holds one is never a
/// run of any requirement.
pub fn unsafe_command_char(command: &str) -> Option<(usize, char)> {
    command.chars().enumerate().find(|(_, c)| {
        !COMMAND_BLANKS.contains(c)
            && (c.is_control()
                || c.is_whitespace()
                || matches!(
                    c,
                    '\u{00AD}'
                        | '\u{061C}'
                        | '\u{180E}'
                        | '\u{200B}'..='\u{200F}'
                        | '\u{202A}'..='\u{202E}'
                        | '\u{2060}'..='\u{2064}'
                        | '\u{2066}'..='\u{206F}'
                        | '\u{FEFF}'
                ))
    })
}

/// `U+00A0`.
pub(super) fn code_point(c: char) -> String {
    format!("U+{:04X}", u32::from(c))
}

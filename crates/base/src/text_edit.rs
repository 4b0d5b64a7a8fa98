//! Owns the one way the engine finds what changed between two versions of a text: the common
//! prefix and suffix, on character boundaries. The incremental re-analysis re-parses that span and
//! a language server is sent it as one edit, so both agree on what an edit was.

/// One edit of a text: `deleted` bytes at `start` replaced by `inserted` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextEdit {
    /// The byte offset where the edit starts (the length of the common prefix).
    pub start: usize,
    /// Bytes of the old text replaced.
    pub deleted: usize,
    /// Bytes of the new text that replace them.
    pub inserted: usize,
}

/// The edit turning `old` into `new`: their common prefix and suffix are kept, on character
/// boundaries.
pub fn diff_edit(old: &str, new: &str) -> TextEdit {
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
}

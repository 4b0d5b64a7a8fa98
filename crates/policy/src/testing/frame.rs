//! Code frames for `test` output: the offending line of a policy or fixture file with a caret
//! under the column, rendered by annotate-snippets as plain text (the CLI escapes it).

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};

/// The frame of 1-based `line`:`column` in `source` (`path` names it in the header), the caret
/// labelled `label`. Without a column the whole line is underlined. `None` when `source` has no
/// such line.
pub(super) fn code_frame(
    path: &str,
    source: &str,
    line: usize,
    column: Option<usize>,
    label: &str,
) -> Option<String> {
    let start = line_start(source, line)?;
    let text = source[start..].split('\n').next().unwrap_or_default();
    let text = text.strip_suffix('\r').unwrap_or(text);
    let span = match column {
        Some(column) => {
            let mut chars = text.char_indices().skip(column.saturating_sub(1));
            match chars.next() {
                Some((offset, c)) => start + offset..start + offset + c.len_utf8(),
                None => start + text.len()..start + text.len(),
            }
        }
        None => start..start + text.len(),
    };
    let report = [Group::with_level(Level::ERROR).element(
        Snippet::source(source)
            .path(path)
            .fold(true)
            .annotation(AnnotationKind::Primary.span(span).label(label)),
    )];
    Some(Renderer::plain().render(&report).clone())
}

/// The byte offset where 1-based `line` starts.
fn line_start(source: &str, line: usize) -> Option<usize> {
    if line == 0 {
        return None;
    }
    if line == 1 {
        return Some(0);
    }
    source
        .match_indices('\n')
        .nth(line - 2)
        .map(|(offset, _)| offset + 1)
        .filter(|offset| *offset <= source.len())
}

#[cfg(test)]
mod tests {
    use super::code_frame;

    #[test]
    fn frames_point_at_the_column() {
        let source = "const ID = \"x\";\nconst RULES = [\"a\"]\n\nfn evaluate(s) {}\n";
        let frame = code_frame("p.rhai", source, 2, Some(20), "expected `;`").unwrap();
        insta::assert_snapshot!(frame, @r#"
         --> p.rhai:2:20
          |
        2 | const RULES = ["a"]
          |                    ^ expected `;`
        "#);
        let frame = code_frame("p.rhai", source, 1, None, "here").unwrap();
        insta::assert_snapshot!(frame, @r#"
         --> p.rhai:1:1
          |
        1 | const ID = "x";
          | ^^^^^^^^^^^^^^^ here
        "#);
        assert_eq!(code_frame("p.rhai", source, 9, Some(1), "x"), None);
        assert_eq!(code_frame("p.rhai", source, 0, Some(1), "x"), None);
    }
}

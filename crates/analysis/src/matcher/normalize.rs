//! One match turned into a [`Finding`]: the rule's severity and message, the match's position and
//! text hash, and the rewrite of the rule's fix, computed as the ast-grep CLI computes it.

use crate::rule_texts::RuleTexts;
use crate::snapshot::finding::{ByteRange, Finding, FindingFix, Position, Severity, SourceRange};
use ast_grep_config::{RuleConfig, Severity as AstSeverity};
use ast_grep_core::NodeMatch;
use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_language::SupportLang;
use pi_native_hooks_base::{ContentHash, SharedText};

/// The content hash of the text being matched, worked out only when a fix needs it (a file read
/// from disk has it already; an in-memory revision is hashed only if one of its findings has a
/// fix).
pub(crate) struct Content(std::cell::OnceCell<ContentHash>);

impl Content {
    pub(crate) fn new(known: Option<ContentHash>) -> Self {
        let cell = std::cell::OnceCell::new();
        if let Some(hash) = known {
            let _ = cell.set(hash);
        }
        Self(cell)
    }

    fn of(&self, text: &str) -> ContentHash {
        *self.0.get_or_init(|| ContentHash::of(text.as_bytes()))
    }
}

/// Normalizes one match of `rule` (with its shared texts) in `text` (whose bytes hash to
/// `content`).
pub(crate) fn finding(
    (rule, texts): (&RuleConfig<SupportLang>, &RuleTexts),
    path: &SharedText,
    node: &NodeMatch<'_, StrDoc<SupportLang>>,
    text: &str,
    content: &Content,
) -> Finding {
    let (start, end) = (node.start_pos(), node.end_pos());
    Finding {
        rule: texts.id.clone(),
        severity: severity(&rule.severity),
        message: texts
            .message
            .clone()
            .unwrap_or_else(|| rule.get_message(node).into()),
        note: texts.note.clone(),
        path: path.clone(),
        range: SourceRange {
            start: Position {
                line: start.line(),
                column: start.column(node),
            },
            end: Position {
                line: end.line(),
                column: end.column(node),
            },
        },
        text_hash: text_hash(&node.text()),
        fix: fix(rule, node, text, content),
    }
}

fn severity(severity: &AstSeverity) -> Severity {
    match severity {
        AstSeverity::Hint | AstSeverity::Off => Severity::Hint,
        AstSeverity::Info => Severity::Info,
        // `error` is refused at load time; anything louder than info is a warning here.
        AstSeverity::Warning | AstSeverity::Error => Severity::Warning,
    }
}

/// The hash of a match's text with its whitespace normalised (runs collapsed to one space,
/// trimmed), so re-indenting or re-wrapping a match keeps its hash.
pub fn text_hash(text: &str) -> String {
    let mut normalised = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !normalised.is_empty() {
            normalised.push(' ');
        }
        normalised.push_str(word);
    }
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(normalised.as_bytes()))
}

/// The rewrite of `rule`'s first fixer for `node`, computed as the ast-grep CLI computes it
/// (`NodeMatch::make_edit` with the rule's matcher, which applies `expandStart`/`expandEnd`).
/// Rules without `fix:` cost nothing here.
fn fix(
    rule: &RuleConfig<SupportLang>,
    node: &NodeMatch<'_, StrDoc<SupportLang>>,
    text: &str,
    content: &Content,
) -> Option<Box<FindingFix>> {
    let fixer = rule.fixer.first()?;
    let edit = node.make_edit(&rule.matcher, fixer);
    let bytes = ByteRange {
        start: edit.position,
        end: edit.position + edit.deleted_length,
    };
    // The template is text and the source is UTF-8, so this holds unless a fixer splits a
    // character; such a rewrite is not offered rather than written broken.
    let replacement = String::from_utf8(edit.inserted_text).ok()?;
    if bytes.end > text.len()
        || !text.is_char_boundary(bytes.start)
        || !text.is_char_boundary(bytes.end)
    {
        return None;
    }
    let anchor = (node.range().start, node.start_pos().line());
    Some(Box::new(FindingFix {
        range: SourceRange {
            start: position_at(text, anchor, bytes.start),
            end: position_at(text, anchor, bytes.end),
        },
        bytes,
        text: replacement,
        content: content.of(text),
        content_len: text.len(),
    }))
}

/// The position of byte `offset` in `text`, counted from `anchor` (a byte offset and its line),
/// so a fix next to its match costs the bytes between them, not the file. Lines end at `\n` and
/// columns count characters, as ast-grep's positions do.
fn position_at(text: &str, anchor: (usize, usize), offset: usize) -> Position {
    let (anchor_offset, anchor_line) = anchor;
    let newlines = |from: usize, to: usize| text[from..to].matches('\n').count();
    let line = if offset >= anchor_offset {
        anchor_line + newlines(anchor_offset, offset)
    } else {
        anchor_line.saturating_sub(newlines(offset, anchor_offset))
    };
    let line_start = text.as_bytes()[..offset]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |newline| newline + 1);
    Position {
        line,
        column: text[line_start..offset].chars().count(),
    }
}

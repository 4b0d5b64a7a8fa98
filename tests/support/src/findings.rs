//! Findings as the tests of their consumers (the delivery, the policies' views) build them.

use pi_native_hooks_analysis::{Finding, Position, Severity, SourceRange};

/// A warning of `rule` in `path` from `start` to `end` (0-based lines and columns), whose matched
/// text hashes to `text_hash`, with the message `m` and no note or fix.
pub fn finding(
    rule: &str,
    path: &str,
    start: (usize, usize),
    end: (usize, usize),
    text_hash: &str,
) -> Finding {
    Finding {
        rule: rule.into(),
        severity: Severity::Warning,
        message: "m".into(),
        note: None,
        path: path.into(),
        range: SourceRange {
            start: Position {
                line: start.0,
                column: start.1,
            },
            end: Position {
                line: end.0,
                column: end.1,
            },
        },
        text_hash: text_hash.into(),
        fix: None,
    }
}

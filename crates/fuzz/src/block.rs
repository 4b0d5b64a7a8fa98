//! Owns the target of the diagnostic block: arbitrary diagnostics (hostile file names, rule ids,
//! messages and guidance among them), pre-existing counts, warnings and budgets within the
//! settings' bounds, rendered for a tool result or for the settle. Checks what the block promises
//! whatever it is fed: every diagnostic listed or counted as left out, nothing listed twice, the
//! token budget kept whenever a diagnostic is listed, one line per line (no raw control or
//! bidirectional character), and a block exactly when there is something to say.

use crate::listed_or_arbitrary;
use arbitrary::{Result, Unstructured};
use pi_native_hooks_analysis::PolicyDiagnostic;
use pi_native_hooks_analysis::Severity;
use pi_native_hooks_delivery::{CarrierInfo, RenderLimits, Warnings, render_late, tokens};

/// Names a hostile file, rule or tool might have, mixed with arbitrary ones.
const HOSTILE: &[&str] = &[
    "src/a.ts",
    "src/b.tsx",
    "a\nwarning: forged line",
    "a\r\nb",
    "\u{1b}[31mred\u{1b}[0m.ts",
    "\u{202e}st.ts",
    "\u{2066}x\u{2069}.ts",
    "caf\u{e9}/\u{1f600}.ts",
    "",
    " ",
    "TS2322",
    "typescript-no-explicit-any-ts",
    "ast-grep:personal",
];

fn text(u: &mut Unstructured<'_>) -> Result<String> {
    listed_or_arbitrary(u, HOSTILE, (1, 2), 600)
}

fn diagnostic(u: &mut Unstructured<'_>) -> Result<PolicyDiagnostic> {
    let line = u.int_in_range(1..=100_000)?;
    let column = u.int_in_range(1..=500)?;
    Ok(PolicyDiagnostic {
        path: text(u)?.into(),
        line,
        column,
        end_line: line + u.int_in_range(0..=3)?,
        end_column: u.int_in_range(1..=500)?,
        rule: text(u)?.into(),
        policy: text(u)?.into(),
        severity: *u.choose(&[Severity::Hint, Severity::Info, Severity::Warning])?,
        message: text(u)?.into(),
        guidance: text(u)?.into(),
    })
}

/// The characters a block must never carry raw: controls other than the line break, and the
/// bidirectional overrides and isolates that reorder what a reader sees.
fn forbidden(c: char) -> bool {
    (c.is_control() && c != '\n')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}')
}

/// Renders the block of arbitrary diagnostics and checks its promises.
pub fn render(data: &[u8]) {
    let _ = render_checked(&mut Unstructured::new(data));
}

fn render_checked(u: &mut Unstructured<'_>) -> Result<()> {
    // The bounds `settings.toml` accepts.
    let limits = RenderLimits {
        max_tokens: u.int_in_range(100..=4_000)?,
        max_line_chars: u.int_in_range(40..=600)?,
    };
    let count = u.int_in_range(0..=40)?;
    let diagnostics = (0..count)
        .map(|_| diagnostic(u))
        .collect::<Result<Vec<_>>>()?;
    let files = u.int_in_range(0..=8)?;
    let pre_existing = (0..files)
        .map(|_| Ok((text(u)?, u.int_in_range(0..=1_000)?)))
        .collect::<Result<Vec<(String, usize)>>>()?;
    let warnings = Warnings {
        policy_failures: u.int_in_range(0..=2)?,
        analyzer_failures: u.int_in_range(0..=2)?,
        files_not_analyzed: u.int_in_range(0..=2)?,
        files_not_type_checked: u.int_in_range(0..=2)?,
        coordinator_failures: u.int_in_range(0..=2)?,
    };
    let tool = text(u)?;
    let late = u.ratio(1, 4)?;

    let listed: Vec<&PolicyDiagnostic> = diagnostics.iter().collect();
    let counts: Vec<(&str, usize)> = pre_existing.iter().map(|(f, n)| (f.as_str(), *n)).collect();
    let block = if late {
        render_late(&listed, &counts, &warnings, limits)
    } else {
        let carrier = CarrierInfo {
            tool: &tool,
            is_error: u.arbitrary()?,
        };
        pi_native_hooks_delivery::render(carrier, &listed, &counts, &warnings, limits)
    };
    let Some(block) = block else {
        assert!(
            diagnostics.is_empty() && warnings.is_empty(),
            "no block for {} diagnostics and warnings {warnings:?}",
            diagnostics.len()
        );
        return Ok(());
    };
    assert!(!diagnostics.is_empty() || !warnings.is_empty());
    assert_eq!(
        block.shown.len() + block.omitted,
        diagnostics.len(),
        "every diagnostic is listed or counted as left out"
    );
    let mut shown = block.shown.clone();
    shown.sort_unstable();
    shown.dedup();
    assert_eq!(shown.len(), block.shown.len(), "a diagnostic listed twice");
    assert!(shown.iter().all(|&i| i < diagnostics.len()));
    if !block.shown.is_empty() {
        assert!(
            tokens::measure(&block.text, limits.max_tokens).fits(limits.max_tokens),
            "a block listing diagnostics is over its budget of {} tokens:\n{}",
            limits.max_tokens,
            block.text
        );
    }
    if let Some(c) = block.text.chars().find(|&c| forbidden(c)) {
        panic!("a raw {c:?} in the block:\n{}", block.text);
    }
    Ok(())
}

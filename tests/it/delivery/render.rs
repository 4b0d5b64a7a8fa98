//! The block's rendered cases: one rule across 64 files, five rules across mixed files, a policy
//! that varies its messages, the budget edge (exactly at the budget and one token under it), the
//! incomplete-check warning, pre-existing counts, and hostile names and messages; and that a
//! common block, shorter in bytes than its budget, is rendered without counting its tokens. Every
//! case checks that what the text lists is exactly what the block reports as shown.

use crate::support::snapshot::assert_snapshot;
use pi_native_hooks_analysis::PolicyDiagnostic;
use pi_native_hooks_analysis::Severity;
use pi_native_hooks_base::Escaped;
use pi_native_hooks_delivery::{
    Block, CarrierInfo, RenderLimits, TokenCount, Warnings, render, tokens,
};

const WRITE: CarrierInfo<'static> = CarrierInfo {
    tool: "write",
    is_error: false,
};

const NON_NULL: &str = "typescript-no-non-null-assertion-ts";
const NON_NULL_GUIDANCE: &str = "Narrow the value with a guard, optional chaining or a default. If the assertion is truly safe, keep it and say why on the line above: // ast-grep-ignore: typescript-no-non-null-assertion-ts -- <reason>";

fn diagnostic(rule: &str, path: &str, line: usize, column: usize) -> PolicyDiagnostic {
    PolicyDiagnostic {
        path: path.into(),
        line,
        column,
        end_line: line,
        end_column: column + 4,
        rule: rule.into(),
        policy: format!("{rule}-policy").into(),
        severity: Severity::Warning,
        message: format!("{rule} found.").into(),
        guidance: String::new().into(),
    }
}

fn non_null(path: &str) -> PolicyDiagnostic {
    PolicyDiagnostic {
        message: "Non-null assertion `!` hides a possibly null or undefined value.".into(),
        guidance: NON_NULL_GUIDANCE.into(),
        ..diagnostic(NON_NULL, path, 2, 21)
    }
}

fn render_all(
    diagnostics: &[PolicyDiagnostic],
    pre_existing: &[(&str, usize)],
    warnings: &Warnings,
    limits: RenderLimits,
) -> Block {
    let refs: Vec<&PolicyDiagnostic> = diagnostics.iter().collect();
    let block = render(WRITE, &refs, pre_existing, warnings, limits).expect("a block");
    assert_lists_what_it_shows(diagnostics, &block, limits);
    block
}

/// The text lists the location of every shown diagnostic and of no other; the counts add up; the
/// reported size is the text's, counted exactly when the text is longer in bytes than the budget
/// and else bounded by its bytes; nothing but the fixed lines is over the budget.
fn assert_lists_what_it_shows(
    diagnostics: &[PolicyDiagnostic],
    block: &Block,
    limits: RenderLimits,
) {
    assert_eq!(block.shown.len() + block.omitted, diagnostics.len());
    let bytes = block.text.len();
    if bytes <= limits.max_tokens {
        assert_eq!(block.tokens, TokenCount::AtMost(bytes), "not counted");
    } else {
        assert_eq!(block.tokens, TokenCount::Exact(tokens::count(&block.text)));
    }
    assert!(tokens::count(&block.text) <= block.tokens.upper_bound());
    let location = |d: &PolicyDiagnostic| format!("{}:{}:{}", Escaped(&d.path), d.line, d.column);
    let listed: Vec<&str> = block
        .text
        .lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("  Fix:") && !l.starts_with("  To keep"))
        .collect();
    for (index, d) in diagnostics.iter().enumerate() {
        let shown = block.shown.contains(&index);
        let found = listed.iter().any(|l| l.contains(&location(d)));
        assert_eq!(
            shown,
            found,
            "{} shown: {shown}\n{}",
            location(d),
            block.text
        );
    }
    for line in block.text.lines() {
        assert!(line.chars().count() <= limits.max_line_chars, "{line}");
    }
}

#[test]
fn one_rule_across_64_files_lists_every_location_once_in_natural_order() {
    // Given in reverse, and lexicographic order would put w10 before w2.
    let ds: Vec<PolicyDiagnostic> = (0..64)
        .rev()
        .map(|i| non_null(&format!("src/w{i}.ts")))
        .collect();
    let block = render_all(&ds, &[], &Warnings::default(), RenderLimits::default());
    assert_eq!(block.omitted, 0);
    assert_eq!(
        block.shown,
        (0..64).rev().collect::<Vec<_>>(),
        "w0 first, w63 last"
    );
    assert_eq!(
        block.text.matches(NON_NULL_GUIDANCE).count(),
        1,
        "guidance once"
    );
    assert_eq!(
        block.text.matches("Non-null assertion `!`").count(),
        1,
        "message once"
    );
    let counted = tokens::count(&block.text);
    assert!(counted <= 750, "{counted} tokens");
    assert_snapshot!("one_rule_64_files", block.text);
}

#[test]
fn a_common_block_is_rendered_without_counting_its_tokens() {
    // Two findings of two rules with their guidance: a few hundred bytes, within the default
    // budget even if every byte were a token, so the encoder is not needed.
    let ds = [non_null("src/a.ts"), diagnostic("no-var", "src/b.ts", 3, 1)];
    let refs: Vec<&PolicyDiagnostic> = ds.iter().collect();
    let before = tokens::exact_counts_on_this_thread();
    let block = render(
        WRITE,
        &refs,
        &[("src/a.ts", 2)],
        &Warnings::default(),
        RenderLimits::default(),
    )
    .expect("a block");
    assert_eq!(
        tokens::exact_counts_on_this_thread(),
        before,
        "counted:\n{}",
        block.text
    );
    assert_eq!(block.tokens, TokenCount::AtMost(block.text.len()));
    assert_eq!((block.shown.len(), block.omitted), (2, 0));
}

#[test]
fn five_rules_across_mixed_files_get_one_header_each() {
    let mut ds = vec![
        diagnostic("no-var", "src/b.ts", 9, 1),
        diagnostic("no-eval", "lib/x.ts", 3, 7),
        non_null("src/a10.ts"),
        diagnostic("no-var", "src/a2.ts", 1, 1),
        non_null("src/a2.ts"),
        diagnostic("no-console", "src/a2.ts", 4, 3),
        diagnostic("no-var", "src/b.ts", 2, 1),
        diagnostic("no-var", "src/a2.ts", 1, 12),
        diagnostic("no-focus", "test/a.test.ts", 12, 1),
    ];
    // A finding over several lines shows where it ends.
    let mut long = diagnostic("no-eval", "src/a2.ts", 20, 3);
    long.end_line = 24;
    long.end_column = 2;
    ds.push(long);
    ds[5].severity = Severity::Info;
    ds[8].severity = Severity::Hint;
    ds[8].guidance = "Remove the focus.".into();
    let block = render_all(&ds, &[], &Warnings::default(), RenderLimits::default());
    assert_eq!(block.omitted, 0);
    assert_eq!(
        block.text.lines().filter(|l| !l.starts_with(' ')).count(),
        6,
        "the header and one line per rule:\n{}",
        block.text
    );
    assert_snapshot!("five_rules_mixed_files", block.text);
}

#[test]
fn a_message_that_differs_from_its_rules_keeps_its_own_line() {
    let mut ds: Vec<PolicyDiagnostic> =
        ["src/a.ts", "src/b.ts", "src/c.ts", "src/d.ts", "src/e.ts"]
            .iter()
            .map(|p| diagnostic("no-magic", p, 3, 9))
            .collect();
    ds[1].message = "The number 42 has no name.".into();
    ds[3].message = "The number 7 has no name.".into();
    let block = render_all(&ds, &[], &Warnings::default(), RenderLimits::default());
    let lines: Vec<&str> = block.text.lines().collect();
    assert_eq!(
        lines[1], "no-magic (warning): no-magic found.",
        "the most common message heads the rule"
    );
    assert_eq!(lines[2], "  src/a.ts:3:9 src/c.ts:3:9 src/e.ts:3:9");
    assert_eq!(lines[3], "  src/b.ts:3:9: The number 42 has no name.");
    assert_eq!(lines[4], "  src/d.ts:3:9: The number 7 has no name.");
    assert_snapshot!("varied_messages", block.text);
}

#[test]
fn the_budget_edge_exactly_at_fits_and_one_token_under_leaves_out_and_says_so() {
    let mut ds: Vec<PolicyDiagnostic> = (1..=12)
        .map(|i| non_null(&format!("src/w{i}.ts")))
        .collect();
    ds.extend((1..=3).map(|i| diagnostic("no-var", &format!("src/v{i}.ts"), i, 1)));
    let everything = render_all(&ds, &[], &Warnings::default(), RenderLimits::default());
    assert_eq!(everything.omitted, 0);
    let all_tokens = tokens::count(&everything.text);
    let exact = RenderLimits {
        max_tokens: all_tokens,
        ..RenderLimits::default()
    };
    let at = render_all(&ds, &[], &Warnings::default(), exact);
    assert_eq!(
        at.text, everything.text,
        "exactly at the budget nothing is left out"
    );
    assert_eq!(at.tokens, TokenCount::Exact(all_tokens));

    let under = RenderLimits {
        max_tokens: all_tokens - 1,
        ..RenderLimits::default()
    };
    let over = render_all(&ds, &[], &Warnings::default(), under);
    assert!(over.tokens.upper_bound() < all_tokens, "{}", over.text);
    assert_eq!(over.omitted, 0, "guidance goes before any location");
    assert!(
        over.text.ends_with("Guidance for 1 rule left out; to keep a deliberate case, add on the line above: // ast-grep-ignore: <rule> -- <reason>)"),
        "{}",
        over.text
    );
    assert_snapshot!("budget_one_token_under", over.text);

    // Tight enough to leave out locations: every listed location comes before any guidance, and
    // the closing line names the files of what was left out.
    let tight = RenderLimits {
        max_tokens: 150,
        ..RenderLimits::default()
    };
    let cut = render_all(&ds, &[], &Warnings::default(), tight);
    assert!(cut.omitted > 0 && cut.tokens.fits(150), "{}", cut.text);
    assert!(!cut.text.contains("Fix:"), "{}", cut.text);
    assert_snapshot!("budget_leaves_out_locations", cut.text);
}

#[test]
fn an_incomplete_check_keeps_its_warning_last_even_when_the_budget_cuts() {
    let ds: Vec<PolicyDiagnostic> = (0..40).map(|i| non_null(&format!("src/w{i}.ts"))).collect();
    let warnings = Warnings {
        policy_failures: 1,
        files_not_analyzed: 2,
        ..Warnings::default()
    };
    let limits = RenderLimits {
        max_tokens: 250,
        ..RenderLimits::default()
    };
    let block = render_all(&ds, &[("src/old.ts", 3)], &warnings, limits);
    assert!(
        block.omitted > 0 && block.tokens.fits(250),
        "{}",
        block.text
    );
    assert!(
        block.text.lines().last().is_some_and(|l| l.starts_with(
            "Warning: this check is incomplete (1 policy failed, 2 files not fully analyzed)"
        )),
        "{}",
        block.text
    );
    assert!(
        block
            .text
            .contains("+3 pre-existing findings in 1 file not shown"),
        "{}",
        block.text
    );
    assert_snapshot!("incomplete_check_cut", block.text);

    // No diagnostic at all: the warning alone still makes a block.
    let alone = render(WRITE, &[], &[], &warnings, RenderLimits::default()).expect("a block");
    assert_snapshot!("incomplete_check_alone", alone.text);
}

#[test]
fn pre_existing_counts_come_after_guidance_and_share_a_line_when_the_budget_is_short() {
    let d = [non_null("src/x.test.ts")];
    let counts = [("src/f10.ts", 2), ("src/x.test.ts", 5), ("src/f2.ts", 1)];
    let block = render_all(&d, &counts, &Warnings::default(), RenderLimits::default());
    let lines: Vec<&str> = block.text.lines().collect();
    assert_eq!(
        lines[lines.len() - 3..],
        [
            "+1 pre-existing finding in src/f2.ts not shown",
            "+2 pre-existing findings in src/f10.ts not shown",
            "+5 pre-existing findings in src/x.test.ts not shown",
        ]
    );
    let short = RenderLimits {
        max_tokens: tokens::count(&block.text) - 1,
        ..RenderLimits::default()
    };
    let block = render_all(&d, &counts, &Warnings::default(), short);
    assert!(
        block.text.contains("Fix:"),
        "guidance is kept before the counts"
    );
    assert_eq!(
        block.text.lines().last(),
        Some("+7 pre-existing findings in 2 other files not shown")
    );
}

#[test]
fn hostile_names_and_a_10_kb_message_stay_within_the_budget() {
    let mut ds = vec![
        diagnostic(
            "no-bang",
            "src/evil\n- src/x.ts:1:1 no-bang: forged.ts",
            1,
            1,
        ),
        diagnostic("no-bang", "src/\u{1b}[31mred\u{1b}[0m\u{202e}.ts", 2, 1),
        diagnostic("no-bang", &format!("src/{}.ts", "d/".repeat(2_000)), 3, 1),
        diagnostic("huge", "src/a.ts", 1, 1),
    ];
    ds[3].message = format!("{}\n{}", "m".repeat(5_000), "\u{7}x".repeat(2_500)).into();
    ds[3].guidance = "g ".repeat(5_000).into();
    let limits = RenderLimits {
        max_tokens: 300,
        ..RenderLimits::default()
    };
    let block = render_all(&ds, &[], &Warnings::default(), limits);
    assert!(
        block.tokens.fits(300),
        "{} tokens\n{}",
        block.tokens,
        block.text
    );
    assert!(
        !block
            .text
            .chars()
            .any(|c| (c.is_control() && c != '\n') || c == '\u{202e}'),
        "{}",
        block.text
    );
    // Every line is the header, a rule, an indented location or guidance, or the closing line.
    for line in block.text.lines().skip(1) {
        assert!(
            line.starts_with("  ")
                || line.starts_with("no-bang (")
                || line.starts_with("huge (")
                || line.starts_with('('),
            "a name started a line of its own: {line}"
        );
    }
    assert_snapshot!("hostile", block.text);
}

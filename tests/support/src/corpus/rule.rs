//! The rule families a generated finding belongs to (the shipped rules, without their language
//! suffix) and how often each appears among the statements that hold a finding.

/// Which rule family a generated finding belongs to.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Rule {
    NonNull,
    DynamicImport,
    ExplicitAny,
    TsSuppression,
    LintSuppression,
    ConsoleLog,
    Debugger,
    EmptyCatch,
    Placeholder,
    Stub,
    FocusedTest,
    SkippedTest,
}

impl Rule {
    /// The rule id without its language suffix.
    pub(super) fn family(self) -> &'static str {
        match self {
            Rule::NonNull => "typescript-no-non-null-assertion",
            Rule::DynamicImport => "typescript-no-dynamic-import",
            Rule::ExplicitAny => "typescript-no-explicit-any",
            Rule::TsSuppression => "typescript-no-ts-suppression",
            Rule::LintSuppression => "typescript-no-lint-suppression",
            Rule::ConsoleLog => "typescript-no-console-log",
            Rule::Debugger => "typescript-no-debugger",
            Rule::EmptyCatch => "typescript-no-empty-catch",
            Rule::Placeholder => "typescript-no-elision-placeholder",
            Rule::Stub => "typescript-no-unimplemented-stub",
            Rule::FocusedTest => "typescript-no-focused-test",
            Rule::SkippedTest => "typescript-no-skipped-test",
        }
    }

    /// Whether a trailing `// ast-grep-ignore` may follow the finding's line. Not after a comment
    /// (it would become part of the comment) nor after the opening line of a stub's body (it would
    /// become part of the body).
    pub(super) fn allows_trailing_suppression(self) -> bool {
        !matches!(
            self,
            Rule::TsSuppression | Rule::LintSuppression | Rule::Placeholder | Rule::Stub
        )
    }
}

/// Statement-level findings and their weights (out of 100).
pub(super) const STATEMENT_RULES: &[(Rule, usize)] = &[
    (Rule::NonNull, 36),
    (Rule::DynamicImport, 15),
    (Rule::ExplicitAny, 12),
    (Rule::ConsoleLog, 8),
    (Rule::TsSuppression, 7),
    (Rule::LintSuppression, 7),
    (Rule::EmptyCatch, 6),
    (Rule::Placeholder, 5),
    (Rule::Debugger, 4),
];

//! One file being written: its lines and line count, fresh names and picks from the vocabulary,
//! the ids of the rules that match in it (and of those that never do), and a finding written with
//! one of the suppressions ast-grep supports, or with a suppression that suppresses nothing, when
//! the file carries suppressions.

use super::rng::Rng;
use super::rule::{Rule, STATEMENT_RULES};
use super::vocabulary::{NOUNS, REASONS, TEXTS, VERBS};

/// One file being written.
pub(super) struct Writer {
    pub(super) rng: Rng,
    /// Whether this file carries suppression comments at all: most real files have none.
    pub(super) suppressions: bool,
    pub(super) tsx: bool,
    pub(super) out: String,
    pub(super) lines: usize,
    pub(super) serial: usize,
}

impl Writer {
    pub(super) fn line(&mut self, indent: usize, text: &str) {
        for _ in 0..indent {
            self.out.push_str("  ");
        }
        self.out.push_str(text);
        self.out.push('\n');
        self.lines += 1;
    }

    pub(super) fn blank(&mut self) {
        self.out.push('\n');
        self.lines += 1;
    }

    /// A fresh number for identifiers, so no name is declared twice in a file.
    pub(super) fn serial(&mut self) -> usize {
        self.serial += 1;
        self.serial
    }

    pub(super) fn noun(&mut self) -> &'static str {
        self.rng.pick(NOUNS)
    }

    pub(super) fn verb(&mut self) -> &'static str {
        self.rng.pick(VERBS)
    }

    pub(super) fn text(&mut self) -> &'static str {
        self.rng.pick(TEXTS)
    }

    pub(super) fn rule_id(&self, rule: Rule) -> String {
        let language = if self.tsx { "tsx" } else { "ts" };
        format!("{}-{language}", rule.family())
    }

    /// The id of the rule for the other language, which never matches in this file.
    pub(super) fn foreign_rule_id(&self, rule: Rule) -> String {
        let language = if self.tsx { "ts" } else { "tsx" };
        format!("{}-{language}", rule.family())
    }

    pub(super) fn statement_rule(&mut self) -> Rule {
        let mut roll = self.rng.below(100);
        for &(rule, weight) in STATEMENT_RULES {
            if roll < weight {
                return rule;
            }
            roll -= weight;
        }
        Rule::NonNull
    }

    /// Writes `lines` (the first holds a finding of `rule`) at `indent`, suppressed in one of the
    /// ways ast-grep supports, or with a suppression that suppresses nothing, when the file
    /// carries suppressions.
    pub(super) fn finding(&mut self, indent: usize, rule: Rule, lines: &[String]) {
        let (first, rest) = lines.split_first().expect("a finding has a line");
        if self.suppressions {
            let roll = self.rng.below(100);
            let reason = self.rng.pick(REASONS);
            let id = self.rule_id(rule);
            if roll < 14 {
                self.line(indent, &format!("// ast-grep-ignore: {id} -- {reason}"));
                self.line(indent, first);
            } else if roll < 20 {
                self.line(indent, "// ast-grep-ignore");
                self.line(indent, first);
            } else if roll < 24 && rule.allows_trailing_suppression() {
                self.line(
                    indent,
                    &format!("{first} // ast-grep-ignore: {id} -- {reason}"),
                );
            } else if roll < 27 {
                let other = self.rule_id(if rule == Rule::NonNull {
                    Rule::DynamicImport
                } else {
                    Rule::NonNull
                });
                self.line(
                    indent,
                    &format!("// ast-grep-ignore: {other}, {id} -- {reason}"),
                );
                self.line(indent, first);
            } else if roll < 31 {
                // Names the rule of the other language: suppresses nothing, reported as unused.
                let foreign = self.foreign_rule_id(rule);
                self.line(
                    indent,
                    &format!("// ast-grep-ignore: {foreign} -- {reason}"),
                );
                self.line(indent, first);
            } else {
                self.line(indent, first);
            }
        } else {
            self.line(indent, first);
        }
        for line in rest {
            self.line(indent, line);
        }
    }
}

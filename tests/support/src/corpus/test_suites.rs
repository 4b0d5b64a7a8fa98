//! The suite of a test file (`__tests__/*.test.ts[x]`): ordinary tests, one focused and one
//! skipped test (suppressed like any finding in a file with suppressions), now and then a focused
//! or skipped `describe`, and valid look-alikes (`it.each`, a conditional `test.skip`, an `only`
//! property).

use super::rule::Rule;
use super::vocabulary::REASONS;
use super::writer::Writer;

impl Writer {
    /// A test suite holding one focused and one skipped test among ordinary ones, and valid
    /// look-alikes (`it.each`, a conditional `test.skip`, an `only` property).
    pub(super) fn tests(&mut self) {
        let (noun, verb) = (self.noun(), self.verb());
        let n = self.serial();
        self.line(0, &format!("describe(\"{noun} {verb} {n}\", () => {{"));
        self.line(1, &format!("it(\"{verb}s a {noun}\", async () => {{"));
        let count = 1 + self.rng.below(3);
        self.statements(2, true, count);
        if self.tsx {
            self.line(2, &format!("render(<div data-only=\"true\">{noun}</div>);"));
        }
        self.line(1, "});");
        let focused = match self.rng.below(5) {
            0 => format!("it.only(\"{verb}s the first {noun}\", () => {{"),
            1 => format!("test.only(\"{verb}s every {noun}\", () => {{"),
            2 => format!("fit(\"{verb}s a cached {noun}\", () => {{"),
            3 => format!("it.only.each([1, 2])(\"{verb}s {noun} %i\", () => {{"),
            _ => format!("context.only(\"when the {noun} is empty\", () => {{"),
        };
        let body = format!("  expect(registry.get(\"{noun}\") ?? 0).toBeGreaterThanOrEqual(0);");
        self.finding(
            1,
            Rule::FocusedTest,
            &[focused, body.clone(), "});".to_owned()],
        );
        let skipped = match self.rng.below(5) {
            0 => format!("it.skip(\"{verb}s a stale {noun}\", () => {{"),
            1 => format!("xit(\"{verb}s a remote {noun}\", () => {{"),
            2 => format!("test.skip(`{verb}s ${{registry.size}} {noun}s`, () => {{"),
            3 => format!("xtest(\"{verb}s a large {noun}\", () => {{"),
            _ => format!("it.skip.each([1, 2])(\"{verb}s {noun} %i\", () => {{"),
        };
        self.finding(
            1,
            Rule::SkippedTest,
            &[skipped, body.clone(), "});".to_owned()],
        );
        if self.rng.chance(50) {
            self.finding(
                1,
                Rule::SkippedTest,
                &[format!("test.todo(\"{verb}s {noun}s in bulk\");")],
            );
        }
        if self.suppressions {
            for rule in [Rule::FocusedTest, Rule::SkippedTest] {
                let (id, reason) = (self.rule_id(rule), self.rng.pick(REASONS));
                let callee = if rule == Rule::FocusedTest {
                    "it.only"
                } else {
                    "it.skip"
                };
                self.line(1, &format!("// ast-grep-ignore: {id} -- {reason}"));
                self.line(
                    1,
                    &format!("{callee}(\"{verb}s a {noun} on purpose\", () => {{}});"),
                );
            }
        }
        self.line(
            1,
            &format!("it.each([1, 2])(\"{verb}s {noun} %i\", (value) => {{"),
        );
        self.line(2, "expect(value).toBeGreaterThan(0);");
        self.line(1, "});");
        self.line(1, &format!("test(\"{verb}s with the flag\", () => {{"));
        self.line(2, "test.skip(!enabled, \"needs the feature flag\");");
        self.line(2, &format!("const only{n} = {{ only: enabled }}.only;"));
        self.line(2, &format!("expect(only{n}).toBe(true);"));
        self.line(1, "});");
        self.line(0, "});");
        self.blank();
        if self.rng.chance(40) {
            let (rule, opening) = match self.rng.below(4) {
                0 => (
                    Rule::FocusedTest,
                    format!("fdescribe(\"{noun} edge cases\", () => {{"),
                ),
                1 => (
                    Rule::FocusedTest,
                    format!("describe.only(\"{noun} edge cases\", () => {{"),
                ),
                2 => (
                    Rule::SkippedTest,
                    format!("xdescribe(\"{noun} edge cases\", () => {{"),
                ),
                _ => (
                    Rule::SkippedTest,
                    format!("describe.skip(\"{noun} edge cases\", () => {{"),
                ),
            };
            self.finding(
                0,
                rule,
                &[
                    opening,
                    format!("  it(\"{verb}s nothing\", () => {{}});"),
                    "});".to_owned(),
                ],
            );
            self.blank();
        }
    }
}

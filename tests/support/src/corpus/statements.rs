//! The statements inside function and method bodies: clean ones (valid look-alikes of the rules
//! among them), and statement-level findings of every rule, maybe suppressed; and the `legacy`
//! function of a file with suppressions, one justified suppression per rule.

use super::rule::{Rule, STATEMENT_RULES};
use super::vocabulary::{AREAS, REASONS};
use super::writer::Writer;

impl Writer {
    /// Writes one statement at `indent`: about one in five holds a finding, maybe suppressed; a few
    /// clean ones get a stale suppression above them. `in_async` allows `await`.
    pub(super) fn statement(&mut self, indent: usize, in_async: bool) {
        let finding = if self.rng.chance(22) {
            Some(self.statement_rule())
        } else {
            None
        };
        let n = self.serial();
        let noun = self.noun();
        let Some(rule) = finding else {
            let text = self.text();
            let code = match self.rng.below(16) {
                0 => format!("const label{n} = settings?.labels?.[0] ?? \"{text}\";"),
                1 => format!("const total{n} = [1, 2, 3].reduce((sum, value) => sum + value, 0);"),
                2 => format!(
                    "const message{n} = `{noun} #${{registry.size}} → ${{new Date().toISOString()}}`;"
                ),
                3 => format!("registry.set(\"{noun}\", (registry.get(\"{noun}\") ?? 0) + 1);"),
                4 => format!("const negated{n} = !enabled && registry.size !== 0;"),
                5 => format!("const asset{n} = new URL(\"./{noun}.json\", import.meta.url);"),
                6 => format!("const doubled{n} = !!settings?.endpoint;"),
                7 => format!(
                    "const file{n} = path.join(baseDir, \"{noun}s\", `${{registry.size}}.json`);"
                ),
                8 => format!(
                    "const retries{n} = settings?.retries ?? {};",
                    self.rng.below(5) + 1
                ),
                // Valid look-alikes of the newer rules.
                9 => format!("const parsed{n}: unknown = JSON.parse(\"{{}}\");"),
                10 => format!("console.info(`{noun}: ${{registry.size}}`, settings);"),
                11 => format!("console.log(\"{text}\");"),
                12 => {
                    format!("try {{ registry.delete(\"{noun}\"); }} catch {{ /* already gone */ }}")
                }
                13 => format!(
                    "// Existing {noun}s keep their labels; the rest of the code reads them."
                ),
                14 => format!(
                    "const options{n}: import(\"./{noun}-options\").Options | undefined = undefined;"
                ),
                _ => format!("const greeting{n} = \"{text}\".normalize(\"NFC\").length;"),
            };
            if self.suppressions && self.rng.chance(3) {
                let id = self.rule_id(Rule::NonNull);
                self.line(
                    indent,
                    &format!("// ast-grep-ignore: {id} -- stale: nothing here needs it"),
                );
            }
            self.line(indent, &code);
            return;
        };
        let lines = self.finding_lines(rule, n, noun, in_async);
        self.finding(indent, rule, &lines);
    }

    /// The lines of one statement-level finding of `rule`: the finding is on the first.
    pub(super) fn finding_lines(
        &mut self,
        rule: Rule,
        n: usize,
        noun: &str,
        in_async: bool,
    ) -> Vec<String> {
        match rule {
            Rule::NonNull => vec![match self.rng.below(5) {
                0 => format!("const endpoint{n} = settings!.endpoint;"),
                1 => format!("const count{n} = registry.get(\"{noun}\")!;"),
                2 => format!("const first{n} = settings!.labels![0];"),
                3 => format!("const label{n} = \"{}\" + settings!.labels;", self.text()),
                _ => format!("const retries{n} = settings?.retries! + 1;"),
            }],
            Rule::DynamicImport => vec![if in_async && self.rng.chance(60) {
                format!("const module{n} = await import(\"./{noun}-plugin\");")
            } else {
                format!(
                    "void import(\"../{}/{noun}\").then((m) => m.default);",
                    self.rng.pick(AREAS)
                )
            }],
            Rule::ExplicitAny => vec![match self.rng.below(if self.tsx { 4 } else { 5 }) {
                0 => format!("const loose{n}: any = registry.get(\"{noun}\");"),
                1 => format!("const cast{n} = settings as any;"),
                2 => format!("const list{n}: any[] = [];"),
                3 => format!("const byId{n}: Record<string, any> = {{}};"),
                _ => format!("const angle{n} = <any>settings;"),
            }],
            Rule::ConsoleLog => vec![match self.rng.below(3) {
                0 => "console.log(settings);".to_owned(),
                1 => "console.log(registry.size, settings?.endpoint);".to_owned(),
                _ => format!("console.debug(\"{noun}\", registry);"),
            }],
            Rule::Debugger => vec!["debugger;".to_owned()],
            Rule::EmptyCatch => vec![if self.rng.chance(50) {
                format!("try {{ registry.delete(\"{noun}\"); }} catch {{}}")
            } else {
                format!("try {{ JSON.parse(\"{}\"); }} catch (error{n}) {{ }}", self.text())
            }],
            Rule::TsSuppression => vec![
                self.rng
                    .pick(&["// @ts-ignore", "// @ts-expect-error", "/* @ts-ignore */"])
                    .to_owned(),
                format!("const port{n}: number = settings?.endpoint?.length ?? 0;"),
            ],
            Rule::LintSuppression => vec![
                self.rng
                    .pick(&[
                        "// eslint-disable-next-line @typescript-eslint/no-unused-vars",
                        "// biome-ignore lint/correctness/noUnusedVariables: kept for the plugin API",
                        "// oxlint-disable-next-line no-unused-vars",
                    ])
                    .to_owned(),
                format!("const unused{n} = registry.size;"),
            ],
            Rule::Placeholder => {
                // A bare `// ...` only counts with no comment beside it, so files with
                // suppression comments use the worded forms.
                let forms: &[&str] = if self.suppressions {
                    &["// ... existing code ...", "// rest of the code", "// (unchanged)"]
                } else {
                    &[
                        "// ... existing code ...",
                        "// rest of the code",
                        "// (unchanged)",
                        "/* ... */",
                    ]
                };
                vec![self.rng.pick(forms).to_owned()]
            }
            Rule::Stub | Rule::FocusedTest | Rule::SkippedTest => {
                unreachable!("not a statement-level finding")
            }
        }
    }

    /// In a file with suppressions: a function holding one finding of every statement-level rule,
    /// each kept with a justified suppression, so every rule has suppressed matches.
    pub(super) fn legacy(&mut self) {
        let n = self.serial();
        self.line(
            0,
            "/** Kept as it is until the migration: every exception is justified. */",
        );
        self.line(
            0,
            &format!("export async function legacy{n}(): Promise<void> {{"),
        );
        for &(rule, _) in STATEMENT_RULES {
            let (m, noun) = (self.serial(), self.noun());
            let lines = self.finding_lines(rule, m, noun, true);
            let (id, reason) = (self.rule_id(rule), self.rng.pick(REASONS));
            self.line(1, &format!("// ast-grep-ignore: {id} -- {reason}"));
            for line in &lines {
                self.line(1, line);
            }
        }
        self.line(0, "}");
        self.blank();
    }

    pub(super) fn statements(&mut self, indent: usize, in_async: bool, count: usize) {
        for _ in 0..count {
            self.statement(indent, in_async);
        }
    }
}

//! A deterministic corpus of realistic TypeScript and TSX files, shared by the integration tests
//! and the benchmarks.
//!
//! Each file is a few hundred lines of ordinary application code: imports, interfaces, type
//! aliases, enums, classes, async functions, generics, arrow functions, JSX components (in
//! `.tsx`), comments, template strings and some non-ASCII strings. Every so often a statement
//! holds a finding of one of the shipped rules (a non-null assertion `x!.y`, a dynamic
//! `import("./m")`, an explicit `any`, a `@ts-ignore` or linter suppression comment, a
//! `console.log` of a value, an empty `catch`, a `debugger`, an elision placeholder comment),
//! every file but the test files ends with unimplemented stubs, and every fifth file is a test
//! file (`__tests__/*.test.ts[x]`) holding focused and skipped tests (where `console.log` is
//! allowed). Some findings are suppressed with `// ast-grep-ignore: <rule-id> -- <reason>` or a
//! bare `// ast-grep-ignore`, some suppressions are unused, and valid look-alikes are spread
//! around (`!flag`, `typeof import("x")`, `import("x").T` in a type, `import.meta.url`, `import
//! type`, definite assignments, `unknown`, `console.info`, a `console.log` with a message, a
//! commented `catch`, prose comments, `it.each`, a conditional `test.skip`). Every file ends
//! with one unsuppressed finding, so a scan that skipped a file shows.
//!
//! The output depends only on the file count and the seed (a `SplitMix64` generator, no external
//! crate). A file's path depends only on its index, so two corpora of the same size generated with
//! different seeds have the same paths and different contents.

use std::path::Path;

/// Directories the files are spread over.
const AREAS: &[&str] = &[
    "api",
    "components",
    "domain",
    "hooks",
    "services",
    "state",
    "utils",
    "views",
];

const NOUNS: &[&str] = &[
    "user", "order", "invoice", "session", "widget", "cart", "profile", "report", "metric",
    "token", "route", "query", "event", "payload", "account", "ticket", "budget", "channel",
    "device", "feature",
];

const VERBS: &[&str] = &[
    "load", "fetch", "build", "parse", "render", "resolve", "compute", "merge", "sync", "validate",
    "format", "select", "update", "remove", "track",
];

const TEXTS: &[&str] = &[
    "Grüße aus München",
    "日本語のテキスト",
    "Ünïcödé ✓",
    "🎉 launch day",
    "Привет, мир",
    "naïve café",
    "données reçues",
    "Ελληνικά",
    "plain ASCII text",
    "status: ok",
];

const REASONS: &[&str] = &[
    "checked by the caller",
    "the map is filled in the constructor",
    "the plugin is optional and loaded on demand",
    "code-split route",
    "guarded two lines above",
    "legacy module, tracked in the migration plan",
];

/// `SplitMix64`: small, fast, and good enough to vary a corpus.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True with the given probability in percent.
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// Which rule family a generated finding belongs to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Rule {
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
    fn family(self) -> &'static str {
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
    fn allows_trailing_suppression(self) -> bool {
        !matches!(
            self,
            Rule::TsSuppression | Rule::LintSuppression | Rule::Placeholder | Rule::Stub
        )
    }
}

/// Statement-level findings and their weights (out of 100).
const STATEMENT_RULES: &[(Rule, usize)] = &[
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

/// One file being written.
struct Writer {
    rng: Rng,
    /// Whether this file carries suppression comments at all: most real files have none.
    suppressions: bool,
    tsx: bool,
    out: String,
    lines: usize,
    serial: usize,
}

impl Writer {
    fn line(&mut self, indent: usize, text: &str) {
        for _ in 0..indent {
            self.out.push_str("  ");
        }
        self.out.push_str(text);
        self.out.push('\n');
        self.lines += 1;
    }

    fn blank(&mut self) {
        self.out.push('\n');
        self.lines += 1;
    }

    /// A fresh number for identifiers, so no name is declared twice in a file.
    fn serial(&mut self) -> usize {
        self.serial += 1;
        self.serial
    }

    fn noun(&mut self) -> &'static str {
        self.rng.pick(NOUNS)
    }

    fn verb(&mut self) -> &'static str {
        self.rng.pick(VERBS)
    }

    fn text(&mut self) -> &'static str {
        self.rng.pick(TEXTS)
    }

    fn rule_id(&self, rule: Rule) -> String {
        let language = if self.tsx { "tsx" } else { "ts" };
        format!("{}-{language}", rule.family())
    }

    /// The id of the rule for the other language, which never matches in this file.
    fn foreign_rule_id(&self, rule: Rule) -> String {
        let language = if self.tsx { "ts" } else { "tsx" };
        format!("{}-{language}", rule.family())
    }

    fn statement_rule(&mut self) -> Rule {
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
    fn finding(&mut self, indent: usize, rule: Rule, lines: &[String]) {
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

    fn header(&mut self, index: usize) {
        let noun = self.noun();
        self.line(0, "/**");
        self.line(
            0,
            &format!(
                " * {} module #{index}: loading, caching and presenting {noun}s.",
                capitalize(noun)
            ),
        );
        self.line(0, " *");
        self.line(
            0,
            " * Generated for benchmarks and parity tests; the code is realistic, not meaningful.",
        );
        self.line(0, " */");
        if self.tsx {
            self.line(
                0,
                "import { lazy, useEffect, useMemo, useState } from \"react\";",
            );
            self.line(0, "import type { ReactNode } from \"react\";");
        }
        self.line(0, "import { readFile } from \"node:fs/promises\";");
        self.line(0, "import * as path from \"node:path\";");
        let (a, b) = (self.noun(), self.verb());
        self.line(
            0,
            &format!(
                "import type {{ {} }} from \"../domain/{a}\";",
                capitalize(a)
            ),
        );
        self.line(
            0,
            &format!(
                "import {{ {b}{} }} from \"../services/{a}-{b}\";",
                capitalize(a)
            ),
        );
        if self.rng.chance(40) {
            self.line(0, "import \"./polyfills\";");
        }
        self.blank();
        self.line(
            0,
            "declare const settings: { endpoint?: string; retries?: number; labels?: string[] } | undefined;",
        );
        self.line(0, "declare const enabled: boolean;");
        self.line(0, "const registry = new Map<string, number>();");
        self.line(
            0,
            "const baseDir = path.dirname(new URL(import.meta.url).pathname);",
        );
        self.blank();
    }

    /// Writes one statement at `indent`: about one in five holds a finding, maybe suppressed; a few
    /// clean ones get a stale suppression above them. `in_async` allows `await`.
    fn statement(&mut self, indent: usize, in_async: bool) {
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
    fn finding_lines(&mut self, rule: Rule, n: usize, noun: &str, in_async: bool) -> Vec<String> {
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
    fn legacy(&mut self) {
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

    fn statements(&mut self, indent: usize, in_async: bool, count: usize) {
        for _ in 0..count {
            self.statement(indent, in_async);
        }
    }

    fn interface(&mut self) {
        let name = format!("{}{}", capitalize(self.noun()), self.serial());
        self.line(
            0,
            &format!("/** A {} as stored by the API. */", name.to_lowercase()),
        );
        self.line(0, &format!("export interface {name} {{"));
        self.line(1, "readonly id: string;");
        self.line(1, "name: string;");
        self.line(1, "tags?: string[];");
        self.line(1, "createdAt: Date;");
        self.line(1, "meta: Record<string, unknown>;");
        if self.rng.chance(50) {
            self.line(1, &format!("parent?: {name} | null;"));
        }
        if self.rng.chance(50) {
            self.line(1, "// Optional: filled in lazily by the loader.");
            self.line(
                1,
                "summary?: { readonly words: number; readonly language: string };",
            );
        }
        self.line(0, "}");
        self.blank();
    }

    fn types(&mut self) {
        let name = format!("{}{}", capitalize(self.noun()), self.serial());
        let module = self.noun();
        self.line(
            0,
            &format!("export type {name}Status = \"idle\" | \"loading\" | \"ready\" | \"failed\";"),
        );
        self.line(
            0,
            &format!(
                "export type {name}Map<K extends string> = {{ readonly [P in K]?: {name}Status }};"
            ),
        );
        self.line(
            0,
            &format!("export type Unwrapped{name}<T> = T extends Promise<infer U> ? U : T;"),
        );
        // A type query, not a run-time import: valid for the dynamic-import rule.
        self.line(
            0,
            &format!("export type {name}Module = typeof import(\"./{module}\");"),
        );
        if self.rng.chance(50) {
            self.line(
                0,
                &format!("export type {name}Default = typeof import(\"./{module}\").default;"),
            );
        }
        self.blank();
    }

    fn constants(&mut self) {
        let noun = self.noun();
        let n = self.serial();
        let text = self.text();
        self.line(0, &format!("export enum {}Kind{n} {{", capitalize(noun)));
        self.line(1, "Primary = \"primary\",");
        self.line(1, "Secondary = \"secondary\",");
        self.line(1, "Archived = \"archived\",");
        self.line(0, "}");
        self.blank();
        self.line(
            0,
            &format!("export const {}_DEFAULTS_{n} = {{", noun.to_uppercase()),
        );
        let retries = self.rng.below(5) + 1;
        self.line(1, &format!("retries: {retries},"));
        self.line(1, &format!("label: \"{text}\","));
        self.line(1, "timeoutMs: 2_500,");
        self.line(0, "} as const;");
        self.blank();
    }

    fn class(&mut self) {
        let noun = self.noun();
        let name = format!("{}Store{}", capitalize(noun), self.serial());
        let (verb, text) = (self.verb(), self.text());
        self.line(
            0,
            &format!("/** Keeps the {noun}s of one workspace in memory. */"),
        );
        self.line(
            0,
            &format!("export class {name}<T extends {{ id: string; name: string }}> {{"),
        );
        self.line(1, "readonly #items = new Map<string, T>();");
        self.line(1, "private lastSync?: Date;");
        self.line(
            1,
            "private loader!: (id: string) => Promise<T | undefined>;",
        );
        self.line(1, &format!("static readonly label = \"{text}\";"));
        self.blank();
        self.line(1, "constructor(private readonly limit = 100) {}");
        self.blank();
        self.line(1, "get size(): number {");
        self.line(2, "return this.#items.size;");
        self.line(1, "}");
        self.blank();
        self.line(
            1,
            &format!("async {verb}(id: string): Promise<T | undefined> {{"),
        );
        self.line(2, "const cached = this.#items.get(id);");
        self.line(2, "if (cached !== undefined) {");
        self.line(3, "return cached;");
        self.line(2, "}");
        let count = 2 + self.rng.below(4);
        self.statements(2, true, count);
        self.line(2, "const item = await this.loader(id);");
        self.line(2, "if (item && this.#items.size < this.limit) {");
        self.line(3, "this.#items.set(id, item);");
        self.line(3, "this.lastSync = new Date();");
        self.line(2, "}");
        self.line(2, "return item;");
        self.line(1, "}");
        self.blank();
        self.line(1, "names(ids: readonly string[]): string[] {");
        self.line(2, "return ids");
        self.line(3, ".map((id) => this.#items.get(id))");
        self.line(3, ".filter((item): item is T => item !== undefined)");
        self.line(3, ".map((item) => `${item.name} (${item.id})`);");
        self.line(1, "}");
        self.blank();
        self.line(1, "describe(): string {");
        let count = 1 + self.rng.below(3);
        self.statements(2, false, count);
        self.line(2, &format!("return `{name}: ${{this.size}} item(s), synced ${{this.lastSync?.toISOString() ?? \"never\"}}`;"));
        self.line(1, "}");
        self.line(0, "}");
        self.blank();
    }

    fn async_function(&mut self) {
        let (noun, verb) = (self.noun(), self.verb());
        let name = format!("{verb}{}{}", capitalize(noun), self.serial());
        self.line(0, "/**");
        self.line(
            0,
            &format!(
                " * {}s the {noun} with retries; resolves to `undefined` when every attempt fails.",
                capitalize(verb)
            ),
        );
        self.line(0, " */");
        self.line(
            0,
            &format!("export async function {name}(id: string, options: {{ retries?: number }} = {{}}): Promise<unknown> {{"),
        );
        self.line(
            1,
            "const retries = options.retries ?? settings?.retries ?? 3;",
        );
        self.line(1, "for (let attempt = 0; attempt < retries; attempt++) {");
        self.line(2, "try {");
        self.line(
            3,
            &format!("const response = await fetch(`${{settings?.endpoint ?? \"\"}}/api/{noun}s/${{encodeURIComponent(id)}}?attempt=${{attempt}}`);"),
        );
        self.line(3, "if (!response.ok) {");
        self.line(4, "continue;");
        self.line(3, "}");
        let count = 2 + self.rng.below(5);
        self.statements(3, true, count);
        self.line(3, "return await response.json();");
        self.line(2, "} catch (error) {");
        self.line(
            3,
            &format!(
                "console.warn(`{name} failed (${{attempt + 1}}/${{retries}}): ${{String(error)}}`);"
            ),
        );
        self.line(2, "}");
        self.line(1, "}");
        self.line(1, "return undefined;");
        self.line(0, "}");
        self.blank();
    }

    fn arrows(&mut self) {
        let n = self.serial();
        let noun = self.noun();
        let generic = if self.tsx { "<T,>" } else { "<T>" };
        self.line(
            0,
            "// Small helpers: generics, arrow functions and a definite assignment.",
        );
        self.line(
            0,
            &format!("export const identity{n} = {generic}(value: T): T => value;"),
        );
        self.line(
            0,
            &format!("export const pluck{n} = <T, K extends keyof T>(items: readonly T[], key: K): T[K][] => items.map((item) => item[key]);"),
        );
        self.line(0, &format!("export const is{}{n} = (value: unknown): value is string => typeof value === \"string\";", capitalize(noun)));
        self.line(0, &format!("let current{n}!: string;"));
        let text = self.text();
        self.line(0, &format!("current{n} = \"{text}\";"));
        self.line(0, &format!("export {{ current{n} }};"));
        self.line(
            0,
            &format!("export function summarize{n}(items: readonly string[]): string {{"),
        );
        let count = 1 + self.rng.below(4);
        self.statements(1, false, count);
        self.line(
            1,
            "return items.filter((item) => !item.startsWith(\"#\")).join(\", \");",
        );
        self.line(0, "}");
        self.line(0, &format!("export const read{n} = (file: string): Promise<string> => readFile(path.join(baseDir, file), \"utf8\");"));
        self.blank();
    }

    fn component(&mut self) {
        let noun = self.noun();
        let name = format!("{}Panel{}", capitalize(noun), self.serial());
        let text = self.text();
        self.line(0, &format!("export interface {name}Props {{"));
        self.line(1, "readonly title: string;");
        self.line(
            1,
            "readonly items: ReadonlyArray<{ id: string; label: string; hidden?: boolean }>;",
        );
        self.line(1, "readonly selected?: string;");
        self.line(1, "readonly footer?: ReactNode;");
        self.line(1, "onSelect?(id: string): void;");
        self.line(0, "}");
        self.blank();
        if self.suppressions && self.rng.chance(30) {
            let reason = self.rng.pick(REASONS);
            let id = self.rule_id(Rule::DynamicImport);
            self.line(0, &format!("// ast-grep-ignore: {id} -- {reason}"));
        }
        self.line(
            0,
            &format!("const {name}Details = lazy(() => import(\"./{noun}-details\"));"),
        );
        self.blank();
        self.line(0, &format!("export function {name}({{ title, items, selected, footer, onSelect }}: {name}Props) {{"));
        self.line(1, "const [open, setOpen] = useState(false);");
        self.line(
            1,
            "const visible = useMemo(() => items.filter((item) => !item.hidden), [items]);",
        );
        self.line(1, "useEffect(() => {");
        self.line(2, &format!("document.title = `${{title}} · {text}`;"));
        self.line(1, "}, [title]);");
        let count = 1 + self.rng.below(3);
        self.statements(1, false, count);
        self.line(1, "return (");
        self.line(2, &format!("<section className=\"{noun}-panel\" aria-label={{title}} data-url={{import.meta.url}}>"));
        self.line(3, &format!("<h2>{{title}} — {text}</h2>"));
        self.line(
            3,
            "{!open && <button onClick={() => setOpen(true)}>Show</button>}",
        );
        self.line(3, "<ul>");
        self.line(4, "{visible.map((item) => (");
        self.line(5, "<li key={item.id} data-active={item.id === selected} onClick={() => onSelect?.(item.id)}>");
        if self.rng.chance(35) {
            self.line(6, "{item.label.split(\" \")[0]!.toUpperCase()}");
        } else {
            self.line(6, "{item.label}");
        }
        self.line(5, "</li>");
        self.line(4, "))}");
        self.line(3, "</ul>");
        self.line(3, &format!("{{open && <{name}Details />}}"));
        self.line(3, "<>{`${visible.length} of ${items.length}`}</>");
        self.line(3, "{footer}");
        self.line(2, "</section>");
        self.line(1, ");");
        self.line(0, "}");
        self.blank();
    }
    /// Unimplemented stubs, suppressed like any finding, and their valid look-alikes: a real error
    /// and a TODO beside code.
    fn stubs(&mut self) {
        let (noun, verb) = (self.noun(), self.verb());
        let name = format!("{}{}", capitalize(noun), self.serial());
        let message = match self.rng.below(3) {
            0 => "Not implemented".to_owned(),
            1 => "Method not implemented.".to_owned(),
            _ => format!("TODO: {verb} {noun}s"),
        };
        self.line(
            0,
            &format!("/** {} a {noun}: not written yet. */", capitalize(verb)),
        );
        self.line(
            0,
            &format!("export function {verb}{name}(id: string): never {{"),
        );
        self.finding(1, Rule::Stub, &[format!("throw new Error(\"{message}\");")]);
        self.line(0, "}");
        self.blank();
        self.finding(
            0,
            Rule::Stub,
            &[
                format!("export function draft{name}(): void {{"),
                format!("  // TODO: {verb} the {noun}"),
                "}".to_owned(),
            ],
        );
        self.blank();
        if self.suppressions {
            let (id, reason) = (self.rule_id(Rule::Stub), self.rng.pick(REASONS));
            self.line(0, &format!("export function hook{name}(): void {{"));
            self.line(1, &format!("// ast-grep-ignore: {id} -- {reason}"));
            self.line(1, "throw new Error(\"Not implemented\");");
            self.line(0, "}");
            self.blank();
        }
        self.line(
            0,
            &format!("export function checked{name}(id: string): string {{"),
        );
        self.line(
            1,
            &format!("if (id === \"\") throw new Error(\"{noun} not found\");"),
        );
        self.line(1, &format!("// TODO: cache the {noun}."));
        self.line(1, "return id;");
        self.line(0, "}");
        self.blank();
    }

    /// A test suite holding one focused and one skipped test among ordinary ones, and valid
    /// look-alikes (`it.each`, a conditional `test.skip`, an `only` property).
    fn tests(&mut self) {
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

/// The share of files with suppression comments (every file is matched in the engine's single
/// traversal; in these the comments are then applied to the matches).
const SUPPRESSED_FILES_PERCENT: u64 = 30;

/// The contents of file `index` of the corpus generated with `seed`.
fn file_text(index: usize, seed: u64, tsx: bool, test: bool) -> String {
    let mut writer = Writer {
        rng: Rng(seed ^ (index as u64 + 1).wrapping_mul(0xD6E8_FEB8_6659_FD93)),
        suppressions: false,
        tsx,
        out: String::new(),
        lines: 0,
        serial: 0,
    };
    // Every other test file carries suppressions, so even a small corpus suppresses focused and
    // skipped tests.
    writer.suppressions = writer.rng.chance(SUPPRESSED_FILES_PERCENT) || (test && index % 10 == 9);
    let target = 180 + writer.rng.below(180);
    writer.header(index);
    if test {
        writer.tests();
    }
    while writer.lines < target {
        let roll = writer.rng.below(if tsx { 100 } else { 80 });
        match roll {
            0..=11 => writer.interface(),
            12..=21 => writer.types(),
            22..=29 => writer.constants(),
            30..=44 => writer.class(),
            45..=61 => writer.async_function(),
            62..=79 => writer.arrows(),
            _ => writer.component(),
        }
    }
    if writer.suppressions {
        writer.legacy();
    }
    if !test {
        writer.stubs();
    }
    // Every file holds at least this finding, so a file a scan skipped shows.
    writer.line(
        0,
        &format!("export default {{ registry, version: {index}, endpoint: settings!.endpoint }};"),
    );
    writer.out
}

/// The repository-relative path of file `index`, whether it is TSX and whether it is a test file:
/// depends only on the index. About one file in three is `.tsx`, one in five a test file.
fn file_path(index: usize) -> (String, bool, bool) {
    let area = AREAS[index % AREAS.len()];
    let noun = NOUNS[(index / AREAS.len()) % NOUNS.len()];
    let verb = VERBS[index % VERBS.len()];
    let tsx = index % 3 == 2;
    let test = index % 5 == 4;
    let ext = if tsx { "tsx" } else { "ts" };
    let path = if test {
        format!("src/{area}/__tests__/{noun}-{verb}-{index:03}.test.{ext}")
    } else {
        format!("src/{area}/{noun}-{verb}-{index:03}.{ext}")
    };
    (path, tsx, test)
}

/// Writes `files` generated TypeScript/TSX files under `dir` and returns their paths relative to
/// `dir` (with `/` separators), in index order. The same `files` and `seed` always produce the
/// same bytes.
///
/// # Panics
///
/// When a directory or file cannot be written (this is test and benchmark support).
pub fn generate(dir: &Path, files: usize, seed: u64) -> Vec<String> {
    let mut paths = Vec::with_capacity(files);
    for index in 0..files {
        let (relative, tsx, test) = file_path(index);
        let full = dir.join(&relative);
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent)
                .unwrap_or_else(|e| panic!("cannot create {}: {e}", parent.display()));
        }
        let mut text = file_text(index, seed, tsx, test);
        text.push_str(&format!("// end of {relative}\n"));
        std::fs::write(&full, text)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", full.display()));
        paths.push(relative);
    }
    paths
}

//! The top-level declarations of a generated module: its header (doc comment and imports),
//! interfaces, type aliases, enums and constants, classes, async functions, arrow-function helpers,
//! JSX components (in `.tsx`) and the unimplemented stubs every file but a test file ends with.

use super::rule::Rule;
use super::vocabulary::{REASONS, capitalize};
use super::writer::Writer;

impl Writer {
    pub(super) fn header(&mut self, index: usize) {
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

    pub(super) fn interface(&mut self) {
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

    pub(super) fn types(&mut self) {
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

    pub(super) fn constants(&mut self) {
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

    pub(super) fn class(&mut self) {
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

    pub(super) fn async_function(&mut self) {
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

    pub(super) fn arrows(&mut self) {
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

    pub(super) fn component(&mut self) {
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
    pub(super) fn stubs(&mut self) {
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
}

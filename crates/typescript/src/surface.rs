//! Owns a TypeScript module's export surface: the part of its text an importer's type check can
//! depend on, so a wave whose edit leaves it unchanged need not re-check the importers (on zod, one
//! importer, the 5,138-line `v3/types.ts`, costs about 15 times the edited file's own check).
//!
//! The surface is the module's top-level text with two kinds of part left out, each of which no
//! other file can see:
//! - the body of a function, method or arrow function whose signature is fully written (every
//!   parameter annotated, the return type given): its type is that signature, whatever the body
//!   says;
//! - a top-level declaration that is not exported and whose names occur in no other top-level
//!   statement's surface (so no export reaches it, directly or through another declaration).
//!
//! Everything else counts, comments and whitespace included. When in doubt there is no surface
//! (`None`) and the importers are re-checked: a file that is not TypeScript (a JavaScript file's
//! types come from inference and `JSDoc`), a script (without `import` or `export` its declarations
//! are global), and a text that does not parse cleanly.

use ast_grep_core::Node;
use ast_grep_core::tree_sitter::{LanguageExt, StrDoc};
use ast_grep_language::SupportLang;
use pi_native_hooks_analysis::language_of;
use pi_native_hooks_base::{BoundedMap, ContentHash};
use std::collections::{HashMap, HashSet};
use std::ops::Range;

type TsNode<'r> = Node<'r, StrDoc<SupportLang>>;

/// The kinds whose body is left out when their signature is fully written.
const FUNCTION_KINDS: &[&str] = &[
    "function_declaration",
    "generator_function_declaration",
    "function_expression",
    "generator_function",
    "method_definition",
    "arrow_function",
];

/// The top-level statements that only declare names: left out when not exported and unreferenced.
const DECLARATION_KINDS: &[&str] = &[
    "lexical_declaration",
    "variable_declaration",
    "function_declaration",
    "generator_function_declaration",
    "class_declaration",
    "abstract_class_declaration",
    "interface_declaration",
    "type_alias_declaration",
    "enum_declaration",
];

/// True when `before` and `after` of the file at `path` are both modules with the same export
/// surface: an importer's type check cannot tell them apart. False whenever either has no
/// surface.
#[cfg(test)]
pub(crate) fn same_surface(path: &str, before: &str, after: &str) -> bool {
    match (surface(path, before), surface(path, after)) {
        (Some(before), Some(after)) => before == after,
        _ => false,
    }
}

/// How many paths the surface memo remembers before it starts over (a forgotten path's surface is
/// parsed again, nothing else changes).
const SURFACES_CAPACITY: usize = 4_096;

/// The surface of each changed file's last text, as a hash: a session edits the same files wave
/// after wave, and each wave's "before" is the last wave's "after", so it is parsed once.
#[derive(Debug)]
pub(crate) struct Surfaces {
    /// Per path: the hash of the text last judged, and of its surface (`None`: it has none).
    last: BoundedMap<String, (ContentHash, Option<ContentHash>)>,
}

impl Default for Surfaces {
    fn default() -> Self {
        Self {
            last: BoundedMap::new(SURFACES_CAPACITY),
        }
    }
}

impl Surfaces {
    /// [`same_surface`], remembering `after`'s surface for the next wave.
    pub(crate) fn same(&mut self, path: &str, before: &str, after: &str) -> bool {
        let of = |text: &str| surface(path, text).map(|s| ContentHash::of(s.as_bytes()));
        let before_hash = ContentHash::of(before.as_bytes());
        let before = match self.last.get(path) {
            Some((text, surface)) if *text == before_hash => *surface,
            _ => of(before),
        };
        let after_surface = of(after);
        self.last.insert(
            path.to_owned(),
            (ContentHash::of(after.as_bytes()), after_surface),
        );
        matches!((before, after_surface), (Some(b), Some(a)) if b == a)
    }

    /// Forgets `path` (a file that vanished).
    pub(crate) fn forget(&mut self, path: &str) {
        self.last.remove(path);
    }
}

/// The export surface of the module `text` at `path`; `None` when there is none to trust.
pub(crate) fn surface(path: &str, text: &str) -> Option<String> {
    let language = language_of(path)?;
    let root = language.ast_grep(text);
    let program = root.root();
    if program.get_inner_node().has_error() {
        return None;
    }
    let statements: Vec<TsNode<'_>> = program.children().collect();
    let is_module = statements
        .iter()
        .any(|s| matches!(&*s.kind(), "import_statement" | "export_statement"));
    if !is_module {
        return None;
    }
    // Each statement's kept text, and the names it mentions there.
    let kept: Vec<(String, HashSet<String>)> =
        statements.iter().map(|s| kept_text(s, text)).collect();
    let mut mentions: HashMap<&str, usize> = HashMap::new();
    for (_, names) in &kept {
        for name in names {
            *mentions.entry(name.as_str()).or_default() += 1;
        }
    }
    let mut surface = String::with_capacity(text.len());
    for (statement, (text, names)) in statements.iter().zip(&kept) {
        if DECLARATION_KINDS.contains(&&*statement.kind()) {
            let declared = declared_names(statement);
            let referenced = declared.iter().any(|name| {
                let own = usize::from(names.contains(name));
                mentions.get(name.as_str()).copied().unwrap_or(0) > own
            });
            if !declared.is_empty() && !referenced {
                continue;
            }
        }
        surface.push_str(text);
        surface.push('\n');
    }
    Some(surface)
}

/// `statement`'s text with the bodies of its fully written functions replaced by `{}`, and the
/// identifiers in what is left.
fn kept_text(statement: &TsNode<'_>, text: &str) -> (String, HashSet<String>) {
    let mut left_out: Vec<Range<usize>> = Vec::new();
    let mut names = HashSet::new();
    collect(statement, &mut left_out, &mut names);
    let range = statement.range();
    let mut kept = String::with_capacity(range.len());
    let mut at = range.start;
    for body in left_out {
        kept.push_str(&text[at..body.start]);
        kept.push_str("{}");
        at = body.end;
    }
    kept.push_str(&text[at..range.end]);
    (kept, names)
}

/// Walks `node` in order: the bodies to leave out (outermost only) and every identifier outside
/// them.
fn collect(node: &TsNode<'_>, left_out: &mut Vec<Range<usize>>, names: &mut HashSet<String>) {
    if FUNCTION_KINDS.contains(&&*node.kind())
        && let Some(body) = node.field("body")
        && fully_written(node)
    {
        for child in node.children() {
            if child.node_id() == body.node_id() {
                left_out.push(body.range());
            } else {
                collect(&child, left_out, names);
            }
        }
        return;
    }
    if node.is_leaf() && node.kind().contains("identifier") {
        names.insert(node.text().into_owned());
    }
    for child in node.children() {
        collect(&child, left_out, names);
    }
}

/// True when a function's type is its written signature: a return type, and a type on every
/// parameter (a bare `x => …` has none).
fn fully_written(function: &TsNode<'_>) -> bool {
    if function.field("return_type").is_none() {
        return false;
    }
    let Some(parameters) = function.field("parameters") else {
        return false;
    };
    parameters
        .children()
        .filter(TsNode::is_named)
        .all(|p| match &*p.kind() {
            "required_parameter" | "optional_parameter" => p.field("type").is_some(),
            "comment" => true,
            _ => false,
        })
}

/// The names a top-level declaration declares (for a destructuring, every identifier in its
/// pattern, which may be more than it declares: that only keeps more in the surface).
fn declared_names(statement: &TsNode<'_>) -> Vec<String> {
    let mut names = Vec::new();
    match &*statement.kind() {
        "lexical_declaration" | "variable_declaration" => {
            for declarator in statement.children() {
                if let Some(pattern) = declarator.field("name") {
                    identifiers(&pattern, &mut names);
                }
            }
        }
        _ => {
            if let Some(name) = statement.field("name") {
                names.push(name.text().into_owned());
            }
        }
    }
    names
}

fn identifiers(node: &TsNode<'_>, names: &mut Vec<String>) {
    if node.is_leaf() && node.kind().contains("identifier") {
        names.push(node.text().into_owned());
    }
    for child in node.children() {
        identifiers(&child, names);
    }
}

#[cfg(test)]
mod tests {
    use super::{SURFACES_CAPACITY, Surfaces, same_surface, surface};

    const MODULE: &str = "import { helper } from \"./helper.js\";\n\
        export function area(width: number, height: number): number {\n  return width * height;\n}\n\
        export function scale(factor) {\n  return local(factor) * 2;\n}\n\
        function local(x: number): number {\n  return x;\n}\n\
        function unused(): void {}\n\
        export const describe = (shape: string): string => `shape ${shape}`;\n\
        export const total = helper(1);\n";

    fn same(before: &str, after: &str) -> bool {
        same_surface("src/shapes.ts", before, after)
    }

    fn edited(from: &str, to: &str) -> String {
        assert!(MODULE.contains(from), "{from}");
        MODULE.replacen(from, to, 1)
    }

    #[test]
    fn edits_no_importer_can_see_keep_the_surface() {
        // A statement declaring a name nothing else mentions.
        assert!(same(
            MODULE,
            &edited(
                "export const total",
                "const benchEdit = 0;\nexport const total"
            )
        ));
        // The body of a fully written function, exported or not.
        assert!(same(
            MODULE,
            &edited("return width * height;", "return height * width + 0;")
        ));
        assert!(same(
            MODULE,
            &edited("  return x;", "  const y = x;\n  return y;")
        ));
        // An arrow function's expression body under a written signature.
        assert!(same(MODULE, &edited("`shape ${shape}`", "`a ${shape}`")));
        // An unreferenced local function removed altogether.
        assert!(same(MODULE, &edited("function unused(): void {}\n", "")));
    }

    #[test]
    fn edits_an_importer_may_see_change_the_surface() {
        let cases = [
            // The body of a function whose return type is inferred.
            ("return local(factor) * 2;", "return `${factor}`;"),
            // A signature.
            (
                "width: number, height: number",
                "width: number, height: string",
            ),
            // A new local that an export then uses, and one that shadows a name an export uses.
            (
                "export const total = helper(1);",
                "const k = 2;\nexport const total = helper(k);",
            ),
            (
                "export const total",
                "const helper = (n: number): string => `${n}`;\nexport const total",
            ),
            // The signature of a declaration an export uses.
            ("local(x: number): number", "local(x: number): string"),
            // An import.
            (
                "import { helper }",
                "import \"./augment.js\";\nimport { helper }",
            ),
            // A top-level expression (an expando property on an exported function).
            (
                "export const total",
                "area.unit = \"m\";\nexport const total",
            ),
            // A comment (a triple-slash directive changes the program).
            ("import {", "/// <reference types=\"node\" />\nimport {"),
            // A syntax error.
            ("return x;", "return x +;"),
        ];
        for (from, to) in cases {
            assert!(!same(MODULE, &edited(from, to)), "{from:?} -> {to:?}");
        }
    }

    #[test]
    fn the_memo_answers_as_the_surfaces_do() {
        let mut memo = Surfaces::default();
        let local = edited(
            "export const total",
            "const benchEdit = 0;\nexport const total",
        );
        let exported = edited(
            "export const total",
            "export const benchEdit = 0;\nexport const total",
        );
        assert!(memo.same("src/shapes.ts", MODULE, &local));
        // The next wave's before is the last after, answered from the memo.
        assert!(!memo.same("src/shapes.ts", &local, &exported));
        assert!(
            memo.same(
                "src/shapes.ts",
                &exported,
                &exported.replace("= 0;", "= 0; ")
            ) == same(&exported, &exported.replace("= 0;", "= 0; "))
        );
        memo.forget("src/shapes.ts");
        assert!(!memo.same("src/shapes.ts", "const a = 1;\n", "const a = 1;\n"));
    }

    #[test]
    fn the_memo_starts_over_at_its_capacity_and_answers_the_same() {
        let mut memo = Surfaces::default();
        let local = edited(
            "export const total",
            "const benchEdit = 0;\nexport const total",
        );
        for i in 0..SURFACES_CAPACITY {
            assert!(memo.same(&format!("src/m{i}.ts"), MODULE, &local));
        }
        assert_eq!(memo.last.usage().held, SURFACES_CAPACITY);
        // One more path: the memo starts over, holding only it, and the answer is unchanged.
        assert!(memo.same("src/extra.ts", MODULE, &local));
        assert_eq!(memo.last.usage().held, 1);
        // A forgotten path's before is parsed again: still the same surface.
        assert!(memo.same("src/m0.ts", &local, &local));
    }

    #[test]
    fn without_a_trustworthy_surface_the_importers_are_checked() {
        // A script: its declarations are global.
        assert_eq!(surface("src/a.ts", "const a = 1;\n"), None);
        // JavaScript: types come from inference and JSDoc.
        assert_eq!(surface("src/a.js", "export const a = 1;\n"), None);
        // A text that does not parse.
        assert_eq!(surface("src/a.ts", "export const a = ;\n"), None);
        assert!(!same_surface(
            "src/a.ts",
            "const a = 1;\n",
            "const a = 1;\n"
        ));
        // TSX parses as TSX.
        let component = "export function Row(props: { id: string }): JSX.Element {\n  return <tr>{props.id}</tr>;\n}\n";
        assert!(same_surface(
            "src/Row.tsx",
            component,
            &component.replace("<tr>", "<tr className=\"row\">")
        ));
    }
}

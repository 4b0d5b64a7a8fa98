//! A deterministic TypeScript project with a realistic import graph, for the benchmarks of the
//! TypeScript analyzer (`benches/benches/typescript.rs`): `files` modules under `src/`, in four
//! layers that import only downwards, the way an application is usually cut:
//!
//! - `src/core/` (4% of the files): shared types and helpers, each importing up to three earlier
//!   core modules;
//! - `src/lib/<area>/` (16%): libraries, each importing one or two core modules and up to three
//!   earlier library modules (mostly of its own area);
//! - `src/features/<feature>/` (70%): features of 35 modules each, importing core and library
//!   modules, one to four earlier modules of the same feature and now and then a module of an
//!   earlier feature;
//! - `src/app/` (the rest): entry points importing a handful of feature modules.
//!
//! Lower modules are picked with a bias towards the first ones of a layer, so a few modules are
//! imported by very many (the hubs every real project has) and most by a few. Every import is a
//! relative `./x.js` specifier naming a `.ts` file, as `module: nodenext` wants, and every module
//! uses what it imports (its entity type links to the imported ones, its score adds theirs), so a
//! change to a module can change its importers' types. The project type-checks cleanly under
//! `strict`.
//!
//! The file a bench edits (`target`) is the library module whose importer count is closest to
//! [`TARGET_IMPORTERS`]; it is made [`TARGET_LINES`] lines long, the other modules 40 to 250
//! lines. The output depends only on the file count and the seed (`SplitMix64`, no external
//! crate).

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

/// How many importers the edited module should have: a module of ordinary reach.
pub const TARGET_IMPORTERS: usize = 15;
/// The length of the edited module, in lines (at least; helpers are whole).
pub const TARGET_LINES: usize = 300;
/// The seed of the benches' project.
pub const SEED: u64 = 0x0007_c0de_5eed;

/// The modules of one feature.
const FEATURE_SIZE: usize = 35;
/// The modules of one library area.
const AREA_SIZE: usize = 20;

/// A generated project: what was written and which file to edit.
#[derive(Debug, Clone)]
pub struct Project {
    /// Every module, `src/...`, in generation order.
    pub files: Vec<String>,
    /// The module to edit.
    pub target: String,
    /// The modules importing it, sorted.
    pub importers: Vec<String>,
    /// Lines of all modules together.
    pub lines: usize,
}

/// `SplitMix64`: a small, good, seedable generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n as u64).unwrap_or(0)
    }

    /// Uniform in `lo..=hi`.
    fn between(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// In `0..n`, biased towards 0 (the square of a uniform draw): the hubs.
    fn biased(&mut self, n: usize) -> usize {
        let a = self.below(n);
        let b = self.below(n);
        a * b / n.max(1)
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// Where module `index` lives and which layer it is in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Layer {
    Core,
    Lib,
    Feature,
    App,
}

/// The sizes of the layers of a project of `files` modules.
struct Layout {
    core: usize,
    lib: usize,
    feature: usize,
}

impl Layout {
    fn new(files: usize) -> Self {
        let core = (files * 4 / 100).max(1);
        let lib = (files * 16 / 100).max(1);
        let feature = files * 70 / 100;
        Self { core, lib, feature }
    }

    fn layer(&self, index: usize) -> Layer {
        if index < self.core {
            Layer::Core
        } else if index < self.core + self.lib {
            Layer::Lib
        } else if index < self.core + self.lib + self.feature {
            Layer::Feature
        } else {
            Layer::App
        }
    }

    fn path(&self, index: usize) -> String {
        match self.layer(index) {
            Layer::Core => format!("src/core/module{index}.ts"),
            Layer::Lib => format!(
                "src/lib/area{}/module{index}.ts",
                (index - self.core) / AREA_SIZE
            ),
            Layer::Feature => format!(
                "src/features/feature{}/module{index}.ts",
                (index - self.core - self.lib) / FEATURE_SIZE
            ),
            Layer::App => format!("src/app/module{index}.ts"),
        }
    }
}

/// The modules each module imports, by index (always lower than its own).
fn import_graph(layout: &Layout, files: usize, rng: &mut Rng) -> Vec<BTreeSet<usize>> {
    let mut graph = Vec::with_capacity(files);
    let lib_start = layout.core;
    let feature_start = layout.core + layout.lib;
    let app_start = feature_start + layout.feature;
    for index in 0..files {
        let mut imports = BTreeSet::new();
        match layout.layer(index) {
            Layer::Core => {
                if index > 0 {
                    for _ in 0..rng.between(0, 3) {
                        imports.insert(rng.biased(index));
                    }
                }
            }
            Layer::Lib => {
                for _ in 0..rng.between(1, 2) {
                    imports.insert(rng.biased(layout.core));
                }
                let area_start = lib_start + (index - lib_start) / AREA_SIZE * AREA_SIZE;
                for _ in 0..rng.between(0, 3) {
                    if index > area_start && rng.chance(70) {
                        imports.insert(area_start + rng.biased(index - area_start));
                    } else if index > lib_start {
                        imports.insert(lib_start + rng.biased(index - lib_start));
                    }
                }
            }
            Layer::Feature => {
                for _ in 0..rng.between(1, 2) {
                    imports.insert(rng.biased(layout.core));
                }
                for _ in 0..rng.between(1, 3) {
                    imports.insert(lib_start + rng.biased(layout.lib));
                }
                let start = feature_start + (index - feature_start) / FEATURE_SIZE * FEATURE_SIZE;
                if index > start {
                    for _ in 0..rng.between(1, 4) {
                        imports.insert(start + rng.biased(index - start));
                    }
                }
                if start > feature_start && rng.chance(10) {
                    imports.insert(feature_start + rng.below(start - feature_start));
                }
            }
            Layer::App => {
                for _ in 0..rng.between(2, 6) {
                    imports.insert(feature_start + rng.below(app_start - feature_start));
                }
                imports.insert(lib_start + rng.biased(layout.lib));
                imports.insert(rng.biased(layout.core));
            }
        }
        graph.push(imports);
    }
    graph
}

/// The specifier `from` uses to import `to` (both `src/...` paths): `./x.js` or `../a/x.js`.
fn specifier(from: &str, to: &str) -> String {
    let from_parts: Vec<&str> = from.split('/').collect();
    let from_dir = &from_parts[..from_parts.len().saturating_sub(1)];
    let to_parts: Vec<&str> = to.split('/').collect();
    let common = from_dir
        .iter()
        .zip(&to_parts)
        .take_while(|(a, b)| a == b)
        .count();
    let mut out = String::new();
    if common == from_dir.len() {
        out.push_str("./");
    } else {
        for _ in common..from_dir.len() {
            out.push_str("../");
        }
    }
    out.push_str(&to_parts[common..].join("/"));
    out.strip_suffix(".ts")
        .map_or_else(|| out.clone(), |stem| format!("{stem}.js"))
}

/// Fills the `@I`, `@J` and `@K` holes of a template.
fn fill(template: &str, i: usize, j: usize, k: usize) -> String {
    template
        .replace("@I", &i.to_string())
        .replace("@J", &j.to_string())
        .replace("@K", &k.to_string())
}

const HELPER_SUMMARY: &str = r"
/** The first `limit` entities of `items`, each as one line of a report. */
export function summarize@I_@K(items: readonly Entity@I[], limit: number): string[] {
  const out: string[] = [];
  for (const item of items) {
    if (out.length >= limit) {
      break;
    }
    switch (item.count % 3) {
      case 0:
        out.push(`${item.id}:${item.count}`);
        break;
      case 1:
        out.push(item.tags.join(','));
        break;
      default:
        out.push(String(score@I(item)));
    }
  }
  return out;
}
";

const HELPER_JOIN: &str = r"
/** Links an entity of this module to a fresh one of module @J. */
export function join@I_@K(left: Entity@I, right: Entity@J): Summary@I {
  const linked = create@J(`${left.id}-${right.id}`, right.count);
  const store = new Store@J();
  store.add(linked);
  return { id: left.id, count: left.count + linked.count, score: score@I(left) + score@J(linked) };
}
";

const HELPER_GROUP: &str = r"
/** Groups `items` by the key `key` gives each. */
export function groupBy@I_@K<T, K extends string>(
  items: readonly T[],
  key: (item: T) => K,
): Partial<Record<K, T[]>> {
  const groups: Partial<Record<K, T[]>> = {};
  for (const item of items) {
    const name = key(item);
    const group = groups[name] ?? [];
    group.push(item);
    groups[name] = group;
  }
  return groups;
}
";

const HELPER_LOAD: &str = r"
/** Loads every id with `fetchOne`, skipping the ones it does not find. */
export async function load@I_@K(
  ids: readonly string[],
  fetchOne: (id: string) => Promise<Entity@I | undefined>,
): Promise<Entity@I[]> {
  const loaded: Entity@I[] = [];
  for (const id of ids) {
    const entity = await fetchOne(id);
    if (entity !== undefined) {
      loaded.push(entity);
    }
  }
  return loaded;
}
";

const HELPER_EVENT: &str = r#"
export type Event@I_@K =
  | { kind: "created"; entity: Entity@I }
  | { kind: "updated"; entity: Entity@I; previous: Entity@I }
  | { kind: "removed"; id: string };

/** One line describing `event`. */
export function describe@I_@K(event: Event@I_@K): string {
  switch (event.kind) {
    case "created":
      return `created ${event.entity.id}`;
    case "updated":
      return `updated ${event.entity.id} (${event.previous.count} -> ${event.entity.count})`;
    case "removed":
      return `removed ${event.id}`;
  }
}
"#;

const HELPER_CACHE: &str = r"
/** Remembers the last `capacity` scores computed. */
export class ScoreCache@I_@K {
  readonly #scores = new Map<string, number>();

  constructor(private readonly capacity: number) {}

  score(entity: Entity@I): number {
    const known = this.#scores.get(entity.id);
    if (known !== undefined) {
      return known;
    }
    const value = score@I(entity);
    if (this.#scores.size >= this.capacity) {
      const oldest = this.#scores.keys().next();
      if (!oldest.done) {
        this.#scores.delete(oldest.value);
      }
    }
    this.#scores.set(entity.id, value);
    return value;
  }
}
";

/// The text of module `index` importing `imports`, at least `lines` lines long.
fn module(layout: &Layout, index: usize, imports: &BTreeSet<usize>, lines: usize) -> String {
    let path = layout.path(index);
    let i = index;
    let mut text = format!("// {path}: generated module {i}.\n");
    for &j in imports {
        let _ = writeln!(
            text,
            "import {{ create{j}, score{j}, Store{j}, type Entity{j} }} from \"{}\";",
            specifier(&path, &layout.path(j))
        );
    }
    let _ = write!(
        text,
        "\n/** An entity of module {i}. */\nexport interface Entity{i} {{\n  readonly id: string;\n  count: number;\n  tags: string[];\n  updatedAt: Date;\n"
    );
    for &j in imports {
        let _ = writeln!(text, "  link{j}?: Entity{j};");
    }
    text.push_str("}\n");
    text.push_str(&fill(
        r#"
export type Summary@I = Pick<Entity@I, "id" | "count"> & { score: number };

/** A new entity with no tags. */
export function create@I(id: string, count = 0): Entity@I {
  return { id, count, tags: [], updatedAt: new Date(0) };
}

/** The entity's weight: its count, its tags and the scores of what it links to. */
export function score@I(entity: Entity@I): number {
  let total = entity.count;
  for (const tag of entity.tags) {
    total += tag.length;
  }
"#,
        i,
        0,
        0,
    ));
    for &j in imports {
        let _ = writeln!(
            text,
            "  if (entity.link{j} !== undefined) {{\n    total += score{j}(entity.link{j});\n  }}"
        );
    }
    text.push_str("  return total;\n}\n");
    text.push_str(&fill(
        r"
/** The entities of module @I by id. */
export class Store@I {
  readonly #items = new Map<string, Entity@I>();

  add(entity: Entity@I): void {
    this.#items.set(entity.id, entity);
  }

  get(id: string): Entity@I | undefined {
    return this.#items.get(id);
  }

  summaries(): Summary@I[] {
    return [...this.#items.values()].map((e) => ({ id: e.id, count: e.count, score: score@I(e) }));
  }
}
",
        i,
        0,
        0,
    ));
    let linked: Vec<usize> = imports.iter().copied().collect();
    let helpers = [
        HELPER_SUMMARY,
        HELPER_JOIN,
        HELPER_GROUP,
        HELPER_LOAD,
        HELPER_EVENT,
        HELPER_CACHE,
    ];
    let mut k = 0;
    while text.lines().count() < lines {
        let mut helper = helpers[(index + k) % helpers.len()];
        if helper == HELPER_JOIN && linked.is_empty() {
            helper = HELPER_SUMMARY;
        }
        let j = if linked.is_empty() {
            0
        } else {
            linked[k % linked.len()]
        };
        text.push_str(&fill(helper, i, j, k));
        k += 1;
    }
    text
}

/// Writes a project of `files` modules under `root/src` (nothing else: the bench adds the
/// config) and says what it wrote.
pub fn generate(root: &Path, files: usize, seed: u64) -> std::io::Result<Project> {
    let layout = Layout::new(files);
    let mut rng = Rng(seed);
    let graph = import_graph(&layout, files, &mut rng);
    let mut importers: Vec<Vec<usize>> = vec![Vec::new(); files];
    for (index, imports) in graph.iter().enumerate() {
        for &j in imports {
            importers[j].push(index);
        }
    }
    let lib = layout.core..layout.core + layout.lib;
    let target = lib
        .clone()
        .min_by_key(|&i| (importers[i].len().abs_diff(TARGET_IMPORTERS), i))
        .unwrap_or(0);
    let mut paths = Vec::with_capacity(files);
    let mut total = 0;
    for (index, imports) in graph.iter().enumerate() {
        let lines = if index == target {
            TARGET_LINES
        } else {
            match layout.layer(index) {
                Layer::Core => rng.between(60, 150),
                Layer::Lib => rng.between(80, 250),
                Layer::Feature => rng.between(60, 220),
                Layer::App => rng.between(40, 120),
            }
        };
        let path = layout.path(index);
        let text = module(&layout, index, imports, lines);
        total += text.lines().count();
        let full = root.join(&path);
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(full, text)?;
        paths.push(path);
    }
    let mut target_importers: Vec<String> =
        importers[target].iter().map(|&i| layout.path(i)).collect();
    target_importers.sort();
    Ok(Project {
        target: layout.path(target),
        importers: target_importers,
        files: paths,
        lines: total,
    })
}

/// What a benchmark edit changes, for an importer's type check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EditKind {
    /// `export const benchEdit = 0;`: the module's exports change (the constant's type is its
    /// literal), so the importers are checked again.
    Exported,
    /// `const benchEdit = 0;`: a local nothing exports, which no importer can see.
    Local,
}

/// Two versions of `text` that differ in one line, for an edit that alternates between them: a
/// `benchEdit = 0;` (then `= 1;`) statement of `kind` inserted before the first top-level
/// `export` at or after the middle of the file. `None` when no such line exists.
pub fn edit_pair(text: &str, kind: EditKind) -> Option<[String; 2]> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let at = (lines.len() / 2..lines.len()).find(|&n| lines[n].starts_with("export "))?;
    let version = |value: u8| {
        let mut out = String::with_capacity(text.len() + 32);
        for line in &lines[..at] {
            out.push_str(line);
        }
        let export = match kind {
            EditKind::Exported => "export ",
            EditKind::Local => "",
        };
        let _ = writeln!(out, "{export}const benchEdit = {value};");
        for line in &lines[at..] {
            out.push_str(line);
        }
        out
    };
    Some([version(0), version(1)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specifiers_are_relative_and_name_the_js_output() {
        assert_eq!(
            specifier("src/lib/area1/module50.ts", "src/lib/area1/module41.ts"),
            "./module41.js"
        );
        assert_eq!(
            specifier("src/features/feature0/module210.ts", "src/core/module3.ts"),
            "../../core/module3.js"
        );
        assert_eq!(
            specifier("src/app/module950.ts", "src/features/feature2/module280.ts"),
            "../features/feature2/module280.js"
        );
    }

    #[test]
    fn the_project_is_deterministic_layered_and_its_target_has_ordinary_reach() {
        let first = tempfile::tempdir().unwrap();
        let second = tempfile::tempdir().unwrap();
        let a = generate(first.path(), 1_000, SEED).unwrap();
        let b = generate(second.path(), 1_000, SEED).unwrap();
        assert_eq!(a.files.len(), 1_000);
        assert_eq!(a.target, b.target);
        assert_eq!(a.importers, b.importers);
        for file in &a.files {
            assert_eq!(
                std::fs::read(first.path().join(file)).unwrap(),
                std::fs::read(second.path().join(file)).unwrap(),
                "{file}"
            );
        }
        assert!(a.target.starts_with("src/lib/"), "{}", a.target);
        assert!(
            a.importers.len().abs_diff(TARGET_IMPORTERS) <= 5,
            "{} importers",
            a.importers.len()
        );
        let target = std::fs::read_to_string(first.path().join(&a.target)).unwrap();
        let lines = target.lines().count();
        assert!(
            (TARGET_LINES..TARGET_LINES + 30).contains(&lines),
            "{lines}"
        );
        // Every importer names the target, and only downward imports exist.
        let stem = a.target.rsplit('/').next().unwrap().replace(".ts", ".js");
        for importer in &a.importers {
            let text = std::fs::read_to_string(first.path().join(importer)).unwrap();
            assert!(text.contains(&stem), "{importer} imports {stem}");
        }
        assert!(
            !std::fs::read_to_string(first.path().join("src/core/module0.ts"))
                .unwrap()
                .contains("import ")
        );
    }

    #[test]
    fn the_edit_pair_differs_in_one_inserted_line() {
        let text =
            "// a\nexport const a = 1;\nconst x = 2;\nexport const b = 3;\nexport const c = 4;\n";
        let [zero, one] = edit_pair(text, EditKind::Local).unwrap();
        assert_eq!(
            zero,
            "// a\nexport const a = 1;\nconst x = 2;\nconst benchEdit = 0;\nexport const b = 3;\nexport const c = 4;\n"
        );
        assert_eq!(one, zero.replace("benchEdit = 0", "benchEdit = 1"));
        let [exported, _] = edit_pair(text, EditKind::Exported).unwrap();
        assert_eq!(
            exported,
            zero.replace("const benchEdit", "export const benchEdit")
        );
        assert_eq!(edit_pair("const a = 1;\n", EditKind::Local), None);
    }
}

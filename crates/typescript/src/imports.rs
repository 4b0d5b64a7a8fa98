//! Owns the reverse import index of one project: which files import which, so a wave that changes
//! an exported declaration also asks for the diagnostics of the unchanged files that import it
//! (TypeScript 7 has no workspace diagnostics). Built once per project by a bounded walk of its
//! folder (`.gitignore` honoured, `node_modules` skipped, at most a set number of files) and kept
//! current for the files each wave changes.
//!
//! Only relative specifiers (`./x`, `../y/z.js`) are followed, resolved the way TypeScript
//! resolves them for source files (`.js` written for a `.ts` file, a folder's `index`); a path
//! alias or a package name is not, so a dependent reached only through one is not re-checked.

use pi_native_hooks_base::safe_open::{Opened, open_no_follow, read_at_most};
use regex::Regex;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Component, Path};
use std::sync::LazyLock;

/// The extensions of files whose imports are read, and of the files an import may name.
pub(crate) const SOURCE_EXTENSIONS: [&str; 8] =
    ["ts", "tsx", "mts", "cts", "js", "jsx", "mjs", "cjs"];
/// The largest file whose imports are read, in bytes.
const MAX_INDEXED_FILE_BYTES: u64 = 1024 * 1024;

/// Every module specifier of a static `import`/`export … from`, a side-effect `import "x"`, a
/// dynamic `import("x")` and a `require("x")`.
static SPECIFIER: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r#"(?m)(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)["']([^"'\n]{1,512})["']"#,
    )
    .ok()
});

/// The reverse import index of one project.
#[derive(Debug, Default)]
pub(crate) struct ImportIndex {
    /// What each indexed file imports (repository-relative paths).
    imports: HashMap<String, BTreeSet<String>>,
    /// Who imports each file.
    importers: HashMap<String, BTreeSet<String>>,
    /// Files of the project beyond the index's bound, when it was hit.
    pub(crate) truncated_at: Option<usize>,
}

impl ImportIndex {
    /// Indexes the source files below `dir` (inside `root`), at most `max_files` of them.
    pub(crate) fn build(root: &Path, dir: &Path, max_files: usize) -> Self {
        let mut index = Self::default();
        let mut files: Vec<String> = Vec::new();
        let walk = ignore::WalkBuilder::new(dir)
            .hidden(true)
            .follow_links(false)
            .filter_entry(|entry| entry.file_name() != "node_modules")
            .build();
        for entry in walk.flatten() {
            if !entry.file_type().is_some_and(|t| t.is_file()) || !is_source(entry.path()) {
                continue;
            }
            if files.len() >= max_files {
                index.truncated_at = Some(max_files);
                break;
            }
            if let Some(relative) = relative(root, entry.path()) {
                files.push(relative);
            }
        }
        let known: BTreeSet<&str> = files.iter().map(String::as_str).collect();
        let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for file in &files {
            if let Some(text) = read_bounded(&root.join(file)) {
                edges.insert(
                    file.clone(),
                    resolve_all(file, &text, |p| known.contains(p)),
                );
            }
        }
        for (file, targets) in edges {
            index.set(&file, targets);
        }
        index
    }

    /// Re-reads the imports of `path` from `text` (`None`: the file is gone).
    pub(crate) fn update(&mut self, root: &Path, path: &str, text: Option<&str>) {
        let targets = text.map_or_else(BTreeSet::new, |text| {
            resolve_all(path, text, |p| {
                self.imports.contains_key(p) || root.join(p).is_file()
            })
        });
        self.set(path, targets);
        if text.is_none() {
            self.imports.remove(path);
        }
    }

    fn set(&mut self, path: &str, targets: BTreeSet<String>) {
        if let Some(old) = self.imports.remove(path) {
            for target in old {
                if let Some(set) = self.importers.get_mut(&target) {
                    set.remove(path);
                }
            }
        }
        for target in &targets {
            self.importers
                .entry(target.clone())
                .or_default()
                .insert(path.to_owned());
        }
        self.imports.insert(path.to_owned(), targets);
    }

    /// The files that import any of `paths`, sorted, without `paths` themselves.
    pub(crate) fn importers_of<'a>(
        &self,
        paths: impl IntoIterator<Item = &'a String>,
    ) -> Vec<String> {
        let changed: BTreeSet<&String> = paths.into_iter().collect();
        let mut found: BTreeSet<&String> = BTreeSet::new();
        for path in &changed {
            if let Some(importers) = self.importers.get(*path) {
                found.extend(importers.iter().filter(|i| !changed.contains(i)));
            }
        }
        found.into_iter().cloned().collect()
    }
}

/// Whether `path` has a source extension.
pub(crate) fn is_source(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| SOURCE_EXTENSIONS.contains(&e))
}

/// `path` relative to `root`, with `/` separators, when it is valid UTF-8 and below it.
fn relative(root: &Path, path: &Path) -> Option<String> {
    let relative = path.strip_prefix(root).ok()?;
    let parts: Option<Vec<&str>> = relative
        .components()
        .map(|c| c.as_os_str().to_str())
        .collect();
    Some(parts?.join("/"))
}

/// The files `text` (the content of `importer`) imports by relative specifier, each resolved
/// to a file `exists` knows.
fn resolve_all(importer: &str, text: &str, exists: impl Fn(&str) -> bool) -> BTreeSet<String> {
    let Some(pattern) = SPECIFIER.as_ref() else {
        return BTreeSet::new();
    };
    pattern
        .captures_iter(text)
        .filter_map(|c| c.get(1))
        .filter_map(|m| resolve(importer, m.as_str(), &exists))
        .collect()
}

/// The file the relative `specifier` written in `importer` names, if `exists` knows it.
fn resolve(importer: &str, specifier: &str, exists: &impl Fn(&str) -> bool) -> Option<String> {
    if !(specifier.starts_with("./") || specifier.starts_with("../")) {
        return None;
    }
    let base = Path::new(importer).parent()?.join(specifier);
    let base = normal(&base)?;
    let stripped = ["js", "jsx", "mjs", "cjs"].iter().find_map(|ext| {
        base.strip_suffix(&format!(".{ext}"))
            .map(|s| (s.to_owned(), *ext))
    });
    let mut candidates = vec![base.clone()];
    if let Some((stem, ext)) = &stripped {
        let swapped: &[&str] = match *ext {
            "js" => &["ts", "tsx"],
            "jsx" => &["tsx"],
            "mjs" => &["mts"],
            _ => &["cts"],
        };
        candidates.extend(swapped.iter().map(|e| format!("{stem}.{e}")));
    }
    for ext in ["ts", "tsx", "mts", "cts", "d.ts", "js", "jsx"] {
        candidates.push(format!("{base}.{ext}"));
    }
    for ext in ["ts", "tsx", "js", "jsx"] {
        candidates.push(format!("{base}/index.{ext}"));
    }
    candidates.into_iter().find(|c| exists(c))
}

/// `path` with `.` and `..` resolved lexically, `/`-separated; `None` when it climbs above the
/// repository root or is not UTF-8.
fn normal(path: &Path) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for component in path.components() {
        match component {
            Component::Normal(part) => parts.push(part.to_str()?),
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(parts.join("/"))
}

/// The text of the regular file at `path`, when it is at most [`MAX_INDEXED_FILE_BYTES`] and
/// UTF-8. Opened without following a final symlink and checked on the open descriptor, so a FIFO
/// or link put in its place after the walk saw a file is skipped, not waited on or followed.
fn read_bounded(path: &Path) -> Option<String> {
    let Opened::Regular { file, stat } = open_no_follow(path).ok()? else {
        return None;
    };
    let size = u64::try_from(stat.st_size)
        .unwrap_or(0)
        .min(MAX_INDEXED_FILE_BYTES);
    let bytes = read_at_most(
        file,
        MAX_INDEXED_FILE_BYTES,
        usize::try_from(size).unwrap_or(0),
    )
    .ok()??;
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn write(root: &Path, path: &str, text: &str) {
        let path = root.join(path);
        fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        fs::write(path, text).expect("write");
    }

    #[test]
    fn only_a_regular_utf8_file_within_the_limit_is_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        write(root, "src/a.ts", "export const a = 1;\n");
        assert_eq!(
            read_bounded(&root.join("src/a.ts")).as_deref(),
            Some("export const a = 1;\n")
        );
        // A FIFO is not opened for reading (which would wait for a writer), a symlink not followed.
        let made = std::process::Command::new("mkfifo")
            .arg(root.join("src/fifo.ts"))
            .status()
            .expect("mkfifo runs");
        assert!(made.success());
        assert_eq!(read_bounded(&root.join("src/fifo.ts")), None);
        std::os::unix::fs::symlink(root.join("src/a.ts"), root.join("src/link.ts")).expect("link");
        assert_eq!(read_bounded(&root.join("src/link.ts")), None);
        let limit = usize::try_from(MAX_INDEXED_FILE_BYTES).expect("fits");
        fs::write(root.join("src/big.ts"), vec![b'x'; limit + 1]).expect("write");
        assert_eq!(read_bounded(&root.join("src/big.ts")), None);
        fs::write(root.join("src/latin1.ts"), b"// caf\xe9\n").expect("write");
        assert_eq!(read_bounded(&root.join("src/latin1.ts")), None);
    }

    #[test]
    fn importers_are_found_through_js_suffixes_index_files_and_reexports() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        write(
            root,
            "src/a.ts",
            "export function f(x: number) { return x; }\n",
        );
        write(root, "src/b.ts", "import { f } from './a.js';\nf(1);\n");
        write(root, "src/lib/index.ts", "export * from '../a';\n");
        write(
            root,
            "src/c.tsx",
            "import { f } from \"./lib\";\nconst x = await import('./a');\n",
        );
        write(
            root,
            "src/d.ts",
            "import { z } from 'zod';\nimport '@/a';\n",
        );
        write(root, "node_modules/x/index.ts", "import './../../src/a';\n");
        let index = ImportIndex::build(root, root, 100);
        let a = "src/a.ts".to_owned();
        assert_eq!(
            index.importers_of([&a]),
            vec!["src/b.ts", "src/c.tsx", "src/lib/index.ts"]
        );
        let lib = "src/lib/index.ts".to_owned();
        assert_eq!(index.importers_of([&lib]), vec!["src/c.tsx"]);
        assert_eq!(index.truncated_at, None);
    }

    #[test]
    fn an_update_replaces_a_files_imports_and_the_bound_is_reported() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        write(root, "a.ts", "export const a = 1;\n");
        write(root, "b.ts", "import { a } from './a';\n");
        let mut index = ImportIndex::build(root, root, 100);
        let a = "a.ts".to_owned();
        assert_eq!(index.importers_of([&a]), vec!["b.ts"]);
        index.update(root, "b.ts", Some("export const b = 2;\n"));
        assert!(index.importers_of([&a]).is_empty());
        index.update(root, "b.ts", Some("import './a';\n"));
        assert_eq!(index.importers_of([&a]), vec!["b.ts"]);
        index.update(root, "b.ts", None);
        assert!(index.importers_of([&a]).is_empty());

        let bounded = ImportIndex::build(root, root, 1);
        assert_eq!(bounded.truncated_at, Some(1));
    }
}

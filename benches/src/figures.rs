//! The figure tables of the documentation and the runs behind them.
//!
//! Every table of measured figures in `docs/performance.md` and `docs/rules.md` sits between two
//! markers, `<!-- figures:NAME inputs=DIGEST -->` and `<!-- /figures:NAME -->`, and is written
//! there by `scripts/bench-figures NAME` from a run of the bench the [`SECTIONS`] entry names.
//! The digest covers the files the figures depend on (the bench's source, the corpus generator,
//! the rule and policy pack), so [`stale_sections`] can tell when a table describes a bench or a
//! pack that has changed since its run, and the test at the end of this file fails then.

use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One generated table: where it lives, the command that produces it and what it depends on.
#[derive(Debug, Clone, Copy)]
pub struct Section {
    /// The name in the markers and on the command line of `scripts/bench-figures`.
    pub name: &'static str,
    /// The document holding the table, relative to the repository root.
    pub doc: &'static str,
    /// The measuring command, as the table's heading shows it.
    pub command: &'static str,
    /// Files and folders (every file below, recursively) whose bytes the figures depend on.
    pub inputs: &'static [&'static str],
}

/// The built-in pack: every rule and policy a run with the built-in configuration loads.
const RULES: &str = "rules";
const POLICIES: &str = "policies";
/// The generated corpus of the scan benches and the parity tests: every file of its generator.
const CORPUS: &str = "tests/support/src/corpus";

/// Every generated table.
pub const SECTIONS: &[Section] = &[
    Section {
        name: "scan",
        doc: "docs/performance.md",
        command: "cargo bench -p pi-native-hooks-benches --bench scan",
        inputs: &["benches/benches/scan.rs", CORPUS, RULES],
    },
    Section {
        name: "scan-instructions",
        doc: "docs/performance.md",
        command: "cargo run --release -p pi-native-hooks-benches --bin figures -- instructions",
        inputs: &["benches/examples/scan_cost.rs", CORPUS, RULES],
    },
    Section {
        name: "tree-memory",
        doc: "docs/performance.md",
        command: "cargo run --release -p pi-native-hooks-benches --example tree_memory",
        inputs: &["benches/examples/tree_memory.rs", CORPUS, RULES],
    },
    Section {
        name: "wave",
        doc: "docs/performance.md",
        command: "cargo bench -p pi-native-hooks-benches --bench wave",
        inputs: &["benches/benches/wave.rs", RULES, POLICIES],
    },
    Section {
        name: "policy",
        doc: "docs/performance.md",
        command: "cargo bench -p pi-native-hooks-benches --bench policy",
        inputs: &["benches/benches/policy.rs", POLICIES],
    },
    Section {
        name: "policy-bombs",
        doc: "docs/performance.md",
        command: "cargo run --release -p pi-native-hooks-benches --bin policy_bombs",
        inputs: &["benches/src/bin/policy_bombs.rs"],
    },
    Section {
        name: "pi-overhead",
        doc: "docs/performance.md",
        command: "node benches/pi/overhead.mjs 200",
        inputs: &[
            "benches/pi/overhead.mjs",
            "benches/pi/runtime.mjs",
            RULES,
            POLICIES,
        ],
    },
    Section {
        name: "start-up",
        doc: "docs/performance.md",
        command: "node benches/pi/start-up.mjs 40",
        inputs: &["benches/pi/start-up.mjs"],
    },
    Section {
        name: "typescript",
        doc: "docs/performance.md",
        command: "cargo bench -p pi-native-hooks-benches --bench typescript",
        inputs: &[
            "benches/benches/typescript.rs",
            "benches/src/ts_project.rs",
            "tests/typescript-servers/ts7/package-lock.json",
        ],
    },
    Section {
        name: "pi-typescript",
        doc: "docs/performance.md",
        command: "node benches/pi/typescript.mjs 60",
        inputs: &[
            "benches/pi/typescript.mjs",
            "benches/pi/runtime.mjs",
            "package-lock.json",
            "tests/typescript-servers/ts7/package-lock.json",
            "tests/typescript-servers/ts5/package-lock.json",
            RULES,
            POLICIES,
        ],
    },
    Section {
        name: "pi-soak",
        doc: "docs/performance.md",
        command: "node benches/pi/soak.mjs 1500 6",
        inputs: &[
            "benches/pi/soak.mjs",
            "benches/pi/runtime.mjs",
            RULES,
            POLICIES,
        ],
    },
    Section {
        name: "check-scale",
        doc: "docs/performance.md",
        command: "cargo run --release -p pi-native-hooks-benches --bin check_scale -- 5",
        inputs: &["benches/src/bin/check_scale.rs", RULES],
    },
    Section {
        name: "precision",
        doc: "docs/rules.md",
        command: "cargo run --release -p pi-native-hooks-benches --example rule_precision -- …",
        inputs: &[
            "benches/examples/rule_precision.rs",
            "docs/precision-samples.md",
            "package-lock.json",
            CORPUS,
            RULES,
        ],
    },
];

/// Why the figures could not be read, written or checked.
#[derive(Debug, thiserror::Error)]
pub enum FiguresError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// No section has this name.
    #[error("no figure table is named `{0}` (known: {names})", names = section_names())]
    UnknownSection(String),
    /// The document lacks the section's markers, or has them out of order or twice.
    #[error(
        "{doc} has no single `<!-- figures:{name} inputs=… -->` … `<!-- /figures:{name} -->` block"
    )]
    NoBlock {
        /// The document.
        doc: &'static str,
        /// The section.
        name: &'static str,
    },
}

fn section_names() -> String {
    SECTIONS
        .iter()
        .map(|section| section.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The section called `name`.
pub fn section(name: &str) -> Result<&'static Section, FiguresError> {
    SECTIONS
        .iter()
        .find(|section| section.name == name)
        .ok_or_else(|| FiguresError::UnknownSection(name.to_owned()))
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> FiguresError + '_ {
    move |source| FiguresError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// An input that is neither a regular file nor a folder (a symlink, a FIFO): never read, since a
/// FIFO would block the digest for ever.
fn not_regular(path: &Path) -> FiguresError {
    FiguresError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file or folder; a bench input must be one",
        ),
    }
}

/// Every file an input names, sorted: the file itself, or every file below a folder.
fn input_files(root: &Path, input: &str) -> Result<Vec<PathBuf>, FiguresError> {
    let path = root.join(input);
    let meta = std::fs::symlink_metadata(&path).map_err(io(&path))?;
    if meta.is_file() {
        return Ok(vec![PathBuf::from(input)]);
    }
    if !meta.is_dir() {
        return Err(not_regular(&path));
    }
    let mut files = Vec::new();
    let mut pending = vec![PathBuf::from(input)];
    while let Some(folder) = pending.pop() {
        let absolute = root.join(&folder);
        for entry in std::fs::read_dir(&absolute).map_err(io(&absolute))? {
            let entry = entry.map_err(io(&absolute))?;
            let relative = folder.join(entry.file_name());
            let kind = entry.file_type().map_err(io(&absolute))?;
            if kind.is_dir() {
                pending.push(relative);
            } else if kind.is_file() {
                files.push(relative);
            } else {
                return Err(not_regular(&root.join(&relative)));
            }
        }
    }
    files.sort();
    Ok(files)
}

/// The digest of a section's inputs: SHA-256 over each file's relative path and bytes, in path
/// order, shortened to 16 hex digits.
pub fn inputs_digest(root: &Path, section: &Section) -> Result<String, FiguresError> {
    let mut hasher = Sha256::new();
    for input in section.inputs {
        for file in input_files(root, input)? {
            let absolute = root.join(&file);
            let bytes = std::fs::read(&absolute).map_err(io(&absolute))?;
            hasher.update(file.to_string_lossy().replace('\\', "/").as_bytes());
            hasher.update([0]);
            hasher.update((bytes.len() as u64).to_le_bytes());
            hasher.update(&bytes);
        }
    }
    let mut hex = String::with_capacity(16);
    for byte in hasher.finalize().iter().take(8) {
        let _ = write!(hex, "{byte:02x}");
    }
    Ok(hex)
}

fn begin_prefix(name: &str) -> String {
    format!("<!-- figures:{name} inputs=")
}

fn end_marker(name: &str) -> String {
    format!("<!-- /figures:{name} -->")
}

/// Where a section's block is in `text`: the byte range from its begin marker to the end of its
/// end marker, and the digest the begin marker records.
fn block(text: &str, section: &Section) -> Result<(std::ops::Range<usize>, String), FiguresError> {
    let missing = || FiguresError::NoBlock {
        doc: section.doc,
        name: section.name,
    };
    let prefix = begin_prefix(section.name);
    let end = end_marker(section.name);
    if text.matches(&prefix).count() != 1 || text.matches(&end).count() != 1 {
        return Err(missing());
    }
    let start = text.find(&prefix).ok_or_else(missing)?;
    let digest_start = start + prefix.len();
    let digest_len = text[digest_start..].find(" -->").ok_or_else(missing)?;
    let digest = text[digest_start..digest_start + digest_len].to_owned();
    let end_at = text.find(&end).ok_or_else(missing)?;
    if end_at < digest_start {
        return Err(missing());
    }
    Ok((start..end_at + end.len(), digest))
}

/// `text` with the section's block replaced by `body` under a begin marker recording `digest`.
pub fn splice(
    text: &str,
    section: &Section,
    digest: &str,
    body: &str,
) -> Result<String, FiguresError> {
    let (range, _) = block(text, section)?;
    Ok(format!(
        "{}{}{digest} -->\n{}\n{}{}",
        &text[..range.start],
        begin_prefix(section.name),
        body.trim_end(),
        end_marker(section.name),
        &text[range.end..]
    ))
}

/// A table whose inputs changed since its run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stale {
    /// The section.
    pub name: &'static str,
    /// Its document.
    pub doc: &'static str,
    /// The digest its block records.
    pub recorded: String,
    /// The digest of its inputs now.
    pub current: String,
}

impl std::fmt::Display for Stale {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: the `{}` figures were measured with inputs {} but {} now; re-run \
             `scripts/bench-figures {}` (its inputs: {})",
            self.doc,
            self.name,
            self.recorded,
            self.current,
            self.name,
            section(self.name).map_or_else(|_| String::new(), |s| s.inputs.join(", "))
        )
    }
}

/// Every section whose recorded digest differs from its inputs' digest now. A missing block is an
/// error, never an empty answer.
pub fn stale_sections(root: &Path) -> Result<Vec<Stale>, FiguresError> {
    let mut stale = Vec::new();
    for section in SECTIONS {
        let doc = root.join(section.doc);
        let text = std::fs::read_to_string(&doc).map_err(io(&doc))?;
        let (_, recorded) = block(&text, section)?;
        let current = inputs_digest(root, section)?;
        if recorded != current {
            stale.push(Stale {
                name: section.name,
                doc: section.doc,
                recorded,
                current,
            });
        }
    }
    Ok(stale)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCAN: Section = Section {
        name: "demo",
        doc: "doc.md",
        command: "true",
        inputs: &["bench.rs", "pack"],
    };

    fn tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("bench.rs"), "fn main() {}").unwrap();
        std::fs::create_dir_all(dir.path().join("pack/nested")).unwrap();
        std::fs::write(dir.path().join("pack/a.yml"), "a").unwrap();
        std::fs::write(dir.path().join("pack/nested/b.yml"), "b").unwrap();
        dir
    }

    #[test]
    fn the_digest_follows_every_input_file() {
        let dir = tree();
        let first = inputs_digest(dir.path(), &SCAN).unwrap();
        assert_eq!(first.len(), 16);
        assert_eq!(first, inputs_digest(dir.path(), &SCAN).unwrap());
        std::fs::write(dir.path().join("pack/nested/b.yml"), "b2").unwrap();
        let nested = inputs_digest(dir.path(), &SCAN).unwrap();
        assert_ne!(first, nested, "a file below an input folder counts");
        std::fs::write(dir.path().join("pack/c.yml"), "").unwrap();
        assert_ne!(
            nested,
            inputs_digest(dir.path(), &SCAN).unwrap(),
            "so does a new file"
        );
        std::fs::remove_file(dir.path().join("bench.rs")).unwrap();
        assert!(matches!(
            inputs_digest(dir.path(), &SCAN),
            Err(FiguresError::Io { .. })
        ));
    }

    #[test]
    fn a_symlink_or_fifo_among_the_inputs_is_named_not_read() {
        let dir = tree();
        std::os::unix::fs::symlink("a.yml", dir.path().join("pack/link.yml")).unwrap();
        let error = inputs_digest(dir.path(), &SCAN).unwrap_err().to_string();
        assert!(
            error.contains("pack/link.yml") && error.contains("not a regular file"),
            "{error}"
        );
        std::fs::remove_file(dir.path().join("pack/link.yml")).unwrap();
        nix::unistd::mkfifo(
            &dir.path().join("bench.rs.fifo"),
            nix::sys::stat::Mode::S_IRWXU,
        )
        .unwrap();
        let fifo = Section {
            inputs: &["bench.rs.fifo"],
            ..SCAN
        };
        let error = inputs_digest(dir.path(), &fifo).unwrap_err().to_string();
        assert!(
            error.contains("bench.rs.fifo") && error.contains("not a regular file"),
            "{error}"
        );
    }

    #[test]
    fn splice_replaces_only_the_block() {
        let text = "# Doc\n\nbefore\n<!-- figures:demo inputs=old -->\nold table\n<!-- /figures:demo -->\nafter\n";
        let new = splice(text, &SCAN, "0123", "| new |\n").unwrap();
        assert_eq!(
            new,
            "# Doc\n\nbefore\n<!-- figures:demo inputs=0123 -->\n| new |\n<!-- /figures:demo -->\nafter\n"
        );
        assert_eq!(block(&new, &SCAN).unwrap().1, "0123");
        for broken in [
            "no block",
            "<!-- figures:demo inputs=x -->\nno end",
            "<!-- /figures:demo -->\n<!-- figures:demo inputs=x -->\n",
            "<!-- figures:demo inputs=x -->\n<!-- /figures:demo -->\n<!-- figures:demo inputs=y -->\n<!-- /figures:demo -->\n",
        ] {
            assert!(
                matches!(
                    splice(broken, &SCAN, "1", "t"),
                    Err(FiguresError::NoBlock { .. })
                ),
                "{broken}"
            );
        }
    }

    #[test]
    fn unknown_sections_are_named() {
        let error = section("nope").unwrap_err().to_string();
        assert!(
            error.contains("`nope`") && error.contains("scan"),
            "{error}"
        );
    }

    /// The documented figures were measured with the benches and the pack as they are now.
    #[test]
    fn documented_figures_match_the_benches_and_pack_they_describe() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let stale = stale_sections(&root).unwrap_or_else(|error| panic!("{error}"));
        let lines: Vec<String> = stale.iter().map(ToString::to_string).collect();
        assert!(
            lines.is_empty(),
            "stale figure tables:\n{}",
            lines.join("\n")
        );
    }
}

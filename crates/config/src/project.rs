//! The ast-grep project inside a config root: `sgconfig.yml`, its `ruleDirs` and `utilDirs`.
//!
//! Discovery follows the ast-grep CLI (rule files are the `.yml`/`.yaml` files under each rule
//! directory, hidden entries skipped, sorted), so `ast-grep scan -c <root>/sgconfig.yml` sees the
//! same rules. Everything is opened relative to the checked root descriptor
//! ([`TrustedDir`]); a file that fails a check is reported and not loaded. Unlike the CLI,
//! `ruleDirs`/`utilDirs` must stay inside the root (no absolute path, no `..` above it, no
//! symbolic link), and a name that is not valid UTF-8 is reported instead of loaded.

use super::trust::{EntryKind, TrustError, TrustedDir};
use super::yaml::parse_yaml;
use super::{ConfigFile, ConfigProblem, DirFault};
use serde::Deserialize;
use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};

/// The file name of an ast-grep project configuration.
pub const SGCONFIG_FILE: &str = "sgconfig.yml";

/// The subset of ast-grep's `sgconfig.yml` that pi-native-hooks understands.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SgConfig {
    #[serde(default)]
    rule_dirs: Vec<PathBuf>,
    #[serde(default)]
    util_dirs: Vec<PathBuf>,
    /// Accepted so `ast-grep test` keeps working on the project; not used here.
    #[serde(default)]
    #[expect(
        dead_code,
        reason = "accepted for ast-grep compatibility, unused by the engine"
    )]
    test_configs: Option<Vec<TestConfig>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[expect(
    dead_code,
    reason = "accepted for ast-grep compatibility, unused by the engine"
)]
struct TestConfig {
    test_dir: PathBuf,
    snapshot_dir: Option<PathBuf>,
}

/// How deep rule directories are walked: deeper directories are reported, not read.
pub const MAX_RULE_DIR_DEPTH: usize = 32;

/// The rule and utility files of an ast-grep project, read after their trust checks.
#[derive(Debug, Default)]
pub struct ProjectFiles {
    /// Rule files in discovery order.
    pub rules: Vec<ConfigFile>,
    /// Utility rule files in discovery order.
    pub utils: Vec<ConfigFile>,
    /// Files and directories that could not be used, with the reason.
    pub problems: Vec<ConfigProblem>,
}

/// Opens the config root `root` (every ancestor checked) and reads its project.
///
/// Returns `Err` only when the root or `sgconfig.yml` itself cannot be used; anything below it
/// that fails is collected in [`ProjectFiles::problems`].
pub fn read_project(root: &Path) -> Result<ProjectFiles, ConfigProblem> {
    read_project_in(&TrustedDir::open_root(root)?)
}

/// Reads `sgconfig.yml` and the files of its `ruleDirs` and `utilDirs`, relative to `root`.
pub fn read_project_in(root: &TrustedDir) -> Result<ProjectFiles, ConfigProblem> {
    let config_path = root.path().join(SGCONFIG_FILE);
    let text = root.read_file(OsStr::new(SGCONFIG_FILE))?;
    let config: SgConfig = parse_yaml(&config_path, &text)?;
    let mut files = ProjectFiles::default();
    for (key, dirs, out) in [
        ("ruleDirs", &config.rule_dirs, &mut files.rules),
        ("utilDirs", &config.util_dirs, &mut files.utils),
    ] {
        for entry in dirs {
            let refuse = |fault| ConfigProblem::ProjectDir {
                config: config_path.clone(),
                line: entry_line(&text, key, entry),
                key,
                entry: entry.clone(),
                fault,
            };
            let opened = inside_root(entry).map_err(refuse).and_then(|relative| {
                root.open_relative_dir(&relative)
                    .map_err(|error| match error {
                        TrustError::Symlink { path } => refuse(DirFault::Symlink(path)),
                        other => ConfigProblem::Trust(other),
                    })
            });
            match opened {
                Ok(dir) => collect_yaml(&dir, 0, out, &mut files.problems),
                Err(problem) => files.problems.push(problem),
            }
        }
    }
    Ok(files)
}

/// The entry as a path below the root, or why it is not one. `..` is resolved lexically: every
/// directory is opened without following symlinks, so the lexical parent is the real one.
fn inside_root(entry: &Path) -> Result<PathBuf, DirFault> {
    let mut inside = PathBuf::new();
    for component in entry.components() {
        match component {
            Component::Normal(name) => inside.push(name),
            Component::CurDir => {}
            Component::ParentDir => {
                if !inside.pop() {
                    return Err(DirFault::LeavesRoot);
                }
            }
            Component::RootDir | Component::Prefix(_) => return Err(DirFault::Absolute),
        }
    }
    Ok(inside)
}

/// The 1-based line of `sgconfig.yml` where `entry` is listed under `key`, found by text: the
/// first line from the key on that mentions the entry (after the `key:` on the key's own line).
fn entry_line(text: &str, key: &str, entry: &Path) -> Option<u64> {
    let needle = entry.to_str().filter(|n| !n.is_empty())?;
    let mut lines = text
        .lines()
        .enumerate()
        .skip_while(|(_, line)| !line.trim_start().starts_with(&format!("{key}:")));
    let (key_index, key_line) = lines.next()?;
    let after_key = key_line.split_once(':').map_or("", |(_, rest)| rest);
    if after_key.contains(needle) {
        return u64::try_from(key_index + 1).ok();
    }
    lines
        .find(|(_, line)| !line.trim_start().starts_with('#') && line.contains(needle))
        .and_then(|(index, _)| u64::try_from(index + 1).ok())
}

fn is_yaml(name: &str) -> bool {
    matches!(
        Path::new(name).extension().and_then(OsStr::to_str),
        Some("yml" | "yaml")
    )
}

/// Walks `dir` recursively in sorted order, reading every YAML file that passes the trust checks.
/// Hidden entries are skipped, as the ast-grep CLI does.
fn collect_yaml(
    dir: &TrustedDir,
    depth: usize,
    out: &mut Vec<ConfigFile>,
    problems: &mut Vec<ConfigProblem>,
) {
    let entries = match dir.entries() {
        Ok(entries) => entries,
        Err(error) => {
            problems.push(ConfigProblem::Trust(error));
            return;
        }
    };
    for entry in entries {
        if entry.name.as_encoded_bytes().starts_with(b".") {
            continue;
        }
        let name = match entry.utf8_name(dir) {
            Ok(name) => name,
            Err(error) => {
                problems.push(ConfigProblem::Trust(error));
                continue;
            }
        };
        let path = dir.path().join(name);
        match entry.kind {
            EntryKind::Symlink => problems.push(ConfigProblem::Trust(TrustError::Symlink { path })),
            EntryKind::Dir if depth >= MAX_RULE_DIR_DEPTH => {
                problems.push(ConfigProblem::Trust(TrustError::Io {
                    path,
                    error: format!(
                        "more than {MAX_RULE_DIR_DEPTH} directories deep; move the rules up"
                    ),
                }));
            }
            EntryKind::Dir => match dir.open_dir(OsStr::new(name)) {
                Ok(sub) => collect_yaml(&sub, depth + 1, out, problems),
                Err(error) => problems.push(ConfigProblem::Trust(error)),
            },
            EntryKind::File | EntryKind::Other if is_yaml(name) => {
                match dir.read_file(OsStr::new(name)) {
                    Ok(text) => out.push(ConfigFile { path, text }),
                    Err(error) => problems.push(ConfigProblem::Trust(error)),
                }
            }
            EntryKind::File | EntryKind::Other => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_stay_inside_the_root() {
        assert_eq!(
            inside_root(Path::new("a/./b/../c")),
            Ok(PathBuf::from("a/c"))
        );
        assert_eq!(inside_root(Path::new(".")), Ok(PathBuf::new()));
        assert_eq!(inside_root(Path::new("a/../..")), Err(DirFault::LeavesRoot));
        assert_eq!(inside_root(Path::new("/etc")), Err(DirFault::Absolute));
    }

    #[test]
    fn the_line_of_an_entry_is_found_under_its_key() {
        let text = "# rules: see ../x\nutilDirs: [u]\nruleDirs:\n  - r\n  # - ../x\n  - ../x\n";
        assert_eq!(entry_line(text, "ruleDirs", Path::new("../x")), Some(6));
        assert_eq!(entry_line(text, "utilDirs", Path::new("u")), Some(2));
        assert_eq!(
            entry_line("ruleDirs: [s]\n", "ruleDirs", Path::new("s")),
            Some(1)
        );
        assert_eq!(entry_line(text, "ruleDirs", Path::new("missing")), None);
    }
}

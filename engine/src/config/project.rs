//! The ast-grep project inside a config root: `sgconfig.yml`, its `ruleDirs` and `utilDirs`.
//!
//! Discovery follows the ast-grep CLI (rule files are the `.yml`/`.yaml` files under each rule
//! directory, hidden entries skipped, sorted), so `ast-grep scan -c <root>/sgconfig.yml` sees the
//! same rules. Every directory and file passes the [`trust`](super::trust) checks before it is
//! read; a file that fails is reported and not loaded.

use super::trust::{TrustError, check_dir, read_trusted};
use super::{ConfigFile, ConfigProblem};
use serde::Deserialize;
use std::path::{Path, PathBuf};

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
    #[allow(
        dead_code,
        reason = "accepted for ast-grep compatibility, unused by the engine"
    )]
    test_configs: Option<Vec<TestConfig>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(
    dead_code,
    reason = "accepted for ast-grep compatibility, unused by the engine"
)]
struct TestConfig {
    test_dir: PathBuf,
    snapshot_dir: Option<PathBuf>,
}

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

/// Reads `<root>/sgconfig.yml` and the files of its `ruleDirs` and `utilDirs`.
///
/// Returns `Err` only when `sgconfig.yml` itself cannot be used; anything below it that fails is
/// collected in [`ProjectFiles::problems`].
pub fn read_project(root: &Path) -> Result<ProjectFiles, ConfigProblem> {
    let config_path = root.join(SGCONFIG_FILE);
    let text = read_trusted(&config_path).map_err(ConfigProblem::Trust)?;
    let config: SgConfig =
        ast_grep_config::from_str(&text).map_err(|error| ConfigProblem::Yaml {
            path: config_path.clone(),
            line: error.location().map(|l| l.line()),
            message: error.to_string(),
        })?;
    let mut files = ProjectFiles::default();
    for (dirs, out) in [
        (&config.rule_dirs, &mut files.rules),
        (&config.util_dirs, &mut files.utils),
    ] {
        for dir in dirs {
            collect_yaml(&root.join(dir), out, &mut files.problems);
        }
    }
    Ok(files)
}

fn is_yaml(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("yml" | "yaml")
    )
}

fn is_hidden(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with('.'))
}

/// Walks `dir` recursively in sorted order, reading every YAML file that passes the trust checks.
fn collect_yaml(dir: &Path, out: &mut Vec<ConfigFile>, problems: &mut Vec<ConfigProblem>) {
    if let Err(error) = check_dir(dir) {
        problems.push(ConfigProblem::Trust(error));
        return;
    }
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) => {
            problems.push(ConfigProblem::Trust(TrustError::Io {
                path: dir.to_path_buf(),
                error: error.to_string(),
            }));
            return;
        }
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if is_hidden(&path) {
            continue;
        }
        let Ok(meta) = path.symlink_metadata() else {
            continue;
        };
        if meta.file_type().is_symlink() {
            problems.push(ConfigProblem::Trust(TrustError::Symlink { path }));
        } else if meta.is_dir() {
            collect_yaml(&path, out, problems);
        } else if is_yaml(&path) {
            match read_trusted(&path) {
                Ok(text) => out.push(ConfigFile { path, text }),
                Err(error) => problems.push(ConfigProblem::Trust(error)),
            }
        }
    }
}

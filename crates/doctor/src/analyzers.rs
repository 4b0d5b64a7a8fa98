//! Owns the doctor's analyzers section: which analyzers the config runs in a session's waves —
//! the ast-grep analyzer (its key and how many rules compiled) and the project's TypeScript:
//! off by the settings, or the project of the directory examined (the nearest `tsconfig.json` or
//! `jsconfig.json` at or above it inside the repository, found as the type check finds it) with
//! the TypeScript it has installed and the language server that runs, or why it has none.

use pi_native_hooks_base::{Escaped, relative_to};
use pi_native_hooks_compose::LoadedConfig;
use pi_native_hooks_config::AnalyzerKey;
use pi_native_hooks_typescript::{
    ANALYZER_KEY, Installed, ProjectLookup, ServerCommand, TsserverBridge, Unavailable,
};
use std::fmt;
use std::path::{Path, PathBuf};

/// The analyzers a session's waves run with the config examined.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnalyzerReport {
    /// None: the config root exists but is not trusted (its own problem says why), so nothing
    /// runs until it is fixed.
    Inactive,
    /// The ast-grep analyzer and the type check.
    Run {
        /// The ast-grep analyzer's key: `ast-grep:personal`, or `ast-grep:builtin` while no
        /// config root exists.
        ast_grep: AnalyzerKey,
        /// How many rules it runs (those that compiled).
        rules: usize,
        /// The project's TypeScript.
        type_check: TypeCheckReport,
    },
}

/// The type check in the directory examined.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeCheckReport {
    /// Off: `[typescript] enabled = false` in this settings file.
    Disabled {
        /// The settings file that turns it off.
        settings: String,
    },
    /// No `tsconfig.json` or `jsconfig.json` at or above `dir`, up to `root`: nothing there is
    /// type-checked.
    NoProject {
        /// The directory examined.
        dir: PathBuf,
        /// Where the search stops: the repository root (the directory itself outside git).
        root: PathBuf,
    },
    /// The project of the directory examined.
    Project {
        /// The directory examined.
        dir: PathBuf,
        /// The project's `tsconfig.json` or `jsconfig.json`.
        config: PathBuf,
        /// The TypeScript it has installed, or why the type check cannot run it.
        typescript: Result<Installed, Unavailable>,
    },
}

/// The file name a directory is looked up by: the lookup finds a file's project from the folder
/// holding it, so any name stands for the directory itself.
const IN_DIR: &str = "file";

/// The analyzers `config` runs in the repository at `repository` (none outside git) for the
/// directory `dir`, serving a TypeScript before 7 with `bridge` when one is given, as a
/// session does.
pub(crate) fn analyzer_report(
    config: &LoadedConfig,
    dir: &Path,
    repository: Option<&Path>,
    bridge: Option<TsserverBridge>,
) -> AnalyzerReport {
    let settings = &config.settings;
    let type_check = if settings.settings.typescript.enabled {
        type_check(dir, repository, bridge)
    } else {
        TypeCheckReport::Disabled {
            settings: settings.origin.to_string(),
        }
    };
    AnalyzerReport::Run {
        ast_grep: config.source.analyzer_key(),
        rules: config.rules.ids().len(),
        type_check,
    }
}

/// The project of `dir` and its TypeScript, looked up below the repository root as the type
/// check looks a changed file's project up (outside git, below `dir` itself).
fn type_check(
    dir: &Path,
    repository: Option<&Path>,
    bridge: Option<TsserverBridge>,
) -> TypeCheckReport {
    let root = repository.unwrap_or(dir);
    // A directory below the root is looked up by a file in it; the root itself, or a directory
    // outside it, as the root of its own lookup.
    let (root, file) = match relative_to(root, dir) {
        Some(relative) => (root, format!("{}/{IN_DIR}", relative.as_str())),
        None => (dir, IN_DIR.to_owned()),
    };
    match ProjectLookup::new(root)
        .with_bridge(bridge)
        .project_of(&file)
    {
        Some(project) => TypeCheckReport::Project {
            dir: dir.to_path_buf(),
            config: project.config.clone(),
            typescript: project.typescript.clone(),
        },
        None => TypeCheckReport::NoProject {
            dir: dir.to_path_buf(),
            root: root.to_path_buf(),
        },
    }
}

/// A path as the report shows it, escaped: it comes from the file system.
fn shown(path: &Path) -> String {
    Escaped(&path.display().to_string()).to_string()
}

/// The analyzers section.
impl fmt::Display for AnalyzerReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let AnalyzerReport::Run {
            ast_grep,
            rules,
            type_check,
        } = self
        else {
            return writeln!(
                f,
                "analyzers: none (the config root is not trusted, so nothing runs)"
            );
        };
        writeln!(f, "analyzers:")?;
        writeln!(f, "  {ast_grep}: {rules} rule(s)")?;
        write!(f, "  {ANALYZER_KEY}: ")?;
        match type_check {
            TypeCheckReport::Disabled { settings } => writeln!(
                f,
                "off ([typescript] enabled = false in {})",
                Escaped(settings)
            ),
            TypeCheckReport::NoProject { dir, root } => {
                let searched = if dir == root {
                    "in it".to_owned()
                } else {
                    format!("at or above it, up to {}", shown(root))
                };
                writeln!(
                    f,
                    "on; no project at {} (no tsconfig.json or jsconfig.json {searched}): only the files of a project below it are type-checked",
                    shown(dir)
                )
            }
            TypeCheckReport::Project {
                dir,
                config,
                typescript,
            } => {
                write!(
                    f,
                    "on; the project of {} is {}: ",
                    shown(dir),
                    shown(config)
                )?;
                match typescript {
                    Ok(installed) => write_installed(f, installed),
                    Err(reason) => {
                        writeln!(f, "not type-checked: {}", Escaped(&reason.to_string()))
                    }
                }
            }
        }
    }
}

/// An installed TypeScript and the language server the type check runs for it.
fn write_installed(f: &mut fmt::Formatter<'_>, installed: &Installed) -> fmt::Result {
    write!(
        f,
        "TypeScript {} in {}, ",
        Escaped(&installed.version),
        shown(&installed.package)
    )?;
    match &installed.server {
        ServerCommand::Native { .. } => writeln!(
            f,
            "its native compiler as the language server (`tsc --lsp --stdio`)"
        ),
        ServerCommand::Tsserver { bridge, .. } => writeln!(
            f,
            "its tsserver through typescript-language-server ({})",
            shown(&bridge.cli)
        ),
    }
}

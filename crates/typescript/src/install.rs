//! Owns finding, for a source file, the TypeScript project it belongs to — the nearest
//! `tsconfig.json` or `jsconfig.json` at or above its folder, never above the repository root —
//! and the TypeScript that project has installed: `node_modules/typescript` at or above the
//! project's folder up to the repository root, the way editors find the workspace version, with
//! the language server that version runs.
//!
//! Nothing here parses a config's `extends` or runs the project's code: the server itself reads
//! the config. The only config text read is the project's own file (bounded, a regular file),
//! for whether it checks JavaScript.

use regex::Regex;
use std::collections::HashMap;
use std::fmt;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

/// The config files that make a folder a TypeScript project, in the order they are looked for.
const CONFIG_NAMES: [&str; 2] = ["tsconfig.json", "jsconfig.json"];
/// The largest `package.json` or project config read, in bytes.
const MAX_CONFIG_BYTES: u64 = 1024 * 1024;
/// The first TypeScript whose compiler is itself a language server (`tsc --lsp --stdio`).
pub const NATIVE_MAJOR: u32 = 7;

/// A TypeScript project: its config file and what it has installed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Project {
    /// The absolute path of its `tsconfig.json` or `jsconfig.json`: the project's identity.
    pub config: PathBuf,
    /// The folder holding the config.
    pub dir: PathBuf,
    /// Whether the project also checks `.js`/`.jsx` files (a `jsconfig.json`, or `allowJs` or
    /// `checkJs` set to `true` in the config itself; an `extends` is not followed).
    pub checks_js: bool,
    /// The TypeScript it has installed, or why it has none the analyzer can run.
    pub typescript: Result<Installed, Unavailable>,
}

/// An installed TypeScript the analyzer can run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Installed {
    /// `version` from its `package.json`.
    pub version: String,
    /// The `node_modules/typescript` folder.
    pub package: PathBuf,
    /// How its language server runs.
    pub server: ServerCommand,
}

impl Installed {
    /// The native compiler of a TypeScript 7 or later (`tsc`), if this is one.
    pub fn native_compiler(&self) -> Option<&Path> {
        match &self.server {
            ServerCommand::Native { compiler } => Some(compiler),
            ServerCommand::Tsserver { .. } => None,
        }
    }
}

/// How the analyzer runs an installed TypeScript's language server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerCommand {
    /// TypeScript 7 or later: its native compiler is the server, `tsc --lsp --stdio`.
    Native {
        /// The compiler for this platform.
        compiler: PathBuf,
    },
    /// A TypeScript before 7: typescript-language-server, run as `node cli.mjs --stdio`, over
    /// the project's own `tsserver`.
    Tsserver {
        /// The installed TypeScript's `lib` folder, which holds `tsserver.js`.
        lib: PathBuf,
        /// What runs typescript-language-server.
        bridge: TsserverBridge,
    },
}

/// typescript-language-server, which serves the language server protocol over the `tsserver` of
/// a TypeScript before 7: the Node that runs it and its `lib/cli.mjs`. The npm package brings a
/// pinned one and its host passes it with the Node it runs on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TsserverBridge {
    /// The Node executable.
    pub node: PathBuf,
    /// typescript-language-server's `lib/cli.mjs`.
    pub cli: PathBuf,
}

/// Where typescript-language-server's entry point is inside its package folder.
const BRIDGE_CLI: [&str; 3] = ["typescript-language-server", "lib", "cli.mjs"];

/// Why a project has no TypeScript the analyzer can run. Shown in the status, never an error.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unavailable {
    /// No `node_modules/typescript` from the project's folder up to the repository root.
    #[error("no TypeScript installed (no node_modules/typescript at or above {})", .project_dir.display())]
    NotInstalled {
        /// The project's folder.
        project_dir: PathBuf,
    },
    /// Its `package.json` could not be read or has no version.
    #[error("cannot read the version of {}: {reason}", .package.display())]
    UnreadableVersion {
        /// The `node_modules/typescript` folder.
        package: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// A TypeScript before 7 (whose compiler is not a language server) and no
    /// typescript-language-server to serve its `tsserver`.
    #[error(
        "TypeScript {version} is installed; before TypeScript {NATIVE_MAJOR} its type errors need typescript-language-server, and {missing}: install it beside TypeScript (`npm install --save-dev typescript-language-server`), or run pi-native-hooks from its npm package, which brings one"
    )]
    NoBridge {
        /// The installed version.
        version: String,
        /// What was not found.
        missing: String,
    },
    /// TypeScript 7 or later without the native compiler for this platform.
    #[error("TypeScript {version} is installed but its compiler for this platform is missing (looked for {})", .expected.display())]
    NoExecutable {
        /// The installed version.
        version: String,
        /// The first place looked.
        expected: PathBuf,
    },
}

/// Finds and remembers the project of each folder below one repository root.
#[derive(Debug)]
pub struct ProjectLookup {
    root: PathBuf,
    bridge: Option<TsserverBridge>,
    by_dir: HashMap<PathBuf, Option<Arc<Project>>>,
    by_config: HashMap<PathBuf, Arc<Project>>,
}

impl ProjectLookup {
    /// A lookup below `root` (the repository root, or the session's folder outside git).
    pub fn new(root: &Path) -> Self {
        Self {
            root: root.to_path_buf(),
            bridge: None,
            by_dir: HashMap::new(),
            by_config: HashMap::new(),
        }
    }

    /// Serves a TypeScript before 7 with `bridge` (the host's typescript-language-server) rather
    /// than with one installed beside the project.
    #[must_use]
    pub fn with_bridge(mut self, bridge: Option<TsserverBridge>) -> Self {
        self.bridge = bridge;
        self
    }

    /// The repository root this lookup stays below.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The project of the repository-relative `path`, if a config is at or above its folder.
    pub fn project_of(&mut self, path: &str) -> Option<Arc<Project>> {
        let file = self.root.join(path);
        let dir = file.parent()?.to_path_buf();
        self.project_of_dir(&dir)
    }

    /// Every project found so far.
    pub fn projects(&self) -> impl Iterator<Item = &Arc<Project>> {
        self.by_config.values()
    }

    /// Forgets what was found, so config files and installs are looked for again (after a
    /// change to a `tsconfig.json`, a `package.json` or `node_modules`).
    pub fn forget(&mut self) {
        self.by_dir.clear();
        self.by_config.clear();
    }

    fn project_of_dir(&mut self, dir: &Path) -> Option<Arc<Project>> {
        if let Some(known) = self.by_dir.get(dir) {
            return known.clone();
        }
        let found = match CONFIG_NAMES
            .iter()
            .map(|name| dir.join(name))
            .find(|config| is_regular_file(config))
        {
            Some(config) => Some(self.project_at(config)),
            None if dir == self.root || !dir.starts_with(&self.root) => None,
            None => dir.parent().and_then(|parent| {
                let parent = parent.to_path_buf();
                self.project_of_dir(&parent)
            }),
        };
        self.by_dir.insert(dir.to_path_buf(), found.clone());
        found
    }

    fn project_at(&mut self, config: PathBuf) -> Arc<Project> {
        if let Some(known) = self.by_config.get(&config) {
            return Arc::clone(known);
        }
        let dir = config.parent().map_or_else(PathBuf::new, Path::to_path_buf);
        let checks_js = config.file_name().is_some_and(|n| n == "jsconfig.json")
            || read_bounded(&config).is_ok_and(|text| CHECKS_JS.is_match(&text));
        let typescript = installed_typescript(&dir, &self.root, self.bridge.as_ref());
        let project = Arc::new(Project {
            config: config.clone(),
            dir,
            checks_js,
            typescript,
        });
        self.by_config.insert(config, Arc::clone(&project));
        project
    }
}

/// `"allowJs": true` or `"checkJs": true` in a config's text.
static CHECKS_JS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#""(?:allowJs|checkJs)"\s*:\s*true"#).unwrap_or_else(|_| unreachable_regex())
});

/// A regex that matches nothing: the fallback of a literal pattern that cannot fail to compile.
fn unreachable_regex() -> Regex {
    Regex::new(r"[^\s\S]").unwrap_or_else(|_| unreachable!("an empty class always compiles"))
}

/// The TypeScript installed for a project in `dir`: the nearest `node_modules/typescript` at or
/// above it, up to `root`; one before 7 is served by `bridge`, else by a typescript-language-server
/// installed the same way.
fn installed_typescript(
    dir: &Path,
    root: &Path,
    bridge: Option<&TsserverBridge>,
) -> Result<Installed, Unavailable> {
    let package = nearest_module(dir, root, &["typescript", "package.json"])
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .ok_or_else(|| Unavailable::NotInstalled {
            project_dir: dir.to_path_buf(),
        })?;
    let version = package_version(&package.join("package.json")).map_err(|reason| {
        Unavailable::UnreadableVersion {
            package: package.clone(),
            reason,
        }
    })?;
    let major = version
        .split('.')
        .next()
        .and_then(|m| m.parse::<u32>().ok())
        .unwrap_or(0);
    if major < NATIVE_MAJOR {
        let bridge = match bridge {
            Some(bridge) => bridge.clone(),
            None => project_bridge(dir, root, std::env::var_os("PATH").as_deref()).map_err(
                |missing| Unavailable::NoBridge {
                    version: version.clone(),
                    missing,
                },
            )?,
        };
        return Ok(Installed {
            version,
            server: ServerCommand::Tsserver {
                lib: package.join("lib"),
                bridge,
            },
            package,
        });
    }
    let candidates = native_candidates(&package);
    match candidates.iter().find(|exe| is_regular_file(exe)) {
        Some(compiler) => Ok(Installed {
            version,
            package,
            server: ServerCommand::Native {
                compiler: compiler.clone(),
            },
        }),
        None => Err(Unavailable::NoExecutable {
            version,
            expected: candidates.into_iter().next().unwrap_or_default(),
        }),
    }
}

/// The nearest `node_modules/<relative>` that is a regular file, at or above `dir` up to `root`.
fn nearest_module(dir: &Path, root: &Path, relative: &[&str]) -> Option<PathBuf> {
    dir.ancestors()
        .take_while(|d| d.starts_with(root))
        .map(|d| {
            relative
                .iter()
                .fold(d.join("node_modules"), |p, part| p.join(part))
        })
        .find(|p| is_regular_file(p))
}

/// A typescript-language-server installed beside the project, run by the `node` on `path` (the
/// `PATH` variable); or what is missing.
fn project_bridge(
    dir: &Path,
    root: &Path,
    path: Option<&std::ffi::OsStr>,
) -> Result<TsserverBridge, String> {
    let cli = nearest_module(dir, root, &BRIDGE_CLI).ok_or_else(|| {
        format!(
            "none is installed (no node_modules/{} at or above {})",
            BRIDGE_CLI.join("/"),
            dir.display()
        )
    })?;
    let node = path
        .into_iter()
        .flat_map(std::env::split_paths)
        .map(|d| d.join("node"))
        .find(|p| is_regular_file(p))
        .ok_or_else(|| format!("no `node` is on PATH to run {}", cli.display()))?;
    Ok(TsserverBridge { node, cli })
}

/// Where the native compiler of the `typescript` package at `package` may be, in the order
/// Node would resolve `@typescript/typescript-<platform>-<arch>` from it: nested in its own
/// `node_modules`, beside it, and beside where a symlinked install (pnpm) really is.
fn native_candidates(package: &Path) -> Vec<PathBuf> {
    let platform = format!("typescript-{}-{}", node_platform(), node_arch());
    let relative = Path::new("@typescript")
        .join(&platform)
        .join("lib")
        .join("tsc");
    let mut candidates = vec![package.join("node_modules").join(&relative)];
    if let Some(modules) = package.parent() {
        candidates.push(modules.join(&relative));
    }
    if let Ok(real) = package.canonicalize()
        && let Some(modules) = real.parent()
    {
        candidates.push(real.join("node_modules").join(&relative));
        candidates.push(modules.join(&relative));
    }
    candidates.dedup();
    candidates
}

/// Node's `process.platform` for this build.
fn node_platform() -> &'static str {
    match std::env::consts::OS {
        "macos" => "darwin",
        "windows" => "win32",
        other => other,
    }
}

/// Node's `process.arch` for this build.
fn node_arch() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        "arm" => "arm",
        other => other,
    }
}

/// The `version` field of the `package.json` at `path`.
fn package_version(path: &Path) -> Result<String, String> {
    let text = read_bounded(path)?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    value
        .get("version")
        .and_then(serde_json::Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| "no \"version\" field".to_owned())
}

/// Whether `path` is a regular file (following symlinks); a FIFO or a folder is not.
fn is_regular_file(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// The text of the regular file at `path`, at most [`MAX_CONFIG_BYTES`].
fn read_bounded(path: &Path) -> Result<String, String> {
    if !is_regular_file(path) {
        return Err("not a regular file".to_owned());
    }
    let file = File::open(path).map_err(|e| e.to_string())?;
    let mut text = String::new();
    file.take(MAX_CONFIG_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| e.to_string())?;
    if text.len() as u64 > MAX_CONFIG_BYTES {
        return Err(format!("over the {MAX_CONFIG_BYTES}-byte limit"));
    }
    Ok(text)
}

impl fmt::Display for Project {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.config.display())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn write(path: &Path, text: &str) {
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).expect("create folder");
        }
        fs::write(path, text).expect("write file");
    }

    #[test]
    fn the_nearest_config_names_the_project_and_no_config_means_no_project() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        write(&root.join("tsconfig.json"), "{}");
        write(
            &root.join("packages/a/tsconfig.json"),
            r#"{ "compilerOptions": { "allowJs": true } }"#,
        );
        let mut lookup = ProjectLookup::new(root);
        let a = lookup.project_of("packages/a/src/x.ts").expect("project");
        assert_eq!(a.config, root.join("packages/a/tsconfig.json"));
        assert!(a.checks_js);
        let top = lookup.project_of("src/y.ts").expect("project");
        assert_eq!(top.config, root.join("tsconfig.json"));
        assert!(!top.checks_js);

        let bare = tempfile::tempdir().expect("tempdir");
        let mut lookup = ProjectLookup::new(bare.path());
        assert_eq!(lookup.project_of("src/y.ts"), None);
    }

    #[test]
    fn typescript_before_7_needs_a_bridge_and_a_missing_install_is_named() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        write(&root.join("tsconfig.json"), "{}");
        let mut lookup = ProjectLookup::new(root);
        let project = lookup.project_of("a.ts").expect("project");
        assert!(matches!(
            project.typescript,
            Err(Unavailable::NotInstalled { .. })
        ));

        write(
            &root.join("node_modules/typescript/package.json"),
            r#"{ "version": "5.9.3" }"#,
        );
        lookup.forget();
        let project = lookup.project_of("a.ts").expect("project");
        let Err(Unavailable::NoBridge { version, missing }) = &project.typescript else {
            panic!("no bridge: {:?}", project.typescript);
        };
        assert_eq!(version, "5.9.3");
        assert!(missing.contains("node_modules/typescript-language-server/lib/cli.mjs"));
        let message = project.typescript.clone().err().map(|e| e.to_string());
        assert!(
            message.is_some_and(|m| m.contains("TypeScript 5.9.3 is installed")
                && m.contains("npm install --save-dev typescript-language-server"))
        );

        // The host's bridge serves it; so does one installed beside it, run by `node` on PATH.
        let host = TsserverBridge {
            node: PathBuf::from("/host/node"),
            cli: PathBuf::from("/host/cli.mjs"),
        };
        let mut lookup = ProjectLookup::new(root).with_bridge(Some(host.clone()));
        let project = lookup.project_of("a.ts").expect("project");
        let installed = project
            .typescript
            .clone()
            .expect("served by the host's bridge");
        assert_eq!(
            installed.server,
            ServerCommand::Tsserver {
                lib: root.join("node_modules/typescript/lib"),
                bridge: host,
            }
        );
        assert_eq!(installed.native_compiler(), None);

        write(
            &root.join("node_modules/typescript/package.json"),
            r#"{ "version": "7.0.2" }"#,
        );
        lookup.forget();
        let project = lookup.project_of("a.ts").expect("project");
        assert!(matches!(
            project.typescript,
            Err(Unavailable::NoExecutable { .. })
        ));
    }

    #[test]
    fn a_bridge_installed_beside_the_project_runs_on_the_node_on_path() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        let cli = root.join("node_modules/typescript-language-server/lib/cli.mjs");
        let bin = root.join("bin");
        let missing = project_bridge(&root.join("packages/a"), root, None);
        assert!(missing.is_err_and(|m| m.contains("none is installed")));
        write(&cli, "");
        let no_node = project_bridge(&root.join("packages/a"), root, Some(bin.as_os_str()));
        assert!(no_node.is_err_and(|m| m.contains("no `node` is on PATH")));
        write(&bin.join("node"), "");
        let path = std::env::join_paths([root.join("nowhere"), bin.clone()]).expect("PATH");
        assert_eq!(
            project_bridge(&root.join("packages/a"), root, Some(&path)),
            Ok(TsserverBridge {
                node: bin.join("node"),
                cli,
            })
        );
    }

    #[test]
    fn a_fifo_named_like_a_config_is_not_a_project() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        nix::unistd::mkfifo(&root.join("tsconfig.json"), nix::sys::stat::Mode::S_IRWXU)
            .expect("mkfifo");
        let mut lookup = ProjectLookup::new(root);
        assert_eq!(lookup.project_of("a.ts"), None);
    }
}

//! `pi-native-hooks init`: lays down the personal config root with the built-in pack (sgconfig,
//! rules, diagnostic policies, their fixtures and the fixtures' JSON Schema), plus the verification policy proposed for the
//! project init runs in when there is one ([`InitPlan::with_policy`]; the proposal itself is
//! `verification::proposal`'s). Lists every entry first, creates only missing ones (directories
//! 0700, files 0600), never overwrites, and removes what it created if a step fails.

use super::builtin;
use pi_native_hooks_config::builtin::RULE_FILES;
use std::io::{ErrorKind, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The `sgconfig.yml` `init` writes.
pub const SGCONFIG: &str = "ruleDirs:\n  - ast-grep/rules\n";

/// What an entry of the plan is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InitContent {
    /// A directory (mode 0700).
    Dir,
    /// A file (mode 0600) with this content.
    File(String),
}

/// One entry of the plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InitEntry {
    /// The absolute path.
    pub path: PathBuf,
    /// Directory or file content.
    pub content: InitContent,
    /// True when something already exists at the path: it is left alone.
    pub exists: bool,
}

/// Every entry `init` would create, in creation order (parents first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InitPlan {
    /// The config root.
    pub root: PathBuf,
    /// The directories and files to create, parents first.
    pub entries: Vec<InitEntry>,
    /// Lines shown after the entries: what was proposed for the project, or why nothing was.
    pub notes: Vec<String>,
}

/// Why `init` failed. Everything it had created was removed again.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {error}; nothing was left behind")]
pub struct InitError {
    /// The entry that could not be created.
    pub path: PathBuf,
    /// The operating system's message.
    pub error: std::io::Error,
}

impl InitPlan {
    /// The plan for `root`: missing ancestors, the root, and the built-in pack.
    pub fn new(root: &Path) -> Self {
        let mut entries = Vec::new();
        let missing_ancestors: Vec<&Path> = root
            .ancestors()
            .skip(1)
            .take_while(|dir| !dir.as_os_str().is_empty() && !exists(dir))
            .collect();
        for dir in missing_ancestors.into_iter().rev() {
            entries.push(entry(dir.to_path_buf(), InitContent::Dir));
        }
        entries.push(entry(root.to_path_buf(), InitContent::Dir));
        entries.push(entry(
            root.join("sgconfig.yml"),
            InitContent::File(SGCONFIG.to_owned()),
        ));
        for dir in [
            "ast-grep",
            "ast-grep/rules",
            "policies",
            "policies/tests",
            "schemas",
        ] {
            entries.push(entry(root.join(dir), InitContent::Dir));
        }
        let files = RULE_FILES
            .iter()
            .map(|(name, text)| (format!("ast-grep/rules/{name}"), *text))
            .chain(
                builtin::POLICY_FILES
                    .iter()
                    .map(|(name, text)| (format!("policies/{name}"), *text)),
            )
            .chain(
                builtin::FIXTURE_FILES
                    .iter()
                    .map(|(name, text)| (format!("policies/tests/{name}"), *text)),
            )
            .chain(std::iter::once((
                builtin::FIXTURE_SCHEMA.0.to_owned(),
                builtin::FIXTURE_SCHEMA.1,
            )));
        for (relative, text) in files {
            entries.push(entry(
                root.join(relative),
                InitContent::File(text.to_owned()),
            ));
        }
        Self {
            root: root.to_path_buf(),
            entries,
            notes: Vec::new(),
        }
    }

    /// Adds the file `policies/<file_name>` with `text` (kept when something is there already).
    #[must_use]
    pub fn with_policy(mut self, file_name: &str, text: String) -> Self {
        let path = self.root.join("policies").join(file_name);
        self.entries.push(entry(path, InitContent::File(text)));
        self
    }

    /// Adds a line shown after the entries.
    #[must_use]
    pub fn with_note(mut self, note: String) -> Self {
        self.notes.push(note);
        self
    }

    /// One line per entry, as `init` and `/hooks-init` show the plan: `would create` (dry
    /// run) or `create`, or `exists (kept)`; directories end with `/`.
    pub fn describe(&self, dry_run: bool) -> Vec<String> {
        let verb = if dry_run { "would create" } else { "create" };
        self.entries
            .iter()
            .map(|entry| {
                let slash = if entry.content == InitContent::Dir {
                    "/"
                } else {
                    ""
                };
                let state = if entry.exists { "exists (kept)" } else { verb };
                format!("{state}: {}{slash}", entry.path.display())
            })
            .collect()
    }

    /// The entries that would be created.
    pub fn to_create(&self) -> impl Iterator<Item = &InitEntry> {
        self.entries.iter().filter(|e| !e.exists)
    }

    /// Creates the missing entries. On failure, removes what this call created (in reverse) and
    /// returns the error. Returns the paths created.
    pub fn apply(&self) -> Result<Vec<PathBuf>, InitError> {
        let mut created: Vec<(&Path, bool)> = Vec::new();
        for item in self.to_create() {
            match create(item) {
                Ok(true) => created.push((&item.path, matches!(item.content, InitContent::Dir))),
                Ok(false) => {}
                Err(error) => {
                    for (path, is_dir) in created.iter().rev() {
                        let _ = if *is_dir {
                            std::fs::remove_dir(path)
                        } else {
                            std::fs::remove_file(path)
                        };
                    }
                    return Err(InitError {
                        path: item.path.clone(),
                        error,
                    });
                }
            }
        }
        Ok(created
            .into_iter()
            .map(|(path, _)| path.to_path_buf())
            .collect())
    }
}

fn exists(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

fn entry(path: PathBuf, content: InitContent) -> InitEntry {
    InitEntry {
        exists: exists(&path),
        path,
        content,
    }
}

/// Creates one entry; `Ok(false)` when something appeared there meanwhile (never overwritten).
fn create(item: &InitEntry) -> std::io::Result<bool> {
    let result = match &item.content {
        InitContent::Dir => std::fs::DirBuilder::new().mode(0o700).create(&item.path),
        InitContent::File(text) => std::fs::File::options()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(nix::libc::O_NOFOLLOW)
            .open(&item.path)
            .and_then(|mut file| {
                file.write_all(text.as_bytes())
                    .and_then(|()| file.sync_all())
                    .inspect_err(|_| {
                        let _ = std::fs::remove_file(&item.path);
                    })
            }),
    };
    match result {
        Ok(()) => Ok(true),
        Err(error) if error.kind() == ErrorKind::AlreadyExists => Ok(false),
        Err(error) => Err(error),
    }
}

//! Owns what a synchronisation compares outside the worktree: `HEAD`, the index's entries, and
//! the files that change what git ignores or how it reads files — the repository's own, and those
//! outside it (the system, global and included config files, the global excludes and attributes
//! files). A change to any of them can change the status of paths no worktree event names, so it
//! makes the snapshot a full one. An index rewritten with only fresher stat data (what `git status` itself does) keeps the
//! same entries and is not a change.

use super::super::status::FallbackReason;
use crate::error::WorkspaceError;
use crate::repo::{self, Head, OpenRepo};
use crate::snapshot::index_cache;
use gix::index::entry::Flags;
use std::path::PathBuf;
use std::sync::Arc;
use xxhash_rust::xxh3::Xxh3;

/// The repository's own files whose change makes the watcher's events insufficient.
pub(crate) fn rule_files(open: &OpenRepo) -> Vec<PathBuf> {
    let common = open.repo.common_dir();
    let git_dir = open.repo.git_dir();
    vec![
        common.join("config"),
        git_dir.join("config.worktree"),
        common.join("info").join("exclude"),
        common.join("info").join("attributes"),
        common.join("info").join("sparse-checkout"),
    ]
}

/// The files outside the repository that git reads for its status: where the system, installation
/// and global config files are or would be (one created later counts as a change), every config
/// file actually read (includes among them), and the global excludes and attributes files
/// (`core.excludesFile`, `core.attributesFile`, or their XDG defaults).
fn outside_files(open: &OpenRepo) -> Vec<PathBuf> {
    use gix::config::Source;
    let mut env = |name: &str| std::env::var_os(name);
    let mut files: Vec<PathBuf> = [
        Source::GitInstallation,
        Source::System,
        Source::Git,
        Source::User,
    ]
    .into_iter()
    .filter_map(|source| source.storage_location(&mut env))
    .collect();
    let config = open.repo.config_snapshot();
    files.extend(
        config
            .plumbing()
            .sections()
            .filter_map(|section| section.meta().path.clone()),
    );
    for (key, default) in [
        ("core.excludesFile", "ignore"),
        ("core.attributesFile", "attributes"),
    ] {
        match config.trusted_path(key) {
            Ok(Some(path)) => files.push(path),
            // Unset (or not a path): git falls back to the XDG file.
            _ => files.extend(gix::path::env::xdg_config(default, &mut env)),
        }
    }
    files.sort();
    files.dedup();
    files
}

/// A file's identity: any rewrite changes its inode, size or change time. Taken of the path
/// itself and of what it leads to, so that both retargeting a symbolic link and rewriting its
/// target count (a global config is often a link into a dotfiles checkout).
type FileIdentity = [Option<(u64, u64, i64, i64)>; 2];

fn identity(path: &std::path::Path) -> FileIdentity {
    use std::os::unix::fs::MetadataExt;
    let of = |meta: std::fs::Metadata| (meta.ino(), meta.len(), meta.ctime(), meta.ctime_nsec());
    [
        std::fs::symlink_metadata(path).ok().map(of),
        std::fs::metadata(path).ok().map(of),
    ]
}

/// What a synchronisation compares with the previous one.
#[derive(Clone)]
pub(crate) struct Guard {
    head: Head,
    index: Arc<gix::index::State>,
    index_digest: u128,
    files: Vec<(PathBuf, FileIdentity)>,
}

impl Guard {
    pub(crate) fn read(open: &OpenRepo) -> Result<Self, WorkspaceError> {
        let head = repo::read_head(open)?;
        let index = index_cache::load(open)?;
        let index_digest = digest(&index);
        let mut files = rule_files(open);
        for file in outside_files(open) {
            if !files.contains(&file) {
                files.push(file);
            }
        }
        let files = files
            .into_iter()
            .map(|path| {
                let id = identity(&path);
                (path, id)
            })
            .collect();
        Ok(Self {
            head,
            index,
            index_digest,
            files,
        })
    }

    /// Reads the guard again; `Err` names what changed since `self`.
    pub(crate) fn compare(
        &self,
        open: &OpenRepo,
    ) -> Result<Result<Self, FallbackReason>, WorkspaceError> {
        let head = repo::read_head(open)?;
        if head != self.head {
            return Ok(Err(FallbackReason::HeadOrIndex {
                what: "HEAD moved".to_owned(),
            }));
        }
        let index = index_cache::load(open)?;
        // The cache hands out the same decode while the file is unchanged.
        let index_digest = if Arc::ptr_eq(&index, &self.index) {
            self.index_digest
        } else {
            digest(&index)
        };
        if index_digest != self.index_digest {
            return Ok(Err(FallbackReason::HeadOrIndex {
                what: "the index's entries changed".to_owned(),
            }));
        }
        for (path, id) in &self.files {
            if identity(path) != *id {
                let path = match path.strip_prefix(open.repo.common_dir()) {
                    Ok(name) => format!(".git/{}", name.display()),
                    Err(_) => path.display().to_string(),
                };
                return Ok(Err(FallbackReason::Rules { path }));
            }
        }
        Ok(Ok(Self {
            head,
            index,
            index_digest,
            files: self.files.clone(),
        }))
    }

    /// The index this guard read.
    pub(crate) fn index(&self) -> &gix::index::State {
        &self.index
    }
}

/// A digest of what the status reads from the index besides stat data: each entry's path,
/// stage, object id, mode and the flags that change how it is compared.
fn digest(index: &gix::index::State) -> u128 {
    let kept =
        Flags::STAGE_MASK | Flags::ASSUME_VALID | Flags::INTENT_TO_ADD | Flags::SKIP_WORKTREE;
    let mut hasher = Xxh3::new();
    hasher.update(&[u8::from(index.is_sparse())]);
    for entry in index.entries() {
        hasher.update(entry.path(index));
        hasher.update(b"\0");
        hasher.update(entry.id.as_bytes());
        hasher.update(&entry.mode.bits().to_le_bytes());
        hasher.update(&(entry.flags & kept).bits().to_le_bytes());
    }
    hasher.digest128()
}

//! Owns reading files as the index records them: the staged blob of a path (what `git commit`
//! would record), under a size cap, for `check --staged`.

use crate::error::WorkspaceError;
use crate::repo::open;
use crate::revision::{RevisionBlob, read_blob};
use crate::snapshot::index_cache;
use gix::bstr::ByteSlice;
use gix::index::entry::{Mode, Stage};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The index of a repository, opened once to read several staged files.
pub struct StagedBlobs {
    repo: gix::Repository,
    workdir: PathBuf,
    index: Arc<gix::index::State>,
}

impl StagedBlobs {
    /// The index of the repository around `dir` (an empty one when there is no index file).
    pub fn open(dir: &Path) -> Result<Self, WorkspaceError> {
        let open = open(dir)?;
        let index = index_cache::load(&open)?;
        Ok(Self {
            repo: open.repo,
            workdir: open.workdir,
            index,
        })
    }

    /// The worktree root of the repository.
    pub fn worktree_root(&self) -> &Path {
        &self.workdir
    }

    /// The staged (stage 0) blob at `path` (repository-relative, `/`-separated), read only when
    /// it is at most `limit` bytes. A path with no stage-0 entry (not in the index, or only in
    /// conflict stages) is [`RevisionBlob::Absent`]; a symlink, submodule or sparse directory is
    /// [`RevisionBlob::NotAFile`].
    pub fn read(&self, path: &str, limit: u64) -> RevisionBlob {
        let Some(entry) = self
            .index
            .entry_by_path_and_stage(path.as_bytes().as_bstr(), Stage::Unconflicted)
        else {
            return RevisionBlob::Absent;
        };
        if entry.mode != Mode::FILE && entry.mode != Mode::FILE_EXECUTABLE {
            return RevisionBlob::NotAFile;
        }
        read_blob(&self.repo, entry.id, limit)
    }
}

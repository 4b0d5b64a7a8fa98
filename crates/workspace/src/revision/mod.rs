//! Owns reading files as a revision recorded them: the tree of `HEAD` (or any revision `git
//! rev-parse` understands), one file's blob from it under a size cap, and the files it lists.
//! Delivery reads a file's `HEAD` blob to learn which findings existed before a wave; `check
//! --new-since REV` reads the blobs of `REV`; both judge a blob the same way through
//! [`RevisionBlob::contents`].

pub(crate) mod staged;

use crate::error::WorkspaceError;
use crate::repo::open;
use gix::ObjectId;
use gix::objs::tree::EntryKind;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A file as a revision recorded it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RevisionBlob {
    /// The revision has no file at this path (or there is no revision: an unborn branch).
    Absent,
    /// The whole blob, no larger than the cap.
    Bytes(Vec<u8>),
    /// The blob is larger than the cap; it was not read.
    TooLarge {
        /// The blob's size in bytes.
        bytes: u64,
        /// The cap it exceeds.
        limit: u64,
    },
    /// The path names a directory, a symlink or a submodule, not a file.
    NotAFile,
    /// Reading the object failed.
    Unreadable(String),
}

/// Why a revision's blob cannot be compared with a file's current findings.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unjudged {
    /// The blob is larger than the cap.
    #[error("{bytes} bytes is over the {limit}-byte limit")]
    TooLarge {
        /// The blob's size in bytes.
        bytes: u64,
        /// The cap it exceeds.
        limit: u64,
    },
    /// The path names a directory, a symlink or a submodule.
    #[error("not a file there")]
    NotAFile,
    /// Reading the object failed.
    #[error("{0}")]
    Unreadable(String),
}

impl RevisionBlob {
    /// The bytes to compare a file's current findings with: `Ok(None)` when the revision has no
    /// file there (so every finding is new), `Err` with why the blob cannot be judged (its
    /// message follows the file's path). A file that cannot be judged counts as all new too, but
    /// a caller may say why.
    pub fn contents(&self) -> Result<Option<&[u8]>, Unjudged> {
        match self {
            Self::Absent => Ok(None),
            Self::Bytes(bytes) => Ok(Some(bytes)),
            Self::TooLarge { bytes, limit } => Err(Unjudged::TooLarge {
                bytes: *bytes,
                limit: *limit,
            }),
            Self::NotAFile => Err(Unjudged::NotAFile),
            Self::Unreadable(error) => Err(Unjudged::Unreadable(error.clone())),
        }
    }
}

/// One revision's tree, opened once to read several files.
pub struct RevisionTree {
    repo: gix::Repository,
    workdir: PathBuf,
    /// `None` for an unborn `HEAD`: every file is absent.
    tree: Option<ObjectId>,
}

impl RevisionTree {
    /// The tree of `HEAD` in the repository around `dir`; empty on an unborn branch.
    pub fn head(dir: &Path) -> Result<Self, WorkspaceError> {
        let open = open(dir)?;
        let fail = |error: gix::Error| {
            WorkspaceError::git(
                &open.workdir,
                "reading the HEAD tree",
                "check that `git cat-file -p HEAD^{tree}` works there",
            )(error)
        };
        let tree = match open.repo.head_commit() {
            Ok(commit) => Some(commit.tree_id().map_err(fail)?.detach()),
            Err(_) if open.repo.head().is_ok_and(|h| h.is_unborn()) => None,
            Err(error) => return Err(fail(error)),
        };
        Ok(Self {
            repo: open.repo,
            workdir: open.workdir,
            tree,
        })
    }

    /// The tree of `rev` (a branch, tag, commit id or any expression `git rev-parse` accepts) in
    /// the repository around `dir`.
    pub fn at(dir: &Path, rev: &str) -> Result<Self, WorkspaceError> {
        let open = open(dir)?;
        let unknown = |message: String| WorkspaceError::UnknownRevision {
            repo: open.workdir.clone(),
            rev: rev.to_owned(),
            message,
        };
        let id = open
            .repo
            .rev_parse_single(rev)
            .map_err(|e| unknown(e.to_string()))?;
        let tree = id
            .object()
            .map_err(|e| unknown(e.to_string()))?
            .peel_to_tree()
            .map_err(|e| unknown(e.to_string()))?
            .id;
        let tree = Some(tree);
        Ok(Self {
            repo: open.repo,
            workdir: open.workdir,
            tree,
        })
    }

    /// The worktree root of the repository.
    pub fn worktree_root(&self) -> &Path {
        &self.workdir
    }

    /// The bytes of each of `paths` that the revision holds and that can be read within `limit`
    /// (`None` for the others): what a file held there, for a caller that only needs the text.
    pub fn texts(&self, paths: &[String], limit: u64) -> Vec<Option<Vec<u8>>> {
        paths
            .iter()
            .map(|path| {
                self.read(path, limit)
                    .contents()
                    .ok()
                    .flatten()
                    .map(<[u8]>::to_vec)
            })
            .collect()
    }

    /// The blob at `path` (repository-relative, `/`-separated), read only when it is at most
    /// `limit` bytes.
    pub fn read(&self, path: &str, limit: u64) -> RevisionBlob {
        let Some(tree) = self.tree else {
            return RevisionBlob::Absent;
        };
        let entry = self
            .repo
            .find_tree(tree)
            .map_err(|e| e.to_string())
            .and_then(|tree| {
                tree.lookup_entry(path.split('/').filter(|part| !part.is_empty()))
                    .map_err(|e| e.to_string())
            });
        let entry = match entry {
            Ok(Some(entry)) => entry,
            Ok(None) => return RevisionBlob::Absent,
            Err(error) => return RevisionBlob::Unreadable(error),
        };
        if !matches!(
            entry.mode().kind(),
            EntryKind::Blob | EntryKind::BlobExecutable
        ) {
            return RevisionBlob::NotAFile;
        }
        read_blob(&self.repo, entry.object_id(), limit)
    }

    /// Every file the revision lists (regular and executable blobs), with its blob id.
    pub fn files(&self) -> Result<BTreeMap<String, ObjectId>, WorkspaceError> {
        let Some(tree) = self.tree else {
            return Ok(BTreeMap::new());
        };
        let fail = |error: gix::Error| {
            WorkspaceError::git(
                &self.workdir,
                "listing a revision's files",
                "check that `git ls-tree -r` works there",
            )(error)
        };
        let tree = self.repo.find_tree(tree).map_err(fail)?;
        let mut recorder = gix::traverse::tree::Recorder::default();
        tree.traverse().breadthfirst(&mut recorder).map_err(fail)?;
        Ok(recorder
            .records
            .into_iter()
            .filter(|entry| {
                matches!(
                    entry.mode.kind(),
                    EntryKind::Blob | EntryKind::BlobExecutable
                )
            })
            .map(|entry| (entry.filepath.to_string(), entry.oid))
            .collect())
    }
}

/// The blob `id` of `repo`, read only when it is at most `limit` bytes.
pub(crate) fn read_blob(repo: &gix::Repository, id: ObjectId, limit: u64) -> RevisionBlob {
    match repo.find_header(id) {
        Ok(header) if header.size() > limit => {
            return RevisionBlob::TooLarge {
                bytes: header.size(),
                limit,
            };
        }
        Ok(_) => {}
        Err(error) => return RevisionBlob::Unreadable(error.to_string()),
    }
    match repo.find_object(id) {
        Ok(object) => RevisionBlob::Bytes(object.detach().data),
        Err(error) => RevisionBlob::Unreadable(error.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::{RevisionBlob, Unjudged};

    #[test]
    fn contents_are_the_bytes_nothing_when_absent_and_otherwise_why_not() {
        assert_eq!(RevisionBlob::Absent.contents(), Ok(None));
        let bytes = RevisionBlob::Bytes(b"export {};\n".to_vec());
        assert_eq!(bytes.contents(), Ok(Some(&b"export {};\n"[..])));
        let empty = RevisionBlob::Bytes(Vec::new());
        assert_eq!(empty.contents(), Ok(Some(&[][..])));
        let large = RevisionBlob::TooLarge {
            bytes: 4_294_967_296,
            limit: 1_048_576,
        };
        let why = large.contents().expect_err("too large to judge");
        assert_eq!(
            why.to_string(),
            "4294967296 bytes is over the 1048576-byte limit"
        );
        assert_eq!(RevisionBlob::NotAFile.contents(), Err(Unjudged::NotAFile));
        let unreadable = RevisionBlob::Unreadable("object 0123abcd not found".to_owned());
        let why = unreadable.contents().expect_err("unreadable");
        assert_eq!(why.to_string(), "object 0123abcd not found");
    }
}

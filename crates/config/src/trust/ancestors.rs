//! The walk from `/` down to the directory above a config root (or a file of it): every
//! directory on the way checked as an ancestor, and a symbolic link among them resolved, as the
//! module documentation of `trust` describes.

use super::checks::{Facts, check_ancestor, check_ancestor_owner, facts_of_fd};
use super::error::{Refusal, TrustError, io_error, os_error, refused_dir, stopped_walk};
use pi_native_hooks_base::safe_open::follow::{AboveRoot, Follow};
use pi_native_hooks_base::safe_open::lexical;
use pi_native_hooks_base::safe_open::walk::{Access, NotOpened, open_dir, open_dir_at};
use std::ffi::{OsStr, OsString};
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};

/// One directory reached by the walk from `/`: its resolved path (for messages) and descriptor.
pub(super) struct Step {
    pub(super) path: PathBuf,
    pub(super) fd: OwnedFd,
}

/// `/`, checked as an ancestor.
fn open_slash() -> Result<Step, Refusal> {
    let path = PathBuf::from("/");
    let fd = open_dir(&path, Access::Search).map_err(|errno| os_error(&path, errno))?;
    check_ancestor(&path, &facts_of_fd(&path, fd.as_fd())?)?;
    Ok(Step { path, fd })
}

/// Walks from `/` through every directory of the absolute path `dir`, checking each as an
/// ancestor and resolving symbolic links as described in the module documentation. Returns the
/// descriptor of `dir` itself (checked as an ancestor too).
pub(super) fn walk_ancestors(dir: &Path) -> Result<Step, Refusal> {
    let slash = open_slash()?;
    // Every directory stepped into is a real one (links are resolved), so the lexical parent is
    // the physical one, and `/..` is `/`.
    let mut walk = Follow::new(
        slash.fd.as_fd(),
        &slash.path,
        dir.as_os_str(),
        AboveRoot::Stay,
    );
    while let Some(next) = walk.next_name() {
        let name = next.map_err(|stopped| stopped_walk(walk.path(), stopped))?;
        let path = walk.path().join(&name);
        match open_dir_at(walk.dir(), &name, Access::Search) {
            Ok(fd) => {
                check_ancestor(&path, &facts_of_fd(&path, fd.as_fd())?)?;
                walk.enter(&name, fd);
            }
            Err(NotOpened::Symlink(lstat)) => {
                check_ancestor_owner(&path, &Facts::from(*lstat))?;
                walk.follow(&name, |target| {
                    target.strip_prefix("/").ok().map(Path::to_path_buf)
                })
                .map_err(|stopped| stopped_walk(&path, stopped))?;
            }
            Err(why) => return Err(refused_dir(&path, &why)),
        }
    }
    Ok(match walk.into_dir() {
        Some((path, fd)) => Step { path, fd },
        None => slash,
    })
}

/// `path` made absolute and lexically normalized, split into its parent and final name
/// (`None` for `/`).
pub(super) fn split_path(path: &Path) -> Result<(PathBuf, Option<OsString>), TrustError> {
    let absolute = std::path::absolute(path).map_err(|error| io_error(path, &error))?;
    let mut normal = lexical(&absolute);
    let name = normal.file_name().map(OsStr::to_os_string);
    if name.is_some() {
        normal.pop();
    }
    Ok((normal, name))
}

//! The atomic write: a file is replaced by writing a new, private temporary file beside it (in
//! the same directory, so on the same file system), giving it the mode (and, when allowed, the
//! owner) it should have, flushing it to disk and renaming it over the file. A reader sees the
//! old file or the new one, never a part of either. Everything is relative to the directory's
//! descriptor, and the temporary file is created exclusively and never through a symlink.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Write};
use std::os::fd::BorrowedFd;
use std::os::unix::ffi::OsStrExt;
use std::sync::atomic::{AtomicU64, Ordering};

use nix::errno::Errno;
use nix::fcntl::OFlag;
use nix::sys::stat::Mode;
use nix::unistd::{Gid, Uid, UnlinkatFlags};

/// What the new file is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Replacement {
    /// Set with `fchmod` after the write, so the umask does not narrow it.
    pub mode: Mode,
    /// Its owner and group, given only where the process may (a privileged one); anyone else
    /// keeps their own file.
    pub owner: Option<(Uid, Gid)>,
}

/// Replaces `name` in `dir` with `bytes`, as described in the module documentation.
///
/// `confirm` runs last, once the new file is written and just before the rename: an error there
/// (the file changed, say) leaves the old file as it was. I/O errors are turned into the
/// caller's error by `io`. On any error the temporary file is removed.
pub fn replace_at<E>(
    dir: BorrowedFd<'_>,
    name: &OsStr,
    bytes: &[u8],
    replacement: Replacement,
    io: impl Fn(io::Error) -> E,
    confirm: impl FnOnce() -> Result<(), E>,
) -> Result<(), E> {
    let (temp_name, mut temp) = create_temp(dir, name).map_err(&io)?;
    let written = write_temp(&mut temp, bytes, replacement)
        .map_err(&io)
        .and_then(|()| confirm())
        .and_then(|()| {
            nix::fcntl::renameat(dir, temp_name.as_os_str(), dir, name)
                .map_err(|errno| io(errno.into()))
        });
    if written.is_err() {
        let _ = nix::unistd::unlinkat(dir, temp_name.as_os_str(), UnlinkatFlags::NoRemoveDir);
    }
    written
}

/// A new, empty, private file beside `name` in `dir`, named so it cannot collide.
fn create_temp(dir: BorrowedFd<'_>, name: &OsStr) -> io::Result<(OsString, File)> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut last = Errno::EEXIST;
    for _ in 0..16 {
        let mut temp = OsString::from(".");
        // Keep the temporary name within NAME_MAX whatever the file's name is.
        let stem = &name.as_bytes()[..name.len().min(200)];
        temp.push(OsStr::from_bytes(stem));
        temp.push(format!(
            ".pnh-tmp-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let flags =
            OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_EXCL | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
        match nix::fcntl::openat(dir, temp.as_os_str(), flags, Mode::S_IRUSR | Mode::S_IWUSR) {
            Ok(fd) => return Ok((temp, File::from(fd))),
            Err(Errno::EEXIST) => last = Errno::EEXIST,
            Err(errno) => return Err(errno.into()),
        }
    }
    Err(last.into())
}

/// Writes `bytes` to the temporary file, gives it its owner (when allowed) and mode, and flushes
/// it to disk.
fn write_temp(temp: &mut File, bytes: &[u8], replacement: Replacement) -> io::Result<()> {
    temp.write_all(bytes)?;
    if let Some((uid, gid)) = replacement.owner {
        // Only a privileged process may give a file away.
        let _ = nix::unistd::fchown(&*temp, Some(uid), Some(gid));
    }
    nix::sys::stat::fchmod(&*temp, replacement.mode)?;
    temp.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::safe_open::walk::{Access, open_dir};
    use std::os::fd::AsFd;
    use std::os::unix::fs::PermissionsExt;

    fn entries(dir: &std::path::Path) -> io::Result<Vec<OsString>> {
        let mut names = std::fs::read_dir(dir)?
            .map(|entry| entry.map(|entry| entry.file_name()))
            .collect::<io::Result<Vec<_>>>()?;
        names.sort();
        Ok(names)
    }

    #[test]
    fn a_file_is_replaced_with_its_mode_and_a_refusal_leaves_it_alone()
    -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        std::fs::write(dir.path().join("a"), "old")?;
        let fd = open_dir(dir.path(), Access::Read)?;
        let private = Replacement {
            mode: Mode::from_bits_truncate(0o640),
            owner: None,
        };
        let refused = replace_at(
            fd.as_fd(),
            OsStr::new("a"),
            b"new",
            private,
            |error| error.to_string(),
            || Err("changed".to_owned()),
        );
        assert_eq!(refused, Err("changed".to_owned()));
        assert_eq!(std::fs::read_to_string(dir.path().join("a"))?, "old");
        assert_eq!(
            entries(dir.path())?,
            [OsString::from("a")],
            "no temporary file left"
        );

        replace_at(
            fd.as_fd(),
            OsStr::new("a"),
            b"new",
            private,
            |error| error.to_string(),
            || Ok(()),
        )?;
        assert_eq!(std::fs::read_to_string(dir.path().join("a"))?, "new");
        let mode = std::fs::metadata(dir.path().join("a"))?
            .permissions()
            .mode();
        assert_eq!(mode & 0o7777, 0o640);
        assert_eq!(entries(dir.path())?, [OsString::from("a")]);
        Ok(())
    }
}

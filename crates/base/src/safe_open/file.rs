//! Opening one regular file: by path without following a final symlink ([`open_no_follow`]) or
//! relative to a directory descriptor ([`open_at`]), `lstat` first and `fstat` after, and what
//! was found instead ([`Opened`], [`FileKind`]); a bounded read ([`read_at_most`]) and lexical
//! path normalisation ([`lexical`]) for the walks beside it.

use std::fs::File;
use std::io::{self, Read};
use std::os::fd::BorrowedFd;
use std::path::{Component, Path, PathBuf};

use nix::errno::Errno;
use nix::fcntl::{AT_FDCWD, AtFlags, OFlag};
use nix::sys::stat::{FileStat, Mode, SFlag};
use serde::Serialize;

/// What kind of file system object a path names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FileKind {
    /// `S_IFREG`, shown as "regular file".
    Regular,
    /// `S_IFDIR`, shown as "directory".
    Directory,
    /// `S_IFLNK`, shown as "symlink".
    Symlink,
    /// `S_IFIFO`, shown as "FIFO".
    Fifo,
    /// A Unix domain socket.
    Socket,
    /// A character device such as `/dev/null` or a terminal.
    CharDevice,
    /// `S_IFBLK`, shown as "block device".
    BlockDevice,
    /// A kind this platform reports that none of the above covers.
    Unknown,
}

impl FileKind {
    /// The kind of the object described by `stat`.
    pub fn of(stat: &FileStat) -> Self {
        let format = stat.st_mode & SFlag::S_IFMT.bits();
        [
            (SFlag::S_IFREG, FileKind::Regular),
            (SFlag::S_IFDIR, FileKind::Directory),
            (SFlag::S_IFLNK, FileKind::Symlink),
            (SFlag::S_IFIFO, FileKind::Fifo),
            (SFlag::S_IFSOCK, FileKind::Socket),
            (SFlag::S_IFCHR, FileKind::CharDevice),
            (SFlag::S_IFBLK, FileKind::BlockDevice),
        ]
        .into_iter()
        .find(|(flag, _)| flag.bits() == format)
        .map_or(FileKind::Unknown, |(_, kind)| kind)
    }
}

impl std::fmt::Display for FileKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FileKind::Regular => "regular file",
            FileKind::Directory => "directory",
            FileKind::Symlink => "symlink",
            FileKind::Fifo => "FIFO",
            FileKind::Socket => "socket",
            FileKind::CharDevice => "character device",
            FileKind::BlockDevice => "block device",
            FileKind::Unknown => "special file",
        })
    }
}

/// A path looked at by [`open_no_follow`] or [`open_at`].
#[derive(Debug)]
pub enum Opened {
    /// A regular file, open for reading; `stat` is the descriptor's own `fstat`.
    Regular {
        /// Opened `O_RDONLY`.
        file: File,
        /// `fstat` of the open descriptor.
        stat: FileStat,
    },
    /// Anything else, not opened; `stat` is its `lstat` (a symlink describes the link itself).
    Other {
        /// What the path names.
        kind: FileKind,
        /// `lstat` of the path (or `fstat`, if it changed kind while being opened).
        stat: FileStat,
    },
}

/// Opens `path` if it is a regular file, never following a final symlink and never blocking.
///
/// The parent directories are resolved by the kernel as usual. A path that does not exist is an
/// error of kind [`io::ErrorKind::NotFound`] (or `NotADirectory` when a parent is not a
/// directory).
pub fn open_no_follow(path: &Path) -> io::Result<Opened> {
    open_at(AT_FDCWD, path)
}

/// [`open_no_follow`] for `name` relative to the directory `dir`.
pub fn open_at(dir: BorrowedFd<'_>, name: &Path) -> io::Result<Opened> {
    let lstat = nix::sys::stat::fstatat(dir, name, AtFlags::AT_SYMLINK_NOFOLLOW)?;
    open_checked(dir, name, lstat)
}

/// Opens `name` in `dir` whose `lstat` is `lstat`, if that says it is a regular file.
fn open_checked(dir: BorrowedFd<'_>, name: &Path, lstat: FileStat) -> io::Result<Opened> {
    let kind = FileKind::of(&lstat);
    if kind != FileKind::Regular {
        return Ok(Opened::Other { kind, stat: lstat });
    }
    let flags = OFlag::O_RDONLY
        | OFlag::O_NOFOLLOW
        | OFlag::O_NONBLOCK
        | OFlag::O_CLOEXEC
        | OFlag::O_NOCTTY;
    let fd = match nix::fcntl::openat(dir, name, flags, Mode::empty()) {
        Ok(fd) => fd,
        // Replaced by a symlink since the `lstat`.
        Err(Errno::ELOOP) => {
            let stat = nix::sys::stat::fstatat(dir, name, AtFlags::AT_SYMLINK_NOFOLLOW)?;
            return Ok(Opened::Other {
                kind: FileKind::of(&stat),
                stat,
            });
        }
        Err(errno) => return Err(errno.into()),
    };
    let stat = nix::sys::stat::fstat(&fd)?;
    let kind = FileKind::of(&stat);
    if kind != FileKind::Regular {
        return Ok(Opened::Other { kind, stat });
    }
    Ok(Opened::Regular {
        file: File::from(fd),
        stat,
    })
}

/// Reads `file` to its end unless it holds more than `limit` bytes: `None` then, once one byte
/// past the limit is read (never the rest, however large the file grew). `size_hint` is the size
/// expected, reserved up front.
pub fn read_at_most(file: impl Read, limit: u64, size_hint: usize) -> io::Result<Option<Vec<u8>>> {
    let mut bytes = Vec::with_capacity(size_hint);
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= limit).then_some(bytes))
}

/// `path` without `.` components and with `..` applied to the preceding component.
pub fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn special_files_are_never_opened() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let fifo = dir.path().join("pipe");
        nix::unistd::mkfifo(&fifo, Mode::S_IRUSR | Mode::S_IWUSR)?;
        symlink(&fifo, dir.path().join("link"))?;
        assert!(matches!(
            open_no_follow(&fifo)?,
            Opened::Other {
                kind: FileKind::Fifo,
                ..
            }
        ));
        assert!(matches!(
            open_no_follow(&dir.path().join("link"))?,
            Opened::Other {
                kind: FileKind::Symlink,
                ..
            }
        ));
        assert!(matches!(
            open_no_follow(Path::new("/dev/null"))?,
            Opened::Other {
                kind: FileKind::CharDevice,
                ..
            }
        ));
        assert!(matches!(
            open_no_follow(dir.path())?,
            Opened::Other {
                kind: FileKind::Directory,
                ..
            }
        ));
        std::fs::write(dir.path().join("file"), "x")?;
        assert!(matches!(
            open_no_follow(&dir.path().join("file"))?,
            Opened::Regular { .. }
        ));
        let missing = open_no_follow(&dir.path().join("missing"));
        assert_eq!(
            missing.err().map(|e| e.kind()),
            Some(io::ErrorKind::NotFound)
        );
        Ok(())
    }
}

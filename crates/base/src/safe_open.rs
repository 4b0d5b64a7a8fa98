//! The one way the engine opens a repository's files for reading: never through a final symlink,
//! never blocking, and only once the descriptor is known to be a regular file.
//!
//! [`open_no_follow`] looks at a path with `lstat` first and opens it only if it is a regular
//! file, with `O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY`, then checks the opened descriptor
//! with `fstat`. A FIFO, socket or device is therefore never opened (opening a FIFO would wake a
//! writer waiting on it, opening a terminal could make it the controlling one), and a file swapped
//! for one of them between the `lstat` and the `open` is caught by the flags and the `fstat`: the
//! open neither blocks nor follows a link, and the descriptor is dropped unread.
//!
//! [`Beneath`] resolves a repository-relative path one component at a time from a descriptor of
//! the repository root, following symlinks itself so that a path (or a link along it) that leaves
//! the root is refused instead of opened. Analysis uses it; content hashing, which never follows
//! a final symlink, uses [`open_no_follow`].

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

use nix::errno::Errno;
use nix::fcntl::{AT_FDCWD, AtFlags, OFlag};
use nix::sys::stat::{FileStat, Mode, SFlag};
use serde::Serialize;

/// At most this many symlinks are followed while resolving one path (Linux's own limit).
const MAX_SYMLINK_HOPS: usize = 40;

/// What kind of file system object a path names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FileKind {
    /// A regular file.
    Regular,
    /// A directory.
    Directory,
    /// A symbolic link.
    Symlink,
    /// A named pipe.
    Fifo,
    /// A Unix domain socket.
    Socket,
    /// A character device such as `/dev/null` or a terminal.
    CharDevice,
    /// A block device.
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
        /// The open file.
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

/// Where a repository-relative path led, resolved by [`Beneath::open`].
#[derive(Debug)]
pub enum Resolved {
    /// A regular file inside the root, open for reading.
    Regular {
        /// The open file.
        file: File,
        /// `fstat` of the open descriptor.
        stat: FileStat,
        /// A symlink was followed on the way.
        via_symlink: bool,
    },
    /// Something inside the root that is not a regular file (never opened).
    NotRegular {
        /// What the path names once every symlink is followed.
        kind: FileKind,
        /// A symlink was followed on the way.
        via_symlink: bool,
    },
    /// The path, or a symlink along it, leads outside the root.
    Outside {
        /// `true` when a symlink led outside, `false` when the path itself did (`..`).
        via_symlink: bool,
    },
    /// A symlink along the path points to nothing.
    Dangling,
    /// Nothing is at the path.
    Absent,
}

/// Resolves paths below one directory (a repository's root) without ever leaving it.
#[derive(Debug)]
pub struct Beneath {
    root: OwnedFd,
    /// The root's path as given.
    path: PathBuf,
    /// The root as given (absolute, lexically normal) and canonicalized, for absolute link
    /// targets; worked out the first time one is met.
    prefixes: OnceLock<Vec<PathBuf>>,
}

impl Beneath {
    /// Opens the directory `root` (following symlinks: the root itself is trusted).
    pub fn new(root: &Path) -> io::Result<Self> {
        let fd = nix::fcntl::open(
            root,
            OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC | OFlag::O_NONBLOCK,
            Mode::empty(),
        )?;
        Ok(Self {
            root: fd,
            path: root.to_owned(),
            prefixes: OnceLock::new(),
        })
    }

    /// Resolves `relative` (`/`-separated, relative to the root) one component at a time,
    /// following symlinks as long as they stay inside the root, and opens it if it is a regular
    /// file. An absolute link target counts as inside when it starts with the root's path, as
    /// given or canonical; a target that leaves the root, even to come back, is outside.
    ///
    /// Errors are the operating system's: a symlink loop (`ELOOP` after 40 links), permission
    /// denied, I/O errors.
    pub fn open(&self, relative: &str) -> io::Result<Resolved> {
        if Path::new(relative).is_absolute() {
            return Ok(Resolved::Outside { via_symlink: false });
        }
        let mut pending = components(OsStr::new(relative));
        let mut dirs: Vec<OwnedFd> = Vec::new();
        let mut hops = 0;
        let mut via_symlink = false;
        while let Some(name) = pending.pop_front() {
            if name == ".." {
                if dirs.pop().is_none() {
                    return Ok(Resolved::Outside { via_symlink });
                }
                continue;
            }
            let dir = dirs.last().map_or(self.root.as_fd(), AsFd::as_fd);
            let name = Path::new(&name);
            let missing = if via_symlink {
                Resolved::Dangling
            } else {
                Resolved::Absent
            };
            let lstat = match nix::sys::stat::fstatat(dir, name, AtFlags::AT_SYMLINK_NOFOLLOW) {
                Ok(lstat) => lstat,
                Err(Errno::ENOENT | Errno::ENOTDIR) => return Ok(missing),
                Err(errno) => return Err(errno.into()),
            };
            let kind = FileKind::of(&lstat);
            if kind == FileKind::Symlink {
                hops += 1;
                if hops > MAX_SYMLINK_HOPS {
                    return Err(Errno::ELOOP.into());
                }
                via_symlink = true;
                let target = nix::fcntl::readlinkat(dir, name)?;
                let mut next = if Path::new(&target).is_absolute() {
                    let Some(inside) = self.strip_root(Path::new(&target)) else {
                        return Ok(Resolved::Outside { via_symlink });
                    };
                    dirs.clear();
                    components(inside.as_os_str())
                } else {
                    components(&target)
                };
                next.extend(pending.drain(..));
                pending = next;
                continue;
            }
            if pending.is_empty() {
                return Ok(match open_checked(dir, name, lstat)? {
                    Opened::Regular { file, stat } => Resolved::Regular {
                        file,
                        stat,
                        via_symlink,
                    },
                    Opened::Other { kind, .. } => Resolved::NotRegular { kind, via_symlink },
                });
            }
            if kind != FileKind::Directory {
                return Ok(missing);
            }
            let opened = nix::fcntl::openat(
                dir,
                name,
                OFlag::O_RDONLY
                    | OFlag::O_DIRECTORY
                    | OFlag::O_NOFOLLOW
                    | OFlag::O_CLOEXEC
                    | OFlag::O_NONBLOCK,
                Mode::empty(),
            );
            match opened {
                Ok(fd) => dirs.push(fd),
                Err(Errno::ENOENT | Errno::ENOTDIR) => return Ok(missing),
                Err(errno) => return Err(errno.into()),
            }
        }
        // Only `.` and `..` components: the root or a directory in it.
        Ok(Resolved::NotRegular {
            kind: FileKind::Directory,
            via_symlink,
        })
    }

    /// `target` relative to the root, if it starts with one of the root's paths.
    fn strip_root<'a>(&self, target: &'a Path) -> Option<&'a Path> {
        let prefixes = self.prefixes.get_or_init(|| {
            let mut prefixes: Vec<PathBuf> = std::path::absolute(&self.path)
                .map(|path| lexical(&path))
                .into_iter()
                .collect();
            if let Ok(canonical) = self.path.canonicalize()
                && !prefixes.contains(&canonical)
            {
                prefixes.push(canonical);
            }
            prefixes
        });
        prefixes
            .iter()
            .find_map(|prefix| target.strip_prefix(prefix).ok())
    }
}

/// The components of a `/`-separated path, without empty and `.` components.
fn components(path: &OsStr) -> VecDeque<OsString> {
    path.as_bytes()
        .split(|b| *b == b'/')
        .filter(|part| !matches!(*part, b"" | b"."))
        .map(|part| OsStr::from_bytes(part).to_owned())
        .collect()
}

/// `path` without `.` components and with `..` applied to the preceding component.
fn lexical(path: &Path) -> PathBuf {
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
    use std::io::Read;
    use std::os::unix::fs::symlink;

    fn read(resolved: Resolved) -> Option<String> {
        match resolved {
            Resolved::Regular { mut file, .. } => {
                let mut text = String::new();
                file.read_to_string(&mut text).ok()?;
                Some(text)
            }
            _ => None,
        }
    }

    #[test]
    fn links_inside_the_root_are_followed_and_others_refused()
    -> Result<(), Box<dyn std::error::Error>> {
        let outer = tempfile::tempdir()?;
        let root = outer.path().join("repo");
        std::fs::create_dir_all(root.join("src/deep"))?;
        std::fs::write(root.join("src/a.ts"), "a")?;
        std::fs::write(outer.path().join("secret.ts"), "secret")?;
        symlink("a.ts", root.join("src/rel.ts"))?;
        symlink(root.join("src/a.ts"), root.join("src/abs.ts"))?;
        symlink("../../src", root.join("src/deep/up"))?;
        symlink("../../secret.ts", root.join("src/out.ts"))?;
        symlink(outer.path().join("secret.ts"), root.join("src/abs-out.ts"))?;
        symlink("missing.ts", root.join("src/dangling.ts"))?;
        symlink("loop.ts", root.join("src/loop.ts"))?;
        symlink("..", root.join("parent"))?;
        symlink("/dev/null", root.join("src/null.ts"))?;
        nix::unistd::mkfifo(&root.join("src/pipe.ts"), Mode::S_IRUSR | Mode::S_IWUSR)?;
        symlink("pipe.ts", root.join("src/to-pipe.ts"))?;
        let beneath = Beneath::new(&root)?;

        assert_eq!(read(beneath.open("src/a.ts")?).as_deref(), Some("a"));
        assert_eq!(read(beneath.open("src/rel.ts")?).as_deref(), Some("a"));
        assert_eq!(read(beneath.open("src/abs.ts")?).as_deref(), Some("a"));
        assert_eq!(
            read(beneath.open("src/deep/up/a.ts")?).as_deref(),
            Some("a")
        );
        assert_eq!(
            read(beneath.open("./src/../src/a.ts")?).as_deref(),
            Some("a")
        );
        assert!(matches!(
            beneath.open("src/a.ts")?,
            Resolved::Regular {
                via_symlink: false,
                ..
            }
        ));
        for outside in ["src/out.ts", "src/abs-out.ts", "parent/secret.ts"] {
            assert!(
                matches!(
                    beneath.open(outside)?,
                    Resolved::Outside { via_symlink: true }
                ),
                "{outside}"
            );
        }
        assert!(matches!(
            beneath.open("../secret.ts")?,
            Resolved::Outside { via_symlink: false }
        ));
        assert!(matches!(
            beneath.open("src/dangling.ts")?,
            Resolved::Dangling
        ));
        assert!(matches!(beneath.open("src/none.ts")?, Resolved::Absent));
        assert!(matches!(beneath.open("src/a.ts/x.ts")?, Resolved::Absent));
        assert_eq!(
            beneath
                .open("src/loop.ts")
                .err()
                .and_then(|e| e.raw_os_error()),
            Some(nix::libc::ELOOP)
        );
        assert!(matches!(
            beneath.open("src/pipe.ts")?,
            Resolved::NotRegular {
                kind: FileKind::Fifo,
                via_symlink: false
            }
        ));
        assert!(matches!(
            beneath.open("src/to-pipe.ts")?,
            Resolved::NotRegular {
                kind: FileKind::Fifo,
                via_symlink: true
            }
        ));
        // `/dev/null` is outside the root: refused before its kind matters.
        assert!(matches!(
            beneath.open("src/null.ts")?,
            Resolved::Outside { via_symlink: true }
        ));
        Ok(())
    }

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

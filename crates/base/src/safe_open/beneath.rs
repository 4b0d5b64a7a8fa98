//! The walk that stays beneath a directory: [`Beneath`] resolves a repository-relative path one
//! component at a time from a descriptor of the repository root, following symlinks itself so
//! that a path (or a link along it) that leaves the root is refused instead of opened. It is a
//! [`Follow`] walk whose every link must stay inside the root.

use std::ffi::OsStr;
use std::fs::File;
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use nix::errno::Errno;
use nix::sys::stat::FileStat;

use super::file::{FileKind, Opened, lexical, open_at};
use super::follow::{AboveRoot, Follow, Stopped};
use super::walk::{Access, NotOpened, open_dir, open_dir_at};

/// Where a repository-relative path led, resolved by [`Beneath::open`].
#[derive(Debug)]
pub enum Resolved {
    /// A regular file inside the root, open for reading.
    Regular {
        /// Opened `O_RDONLY`.
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
        Ok(Self {
            root: open_dir(root, Access::Read)?,
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
        let mut walk = Follow::new(
            self.root.as_fd(),
            Path::new(""),
            OsStr::new(relative),
            AboveRoot::Outside,
        );
        while let Some(next) = walk.next_name() {
            let Ok(name) = next else {
                return Ok(Resolved::Outside {
                    via_symlink: walk.via_symlink(),
                });
            };
            let missing = if walk.via_symlink() {
                Resolved::Dangling
            } else {
                Resolved::Absent
            };
            let via_symlink = walk.via_symlink();
            // The last component is opened as a regular file, any other as a directory; a
            // symlink at either is followed.
            if walk.is_last() {
                match open_at(walk.dir(), Path::new(&name)) {
                    Ok(Opened::Regular { file, stat }) => {
                        return Ok(Resolved::Regular {
                            file,
                            stat,
                            via_symlink,
                        });
                    }
                    Ok(Opened::Other {
                        kind: FileKind::Symlink,
                        ..
                    }) => {}
                    Ok(Opened::Other { kind, .. }) => {
                        return Ok(Resolved::NotRegular { kind, via_symlink });
                    }
                    Err(error) if is_missing(&error) => return Ok(missing),
                    Err(error) => return Err(error),
                }
            } else {
                match open_dir_at(walk.dir(), &name, Access::Read) {
                    Ok(fd) => {
                        walk.enter(&name, fd);
                        continue;
                    }
                    Err(NotOpened::Symlink(_)) => {}
                    Err(
                        NotOpened::NotAName
                        | NotOpened::NotDirectory(_)
                        | NotOpened::Os(Errno::ENOENT | Errno::ENOTDIR),
                    ) => return Ok(missing),
                    Err(NotOpened::Os(errno)) => return Err(errno.into()),
                }
            }
            match walk.follow(&name, |target| {
                self.strip_root(target).map(Path::to_path_buf)
            }) {
                Ok(()) => {}
                Err(Stopped::Outside) => {
                    return Ok(Resolved::Outside {
                        via_symlink: walk.via_symlink(),
                    });
                }
                Err(Stopped::TooManyLinks) => return Err(Errno::ELOOP.into()),
                Err(Stopped::Os(errno)) => return Err(errno.into()),
            }
        }
        // Only `.` and `..` components: the root or a directory in it.
        Ok(Resolved::NotRegular {
            kind: FileKind::Directory,
            via_symlink: walk.via_symlink(),
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

/// A path that names nothing, or whose parent is not a directory.
fn is_missing(error: &io::Error) -> bool {
    matches!(
        error.raw_os_error().map(Errno::from_raw),
        Some(Errno::ENOENT | Errno::ENOTDIR)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use nix::sys::stat::Mode;
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
}

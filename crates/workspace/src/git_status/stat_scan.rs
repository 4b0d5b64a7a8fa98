//! Owns the stat pass of a full snapshot: every tracked entry's `lstat` compared with the stat data
//! the index recorded, fanned out over threads, so that gix's index ↔ worktree check only runs on
//! the entries this pass cannot prove unchanged (the *suspects*).
//!
//! An entry is proven unchanged exactly when gix's check would decide so from stat data alone: an
//! unconflicted file or symlink entry without the skip-worktree, assume-valid, fsmonitor-valid,
//! up-to-date or intent-to-add flags, whose worktree path is reached without passing through a
//! symlink, whose file type and executable bit still match, whose stat data match under the
//! repository's `core.trustCTime`/`core.checkStat` settings and which is not racily clean (see
//! gix's `index_as_worktree`; the comparison and racy check are gix's own functions). Everything
//! else — conflicts, gitlinks, flagged entries, unreadable or missing paths, any mismatch, any
//! error — is a suspect and is checked by gix exactly as a full gix status would check it, except
//! that flags which would make gix skip an entry are cleared first (see `full::checked_flags`).
//!
//! The `lstat` calls are made relative to an open directory (`fstatat`), and directories are
//! opened one component at a time without following a symlink (`safe_open`'s [`Descent`]): the
//! kernel resolves one name per file instead of the whole path, and a directory that is a symlink
//! fails to open, so its entries become suspects (gix refuses to step through symlinks as well).

use std::os::fd::{AsFd, BorrowedFd};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use gix::bstr::{BStr, ByteSlice};
use gix::index::entry::{Flags, Mode, Stat, stat};
use nix::fcntl::AtFlags;
use nix::sys::stat::{FileStat, Mode as FileMode, SFlag};

use pi_native_hooks_base::CancelToken;
use pi_native_hooks_base::safe_open::walk::{self, Access, Descent};

/// Entries per unit of work handed to a thread.
const CHUNK: usize = 512;
/// Below this many entries per thread, another thread costs more than it saves.
const MIN_ENTRIES_PER_THREAD: usize = 4096;
/// At most this many threads stat in parallel.
const MAX_THREADS: usize = 8;

/// The repository settings a stat comparison depends on.
#[derive(Clone, Copy)]
pub(crate) struct StatRules {
    /// `core.symlinks`.
    pub(crate) symlinks: bool,
    /// `core.fileMode`.
    pub(crate) executable_bit: bool,
    /// `core.trustCTime`, `core.checkStat` and gix's nanosecond/device settings.
    pub(crate) options: stat::Options,
}

impl StatRules {
    /// The settings of `repo`, as gix's own status reads them.
    pub(crate) fn of(repo: &gix::Repository) -> gix::Result<Self> {
        let fs = repo.filesystem_options()?;
        Ok(StatRules {
            symlinks: fs.symlink,
            executable_bit: fs.executable_bit,
            options: repo.stat_options()?,
        })
    }
}

/// The indices (ascending) of the entries of `index` that the stat pass could not prove unchanged,
/// or `None` if `cancel` was cancelled.
///
/// If the worktree root itself cannot be opened, every entry is a suspect.
pub(crate) fn suspects(
    workdir: &Path,
    index: &gix::index::State,
    rules: StatRules,
    cancel: &CancelToken,
) -> Option<Vec<usize>> {
    let entries = index.entries().len();
    let Ok(root) = walk::open_dir(workdir, Access::Read) else {
        return Some((0..entries).collect());
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(MAX_THREADS)
        .min(entries / MIN_ENTRIES_PER_THREAD)
        .max(1);
    let next_chunk = AtomicUsize::new(0);
    let scan = Scan {
        index,
        rules,
        root: root.as_fd(),
        next_chunk: &next_chunk,
        cancel,
    };
    let mut found = if threads == 1 {
        scan.run()
    } else {
        std::thread::scope(|scope| {
            let helpers: Vec<_> = (1..threads).map(|_| scope.spawn(|| scan.run())).collect();
            let mut found = scan.run();
            for helper in helpers {
                found.extend(helper.join().unwrap_or_else(|_| (0..entries).collect()));
            }
            found
        })
    };
    if cancel.is_cancelled() {
        return None;
    }
    found.sort_unstable();
    found.dedup();
    Some(found)
}

/// The state the scanning threads share.
struct Scan<'a> {
    index: &'a gix::index::State,
    rules: StatRules,
    root: BorrowedFd<'a>,
    next_chunk: &'a AtomicUsize,
    cancel: &'a CancelToken,
}

impl Scan<'_> {
    /// Take chunks until none are left; return the suspects found.
    fn run(&self) -> Vec<usize> {
        let entries = self.index.entries();
        let mut dirs = Descent::new(self.root);
        let mut found = Vec::new();
        loop {
            let start = self.next_chunk.fetch_add(1, Ordering::Relaxed) * CHUNK;
            if start >= entries.len() || self.cancel.is_cancelled() {
                return found;
            }
            let end = (start + CHUNK).min(entries.len());
            // A path's entries (the stages of a conflict) belong to the chunk its first entry is in.
            let mut i = start;
            while i < end && i > 0 && self.path(i) == self.path(i - 1) {
                i += 1;
            }
            while i < end {
                let path = self.path(i);
                let mut group_end = i + 1;
                while group_end < entries.len() && self.path(group_end) == path {
                    group_end += 1;
                }
                let unchanged = group_end == i + 1
                    && entries
                        .get(i)
                        .is_some_and(|entry| self.is_unchanged(entry, path, &mut dirs));
                if !unchanged {
                    found.extend(i..group_end);
                }
                i = group_end;
            }
        }
    }

    fn path(&self, i: usize) -> &BStr {
        self.index
            .entries()
            .get(i)
            .map_or_else(Default::default, |entry| entry.path(self.index))
    }

    /// `true` if gix's index ↔ worktree check would find `entry` unchanged from stat data alone.
    fn is_unchanged(&self, entry: &gix::index::Entry, path: &BStr, dirs: &mut Descent<'_>) -> bool {
        if entry.stage_raw() != 0
            || entry.flags.intersects(
                Flags::UPTODATE
                    | Flags::SKIP_WORKTREE
                    | Flags::ASSUME_VALID
                    | Flags::FSMONITOR_VALID
                    | Flags::INTENT_TO_ADD,
            )
            || !matches!(
                entry.mode,
                Mode::FILE | Mode::FILE_EXECUTABLE | Mode::SYMLINK
            )
        {
            return false;
        }
        let (dir, name) = match path.rfind_byte(b'/') {
            Some(slash) => (&path[..slash], &path[slash + 1..]),
            None => (&path[..0], path),
        };
        if !walk::is_name(name) {
            return false;
        }
        let Ok(dir) = dirs.open(dir) else {
            return false;
        };
        let Ok(st) = nix::sys::stat::fstatat(dir, name.as_bytes(), AtFlags::AT_SYMLINK_NOFOLLOW)
        else {
            return false;
        };
        let kind = st.st_mode & SFlag::S_IFMT.bits();
        let is_file = kind == SFlag::S_IFREG.bits();
        let is_dir = kind == SFlag::S_IFDIR.bits();
        let is_symlink = kind == SFlag::S_IFLNK.bits();
        let is_executable = is_file && st.st_mode & FileMode::S_IXUSR.bits() != 0;
        if is_dir
            || entry
                .mode
                .change_to_match_fs_with_values(
                    is_file,
                    is_dir,
                    is_symlink,
                    is_executable,
                    self.rules.symlinks,
                    self.rules.executable_bit,
                )
                .is_some()
        {
            return false;
        }
        let Some(now) = index_stat(&st) else {
            return false;
        };
        now.matches(&entry.stat, self.rules.options)
            && (!entry.id.is_empty_blob() || entry.stat.size == 0)
            && !now.is_racy(self.index.timestamp(), self.rules.options)
    }
}

/// The stat data gix derives from an `lstat` result (`Stat::from_fs`), or `None` where gix's
/// conversion takes a path this one does not replicate (times before the epoch, out-of-range
/// nanoseconds).
// The casts truncate to the 32-bit fields git's index stores, as gix does.
#[allow(
    clippy::unnecessary_cast,
    clippy::useless_conversion,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]
fn index_stat(st: &FileStat) -> Option<Stat> {
    let time = |secs: i64, nsecs: i64| {
        let secs = u64::try_from(secs).ok()?;
        let nsecs = u32::try_from(nsecs).ok().filter(|n| *n < 1_000_000_000)?;
        // Truncation to 32 bits is what gix and git store.
        Some(stat::Time {
            secs: secs as u32,
            nsecs,
        })
    };
    Some(Stat {
        mtime: time(i64::from(st.st_mtime), i64::from(st.st_mtime_nsec))?,
        ctime: time(i64::from(st.st_ctime), i64::from(st.st_ctime_nsec))?,
        dev: st.st_dev as u64 as u32,
        ino: st.st_ino as u64 as u32,
        uid: st.st_uid as u32,
        gid: st.st_gid as u32,
        size: st.st_size as u64 as u32,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stat data of this pass and of gix (`Stat::from_fs` over its own `lstat`) agree.
    #[test]
    fn stat_data_match_gix_for_files_symlinks_and_directories()
    -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        std::fs::write(dir.path().join("file"), "content\n")?;
        std::os::unix::fs::symlink("file", dir.path().join("link"))?;
        std::fs::create_dir(dir.path().join("sub"))?;
        let root = walk::open_dir(dir.path(), Access::Read)?;
        for name in ["file", "link", "sub"] {
            let ours = nix::sys::stat::fstatat(&root, name, AtFlags::AT_SYMLINK_NOFOLLOW)?;
            let gix_meta = gix::index::fs::Metadata::from_path_no_follow(&dir.path().join(name))?;
            assert_eq!(index_stat(&ours), Some(Stat::from_fs(&gix_meta)?), "{name}");
        }
        Ok(())
    }

    #[test]
    fn pre_epoch_and_malformed_times_are_left_to_gix() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let st = nix::sys::stat::stat(dir.path())?;
        assert!(index_stat(&st).is_some());
        let mut before_epoch = st;
        before_epoch.st_mtime = -1;
        assert_eq!(index_stat(&before_epoch), None);
        let mut bad_nanos = st;
        bad_nanos.st_ctime_nsec = 1_000_000_000;
        assert_eq!(index_stat(&bad_nanos), None);
        Ok(())
    }
}

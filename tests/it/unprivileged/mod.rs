//! Tests that root's powers would defeat: root reads a file whatever its mode and can make any
//! uid own anything, so a mode-000 file or another user's directory proves nothing when the suite
//! runs as root, as CI and development machines do. These tests are `#[ignore]`d in the normal
//! suite; `scripts/test-unprivileged` (run by `scripts/test`) runs them with `--ignored` as an
//! unprivileged user, after laying down as root a fixture of entries owned by others
//! ([`Foreign`]), and fails unless every one of them ran.
//!
//! A test here that cannot do its job (run as root, or without the fixture) fails saying why,
//! unless `PI_NATIVE_HOOKS_ALLOW_SKIP_PERMISSION_TESTS=1` is set: then it says why and passes.

mod owners;
mod unreadable;

use nix::unistd::geteuid;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Set to `1`, a test that cannot run here says why and passes instead of failing.
const ALLOW_SKIP: &str = "PI_NATIVE_HOOKS_ALLOW_SKIP_PERMISSION_TESTS";

/// The directory of entries owned by others that `scripts/test-unprivileged` lays down.
const FOREIGN_FIXTURE: &str = "PI_NATIVE_HOOKS_FOREIGN_FIXTURE";

/// Fails the test with `why`, or (with [`ALLOW_SKIP`] set to `1`) prints it and returns `false`.
#[expect(
    clippy::print_stderr,
    reason = "a test that passes without running must say so where the runner shows it"
)]
fn cannot_run(why: &str) -> bool {
    if std::env::var_os(ALLOW_SKIP).is_some_and(|value| value == "1") {
        eprintln!("not run ({ALLOW_SKIP}=1): {why}");
        false
    } else {
        panic!(
            "{why}; run it with scripts/test-unprivileged, or set {ALLOW_SKIP}=1 to let it pass"
        );
    }
}

/// `true` when the test runs as an unprivileged user, as it must to mean anything.
#[must_use]
fn unprivileged() -> bool {
    !geteuid().is_root()
        || cannot_run(
            "running as root, which reads a file whatever its mode and owns what it likes",
        )
}

fn owner(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .unwrap_or_else(|error| panic!("{FOREIGN_FIXTURE}: {}: {error}", path.display()))
        .uid()
}

/// The fixture `scripts/test-unprivileged` makes as root before dropping privileges:
///
/// ```text
/// <fixture>/                            root 0755
///   root-owned.rhai                     root 0644
///   root-owned-dir/                     root 0755
///   sticky/                             root 1777
///     theirs/                           another uid (neither root nor the test's) 0755
///       pi-native-hooks/                the test's uid 0700, empty
/// ```
struct Foreign {
    dir: PathBuf,
}

impl Foreign {
    /// The fixture, checked to be laid out as documented; `None` when the test cannot run (see
    /// [`cannot_run`]).
    fn get() -> Option<Self> {
        if !unprivileged() {
            return None;
        }
        let Some(dir) = std::env::var_os(FOREIGN_FIXTURE) else {
            cannot_run(&format!(
                "{FOREIGN_FIXTURE} is not set, so there is nothing owned by another user to check"
            ));
            return None;
        };
        let fixture = Self {
            dir: PathBuf::from(dir),
        };
        let me = geteuid().as_raw();
        for path in [fixture.root_file(), fixture.root_dir(), fixture.sticky()] {
            assert_eq!(owner(&path), 0, "{} must be root's", path.display());
        }
        let theirs = owner(&fixture.theirs());
        assert!(
            theirs != 0 && theirs != me,
            "{} must be owned by neither root nor uid {me}, not by uid {theirs}",
            fixture.theirs().display()
        );
        assert_eq!(owner(&fixture.root_below_theirs()), me);
        Some(fixture)
    }

    /// A regular file root owns that anyone may read.
    fn root_file(&self) -> PathBuf {
        self.dir.join("root-owned.rhai")
    }

    /// A directory root owns that anyone may list.
    fn root_dir(&self) -> PathBuf {
        self.dir.join("root-owned-dir")
    }

    /// A root-owned directory that anyone may write to, with the sticky bit (like `/tmp`).
    fn sticky(&self) -> PathBuf {
        self.dir.join("sticky")
    }

    /// An entry of [`sticky`](Self::sticky) owned by a third user.
    fn theirs(&self) -> PathBuf {
        self.sticky().join("theirs")
    }

    /// An empty directory the test's user owns, below [`theirs`](Self::theirs).
    fn root_below_theirs(&self) -> PathBuf {
        self.theirs().join("pi-native-hooks")
    }
}

use super::ancestors::split_path;
use super::checks::{EntryKind, Facts, check_ancestor, check_ancestor_owner, check_owned};
use super::dir::check_dir;
use super::error::{TrustError, escape_name};
use super::file::TrustedFile;
use super::limits::MAX_FILE_BYTES;
use nix::sys::stat::Mode;
use pi_native_hooks_base::safe_open::walk::current_uid;
use std::ffi::{OsStr, OsString};
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};

fn dir(uid: u32, mode: u32) -> Facts {
    Facts {
        kind: EntryKind::Dir,
        uid,
        mode,
        size: 0,
    }
}

/// A uid that is neither root nor the current user.
fn other_uid() -> u32 {
    if current_uid() == 65534 { 65533 } else { 65534 }
}

/// Opens `path` (its ancestors checked), checks the opened file, and reads it as UTF-8: the unit
/// tests' way through [`TrustedFile`].
fn read_trusted(path: &Path) -> Result<String, TrustError> {
    TrustedFile::open(path)?.read_to_string()
}

#[test]
fn ancestors_may_be_owned_by_root_or_you_and_shared_only_when_sticky() {
    let path = Path::new("/a");
    for facts in [
        dir(0, 0o755),
        dir(current_uid(), 0o700),
        dir(0, 0o1777),
        dir(0, 0o1770),
    ] {
        assert_eq!(check_ancestor(path, &facts), Ok(()), "{:o}", facts.mode);
    }
    for mode in [0o777, 0o775, 0o757, 0o2775] {
        assert_eq!(
            check_ancestor(path, &dir(0, mode)),
            Err(TrustError::AncestorWritable {
                path: path.to_path_buf(),
                mode
            })
        );
    }
    // Below a sticky directory, an entry another user owns could be renamed by them: every
    // entry the walk steps into (directory or link) is owner-checked.
    let other = other_uid();
    for facts in [dir(other, 0o755), dir(other, 0o1777)] {
        assert!(matches!(
            check_ancestor(path, &facts),
            Err(TrustError::AncestorNotOwned { owner, .. }) if owner == other
        ));
    }
    let link = Facts {
        kind: EntryKind::Symlink,
        ..dir(other, 0o777)
    };
    assert!(matches!(
        check_ancestor_owner(path, &link),
        Err(TrustError::AncestorNotOwned { .. })
    ));
    let file = Facts {
        kind: EntryKind::File,
        ..dir(0, 0o755)
    };
    assert!(matches!(
        check_ancestor(path, &file),
        Err(TrustError::WrongKind { .. })
    ));
}

#[test]
fn config_entries_must_be_yours_and_private_even_below_root_owned_ancestors() {
    let path = Path::new("/a");
    assert_eq!(check_owned(path, &dir(current_uid(), 0o700)), Ok(()));
    assert!(matches!(
        check_owned(path, &dir(current_uid(), 0o1700 | 0o020)),
        Err(TrustError::Writable { .. })
    ));
    assert!(matches!(
        check_owned(path, &dir(other_uid(), 0o700)),
        Err(TrustError::NotOwned { .. })
    ));
}

#[test]
fn paths_are_split_after_lexical_normalization() {
    assert_eq!(
        split_path(Path::new("/a/./b/../c/")).unwrap(),
        (PathBuf::from("/a"), Some(OsString::from("c")))
    );
    assert_eq!(
        split_path(Path::new("/")).unwrap(),
        (PathBuf::from("/"), None)
    );
    assert_eq!(
        split_path(Path::new("/..")).unwrap(),
        (PathBuf::from("/"), None)
    );
}

#[test]
fn names_are_escaped_for_messages() {
    assert_eq!(
        escape_name(OsStr::from_bytes(b"a\xff\n\x1b[0m.rhai")),
        "a\\xff\\n\\x1b[0m.rhai"
    );
}

// Trust checks on configuration files and directories: owner, mode, symlinks and a swap after
// the check.
fn file(dir: &Path, name: &str, text: &str, mode: u32) -> PathBuf {
    let path = dir.join(name);
    fs::write(&path, text).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(mode)).unwrap();
    path
}

#[test]
fn owned_private_file_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(dir.path(), "a.rhai", "const ID = 1;", 0o600);
    assert_eq!(read_trusted(&path).unwrap(), "const ID = 1;");
    let path = file(dir.path(), "b.rhai", "x", 0o644);
    assert_eq!(read_trusted(&path).unwrap(), "x");
}

#[test]
fn file_owned_by_another_user_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    // Root gives a fresh file and directory away; anyone else finds root's own, which every
    // Unix has. `tests/it/unprivileged` checks both kinds of owner again as a normal user.
    let (path, sub, owner) = if nix::unistd::geteuid().is_root() {
        let path = file(dir.path(), "a.rhai", "x", 0o600);
        let sub = dir.path().join("sub");
        fs::create_dir(&sub).unwrap();
        let other = nix::unistd::Uid::from_raw(other_uid());
        for entry in [&path, &sub] {
            nix::unistd::chown(entry, Some(other), None).expect("root can chown");
        }
        (path, sub, other_uid())
    } else {
        (PathBuf::from("/etc/passwd"), PathBuf::from("/"), 0)
    };
    assert!(
        matches!(
            read_trusted(&path),
            Err(TrustError::NotOwned { owner: o, current, .. }) if o == owner && current == current_uid()
        ),
        "{}: {:?}",
        path.display(),
        read_trusted(&path)
    );
    assert!(
        matches!(check_dir(&sub), Err(TrustError::NotOwned { owner: o, .. }) if o == owner),
        "{}: {:?}",
        sub.display(),
        check_dir(&sub)
    );
}

#[test]
fn group_or_world_writable_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for mode in [0o620, 0o602, 0o666] {
        let path = file(dir.path(), &format!("m{mode:o}.rhai"), "x", mode);
        assert_eq!(
            read_trusted(&path),
            Err(TrustError::Writable {
                path: path.clone(),
                mode
            })
        );
    }
    let sub = dir.path().join("sub");
    fs::create_dir(&sub).unwrap();
    fs::set_permissions(&sub, fs::Permissions::from_mode(0o777)).unwrap();
    assert!(matches!(
        check_dir(&sub),
        Err(TrustError::Writable { mode: 0o777, .. })
    ));
    fs::set_permissions(&sub, fs::Permissions::from_mode(0o700)).unwrap();
    assert_eq!(check_dir(&sub), Ok(()));
}

#[test]
fn symlinks_are_refused_even_to_trusted_targets() {
    let dir = tempfile::tempdir().unwrap();
    let target = file(dir.path(), "target.rhai", "x", 0o600);
    let link = dir.path().join("link.rhai");
    symlink(&target, &link).unwrap();
    assert_eq!(
        read_trusted(&link),
        Err(TrustError::Symlink { path: link.clone() })
    );
    let sub = dir.path().join("sub");
    fs::create_dir(&sub).unwrap();
    let dir_link = dir.path().join("dir-link");
    symlink(&sub, &dir_link).unwrap();
    assert_eq!(
        check_dir(&dir_link),
        Err(TrustError::Symlink {
            path: dir_link.clone()
        })
    );
}

#[test]
fn swap_after_the_check_cannot_slip_through() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(dir.path(), "policy.rhai", "trusted", 0o600);
    let evil = file(dir.path(), "evil.rhai", "evil", 0o666);
    let checked = TrustedFile::open(&path).unwrap();
    // The path is swapped for a symlink to a file anyone can write, after the check.
    let staged = dir.path().join("staged");
    symlink(&evil, &staged).unwrap();
    fs::rename(&staged, &path).unwrap();
    assert_eq!(
        checked.read_to_string().unwrap(),
        "trusted",
        "the read uses the checked descriptor"
    );
    assert_eq!(
        read_trusted(&path),
        Err(TrustError::Symlink { path: path.clone() })
    );
}

#[test]
fn wrong_kinds_and_oversized_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    assert!(matches!(
        read_trusted(dir.path()),
        Err(TrustError::WrongKind {
            expected: "regular file",
            ..
        })
    ));
    let path = file(dir.path(), "a.rhai", "x", 0o600);
    assert!(matches!(
        check_dir(&path),
        Err(TrustError::WrongKind {
            expected: "directory",
            ..
        })
    ));
    let fifo = dir.path().join("fifo.rhai");
    nix::unistd::mkfifo(&fifo, Mode::from_bits_truncate(0o600)).unwrap();
    assert!(
        matches!(read_trusted(&fifo), Err(TrustError::WrongKind { .. })),
        "a FIFO must not block"
    );
    let big = file(
        dir.path(),
        "big.rhai",
        &"x".repeat(usize::try_from(MAX_FILE_BYTES).unwrap() + 1),
        0o600,
    );
    assert!(matches!(
        read_trusted(&big),
        Err(TrustError::TooLarge { .. })
    ));
    assert!(matches!(
        read_trusted(&dir.path().join("missing")),
        Err(TrustError::Io { .. })
    ));
}

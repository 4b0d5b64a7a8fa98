//! Trust checks on configuration files and directories: owner, mode, symlinks and a swap after
//! the check.

#![allow(clippy::unwrap_used, reason = "test helpers: a panic is a failed test")]

use pi_native_hooks::config::trust::{
    MAX_FILE_BYTES, TrustError, TrustedFile, check_dir, read_trusted,
};
use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::Path;

fn file(dir: &Path, name: &str, text: &str, mode: u32) -> std::path::PathBuf {
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
    let path = file(dir.path(), "a.rhai", "x", 0o600);
    nix::unistd::chown(&path, Some(nix::unistd::Uid::from_raw(65534)), None).unwrap();
    match read_trusted(&path) {
        Err(TrustError::NotOwned { owner: 65534, .. }) => {}
        other => panic!("expected NotOwned, got {other:?}"),
    }
    let sub = dir.path().join("sub");
    fs::create_dir(&sub).unwrap();
    nix::unistd::chown(&sub, Some(nix::unistd::Uid::from_raw(65534)), None).unwrap();
    assert!(matches!(check_dir(&sub), Err(TrustError::NotOwned { .. })));
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
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    assert!(
        matches!(read_trusted(&fifo), Err(TrustError::WrongKind { .. })),
        "a FIFO must not block"
    );
    let big = file(
        dir.path(),
        "big.rhai",
        &"x".repeat(MAX_FILE_BYTES as usize + 1),
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

//! Throw-away files and repositories: a file written below a folder, and the `git` CLI isolated
//! from the machine's configuration, so every test and bench drives git the same way.

use std::path::Path;
use std::process::Command;

/// Writes `contents` to `dir/relative`, creating the parent directories.
///
/// # Panics
///
/// When the file or a parent cannot be written.
pub fn write(dir: &Path, relative: &str, contents: impl AsRef<[u8]>) {
    let path = dir.join(relative);
    std::fs::create_dir_all(path.parent().expect("a file has a parent"))
        .expect("create the parent");
    std::fs::write(path, contents).expect("write the file");
}

/// A `git` command in `cwd` with a fixed identity, no global or system configuration and none of
/// the caller's `GIT_*` overrides.
pub fn git_cmd(cwd: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(cwd)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "init.defaultBranch=main",
        ])
        .args([
            "-c",
            "protocol.file.allow=always",
            "-c",
            "commit.gpgsign=false",
        ]);
    cmd
}

/// Runs `git <args>` in `cwd`; returns stdout.
///
/// # Panics
///
/// When git cannot run or fails, with its stderr.
pub fn git(cwd: &Path, args: &[&str]) -> String {
    let out = git_cmd(cwd).args(args).output().expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

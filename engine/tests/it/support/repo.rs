//! Throw-away git repositories for the integration tests: the `git` CLI isolated from the
//! machine's configuration, and writing files below a directory. The `*_support` modules include
//! this file too, so every test drives git the same way.

use std::path::Path;
use std::process::Command;

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

/// Runs `git <args>` in `cwd`, panicking with its stderr on failure; returns stdout.
pub fn git(cwd: &Path, args: &[&str]) -> String {
    let out = git_cmd(cwd).args(args).output().expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Writes `text` to `dir/relative`, creating the parent directories.
pub fn write(dir: &Path, relative: &str, text: &str) {
    let path = dir.join(relative);
    std::fs::create_dir_all(path.parent().expect("a file has a parent"))
        .expect("create the parent");
    std::fs::write(path, text).expect("write the file");
}

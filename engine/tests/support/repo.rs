//! Throw-away git repositories for the integration tests: the `git` CLI isolated from the
//! machine's configuration, and writing files below a directory.

use std::path::Path;
use std::process::Command;

/// Runs `git <args>` in `dir` with a fixed identity and neither global nor system config.
pub fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?} failed");
}

/// Writes `text` to `dir/relative`, creating the parent directories.
pub fn write(dir: &Path, relative: &str, text: &str) {
    let path = dir.join(relative);
    std::fs::create_dir_all(path.parent().expect("a file has a parent"))
        .expect("create the parent");
    std::fs::write(path, text).expect("write the file");
}

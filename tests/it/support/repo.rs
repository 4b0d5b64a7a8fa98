//! Throw-away git repositories: [`TestRepo`] and its builder, the `git` CLI isolated from the
//! machine's configuration, and writing files below a directory. Every test that needs a
//! repository builds it here, so every test drives git the same way.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

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

/// Writes `contents` to `dir/relative`, creating the parent directories.
pub fn write(dir: &Path, relative: &str, contents: impl AsRef<[u8]>) {
    let path = dir.join(relative);
    std::fs::create_dir_all(path.parent().expect("a file has a parent"))
        .expect("create the parent");
    std::fs::write(path, contents).expect("write the file");
}

/// Creates the symlink `link` pointing to `target` (as written, relative or absolute).
pub fn symlink(target: impl AsRef<Path>, link: &Path) {
    std::os::unix::fs::symlink(target, link).expect("symlink");
}

/// A git repository in a temporary directory (removed when dropped), on branch `main`.
pub struct TestRepo {
    dir: tempfile::TempDir,
}

/// The files of a [`TestRepo`]'s first commit.
#[derive(Default)]
#[must_use = "`commit` builds the repository"]
pub struct TestRepoBuilder {
    files: Vec<(String, String)>,
    settled: bool,
}

impl TestRepoBuilder {
    /// Adds `path` (relative, parents created) with `text` to the first commit.
    pub fn file(mut self, path: &str, text: &str) -> Self {
        self.files.push((path.to_owned(), text.to_owned()));
        self
    }

    /// Adds every `(path, text)` to the first commit.
    pub fn files(self, files: &[(&str, &str)]) -> Self {
        files
            .iter()
            .fold(self, |builder, (path, text)| builder.file(path, text))
    }

    /// Sets every file's mtime a minute in the past before it is added, so the index does not
    /// record it as racily clean: an unchanged file is then proven clean by its stat data alone,
    /// without reading it.
    pub fn settled(mut self) -> Self {
        self.settled = true;
        self
    }

    /// `git init`, the files, and one commit (`init`) of all of them.
    pub fn commit(self) -> TestRepo {
        let repo = TestRepo::init();
        for (path, text) in &self.files {
            repo.write(path, text);
            if self.settled {
                repo.backdate(path);
            }
        }
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "-m", "init"]);
        repo
    }
}

impl TestRepo {
    /// `git init` in a fresh temporary directory: no commit, no files.
    pub fn init() -> TestRepo {
        let dir = tempfile::tempdir().expect("tempdir");
        git(dir.path(), &["init", "-q"]);
        TestRepo { dir }
    }

    /// A repository whose first commit the builder describes.
    pub fn builder() -> TestRepoBuilder {
        TestRepoBuilder::default()
    }

    /// A repository with `files` committed as the first commit.
    pub fn with_commit(files: &[(&str, &str)]) -> TestRepo {
        TestRepo::builder().files(files).commit()
    }

    /// [`TestRepo::with_commit`] with [settled](TestRepoBuilder::settled) files.
    pub fn with_settled_commit(files: &[(&str, &str)]) -> TestRepo {
        TestRepo::builder().files(files).settled().commit()
    }

    /// The worktree root.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `rela` below the worktree root.
    pub fn abs(&self, rela: &str) -> PathBuf {
        self.path().join(rela)
    }

    /// Rewrites `rela` in place with `content` of the same length, then gives the file and the
    /// index the file's old mtime: a racy-git change that only content (not stat data) reveals.
    pub fn rewrite_racily(&self, rela: &str, content: &[u8]) {
        let mtime = std::fs::metadata(self.abs(rela))
            .and_then(|m| m.modified())
            .expect("mtime");
        let file = std::fs::File::options()
            .write(true)
            .open(self.abs(rela))
            .expect("open");
        std::io::Write::write_all(&mut &file, content).expect("rewrite in place");
        file.set_modified(mtime).expect("restore mtime");
        drop(file);
        let index = std::fs::File::options()
            .write(true)
            .open(self.abs(".git/index"))
            .expect("index");
        index.set_modified(mtime).expect("index mtime");
    }

    /// Runs `git <args>` in the worktree root; returns stdout.
    pub fn git(&self, args: &[&str]) -> String {
        git(self.path(), args)
    }

    /// The commit `HEAD` names.
    pub fn head(&self) -> String {
        self.git(&["rev-parse", "HEAD"]).trim().to_owned()
    }

    /// Writes `contents` to `rela`, creating parent directories.
    pub fn write(&self, rela: &str, contents: impl AsRef<[u8]>) {
        write(self.path(), rela, contents);
    }

    /// Reads `rela`.
    pub fn read(&self, rela: &str) -> String {
        std::fs::read_to_string(self.abs(rela)).expect("read")
    }

    /// Removes the file `rela`.
    pub fn remove(&self, rela: &str) {
        std::fs::remove_file(self.abs(rela)).expect("remove");
    }

    /// Creates the symlink `rela` pointing to `target` (as written, relative or absolute).
    pub fn symlink(&self, target: impl AsRef<Path>, rela: &str) {
        symlink(target, &self.abs(rela));
    }

    /// Sets the mtime of `rela` (not following a symlink's target) a minute into the past.
    pub fn backdate(&self, rela: &str) {
        let path = self.abs(rela);
        if std::fs::symlink_metadata(&path).is_ok_and(|meta| meta.is_file()) {
            let past = SystemTime::now() - Duration::from_secs(60);
            std::fs::File::options()
                .write(true)
                .open(&path)
                .and_then(|file| file.set_modified(past))
                .expect("backdate");
        }
    }
}

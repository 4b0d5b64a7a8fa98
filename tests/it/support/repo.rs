//! Throw-away git repositories: [`TestRepo`] and its builder. The `git` CLI isolated from the
//! machine's configuration and writing files below a directory come from the test-support crate
//! (the benches use them too). Every test that needs a repository builds it here, so every test
//! drives git the same way.

pub use pi_native_hooks_test_support::{git, git_cmd, write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

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

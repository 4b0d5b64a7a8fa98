//! Config roots: [`ConfigRoot`] and its builder. A root is private the way `pi-native-hooks init`
//! makes one, so it passes the trust checks: the root and every directory created below it 0700,
//! every file 0600.

use pi_native_hooks_policy::InitPlan;
use pi_native_hooks_policy::PolicyRegistry;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Creates `dir` and its missing ancestors; the directories created get mode 0700.
fn create_private_dir(dir: &Path) {
    if dir.is_dir() {
        return;
    }
    if let Some(parent) = dir.parent() {
        create_private_dir(parent);
    }
    fs::create_dir(dir).expect("create a config directory");
    fs::set_permissions(dir, fs::Permissions::from_mode(0o700)).expect("chmod a config directory");
}

/// Writes `text` to `dir/relative` with mode 0600, creating missing parents with mode 0700.
pub fn write_private(dir: &Path, relative: &str, text: &str) {
    let path = dir.join(relative);
    create_private_dir(path.parent().expect("a file has a parent"));
    fs::write(&path, text).expect("write a config file");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).expect("chmod a config file");
}

/// The rule of the smallest working root: `no-bang`, a non-null assertion.
pub const NO_BANG_RULE: &str = "id: no-bang\nlanguage: TypeScript\nseverity: warning\nmessage: no bang\nrule:\n  kind: non_null_expression\n";

/// The diagnostic policy `p` of the smallest working root, selecting `no-bang` and reporting
/// nothing.
pub const NO_BANG_POLICY: &str = "const ID = \"p\";\nconst KIND = \"diagnostic\";\nconst ANALYZER = \"ast-grep\";\nconst RULES = [\"no-bang\"];\nfn evaluate(snapshot) { [] }\n";

/// The smallest working config root at `root`: `sgconfig.yml`, [`NO_BANG_RULE`] and
/// [`NO_BANG_POLICY`].
pub fn build_no_bang_root_at(root: &Path) {
    ConfigRoot::builder()
        .file("sgconfig.yml", "ruleDirs:\n  - rules\n")
        .file("rules/no-bang.yml", NO_BANG_RULE)
        .policy("p.rhai", NO_BANG_POLICY)
        .build_at(root);
}

/// A config root `pi-native-hooks` in a temporary directory (removed when dropped).
pub struct ConfigRoot {
    _home: tempfile::TempDir,
    root: PathBuf,
}

/// What a [`ConfigRoot`] holds when it is created.
#[derive(Default)]
#[must_use = "`build` creates the root"]
pub struct ConfigRootBuilder {
    builtin: bool,
    dirs: Vec<String>,
    files: Vec<(String, String)>,
}

impl ConfigRootBuilder {
    /// Starts from the built-in pack, laid down by `pi-native-hooks init` (`InitPlan`).
    pub fn builtin(mut self) -> Self {
        self.builtin = true;
        self
    }

    /// An empty directory `relative` below the root.
    pub fn dir(mut self, relative: &str) -> Self {
        self.dirs.push(relative.to_owned());
        self
    }

    /// The file `relative` (below the root) with `text`.
    pub fn file(mut self, relative: &str, text: &str) -> Self {
        self.files.push((relative.to_owned(), text.to_owned()));
        self
    }

    /// The policy `policies/<name>` with `text`.
    pub fn policy(self, name: &str, text: &str) -> Self {
        self.file(&format!("policies/{name}"), text)
    }

    /// Creates the root as `pi-native-hooks` in a fresh temporary directory.
    pub fn build(self) -> ConfigRoot {
        let home = tempfile::tempdir().expect("tempdir");
        let root = home.path().join("pi-native-hooks");
        self.build_at(&root);
        ConfigRoot { _home: home, root }
    }

    /// Creates the root at `root`; missing ancestors are created with the default mode, so a test
    /// can give them whatever mode it is about.
    pub fn build_at(self, root: &Path) {
        if self.builtin {
            InitPlan::new(root).apply().expect("init");
        } else {
            fs::create_dir_all(root).expect("create the config root");
            fs::set_permissions(root, fs::Permissions::from_mode(0o700))
                .expect("chmod the config root");
        }
        for dir in &self.dirs {
            create_private_dir(&root.join(dir));
        }
        for (relative, text) in &self.files {
            write_private(root, relative, text);
        }
    }
}

impl ConfigRoot {
    /// A root whose content the builder describes.
    pub fn builder() -> ConfigRootBuilder {
        ConfigRootBuilder::default()
    }

    /// The built-in pack, as `pi-native-hooks init` creates it.
    pub fn builtin() -> ConfigRoot {
        ConfigRoot::builder().builtin().build()
    }

    /// A root holding only `policies` (file name in `policies/`, text).
    pub fn with_policies(policies: &[(&str, &str)]) -> ConfigRoot {
        policies
            .iter()
            .fold(ConfigRoot::builder(), |builder, (name, text)| {
                builder.policy(name, text)
            })
            .build()
    }

    /// The root directory.
    pub fn path(&self) -> &Path {
        &self.root
    }

    /// Writes `relative` (below the root) with mode 0600.
    pub fn write(&self, relative: &str, text: &str) {
        write_private(&self.root, relative, text);
    }

    /// Writes the policy `policies/<name>` with mode 0600.
    pub fn write_policy(&self, name: &str, text: &str) {
        self.write(&format!("policies/{name}"), text);
    }

    /// Removes the file `relative` (below the root).
    pub fn remove(&self, relative: &str) {
        fs::remove_file(self.root.join(relative)).expect("remove a config file");
    }

    /// Loads the root's policies, as a session or the CLI does.
    pub fn registry(&self) -> PolicyRegistry {
        PolicyRegistry::load(&self.root)
    }
}

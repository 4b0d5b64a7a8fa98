//! The ast-grep CLI as the reference implementation: where its binary is, and a config root that
//! it and pi-native-hooks read the same way (`sgconfig.yml` with `ruleDirs: [rules]` and the
//! repository's `rules/*.yml`).

use crate::checkout;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

fn is_executable(path: &Path) -> bool {
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The ast-grep binary: `$AST_GREP_BIN` (set by `scripts/provision.sh`), else the pinned npm
/// package under the repository's `node_modules`, else `ast-grep` on `PATH`. The error says where
/// it looked.
pub fn find_binary() -> Result<PathBuf, String> {
    if let Some(bin) = std::env::var_os("AST_GREP_BIN") {
        let bin = PathBuf::from(bin);
        return if is_executable(&bin) {
            Ok(bin)
        } else {
            Err(format!(
                "AST_GREP_BIN={} is not an executable file",
                bin.display()
            ))
        };
    }
    let root = checkout();
    let pinned = [
        root.join("node_modules/@ast-grep/cli-linux-x64-gnu/ast-grep"),
        root.join("node_modules/.bin/ast-grep"),
    ];
    let on_path = std::env::var_os("PATH")
        .map(|path| {
            std::env::split_paths(&path)
                .map(|dir| dir.join("ast-grep"))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    pinned
        .into_iter()
        .chain(on_path)
        .find(|candidate| is_executable(candidate))
        .ok_or_else(|| {
            "the ast-grep CLI was not found: AST_GREP_BIN is unset, node_modules has no \
             @ast-grep/cli and no `ast-grep` is on PATH"
                .to_owned()
        })
}

/// Makes `dir` a config root: `sgconfig.yml` (`ruleDirs: [rules]`) and a copy of the repository's
/// `rules/*.yml`, with modes that pass the trust checks (0755 directories, 0644 files). Returns
/// the path of `sgconfig.yml`.
///
/// # Panics
///
/// When the files cannot be written (this is test and benchmark support).
pub fn write_config_root(dir: &Path) -> PathBuf {
    let rules = dir.join("rules");
    std::fs::create_dir_all(&rules).expect("create the rules directory of the config root");
    let mut copied = 0;
    let source = checkout().join("rules");
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&source)
        .expect("read the repository's rules directory")
        .map(|entry| entry.expect("list the repository's rules directory").path())
        .filter(|path| path.extension().is_some_and(|e| e == "yml"))
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().expect("a rule file has a name");
        let target = rules.join(name);
        std::fs::copy(&path, &target).expect("copy a rule file into the config root");
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o644))
            .expect("set the mode of a copied rule file");
        copied += 1;
    }
    assert!(copied > 0, "no rules/*.yml in {}", source.display());
    let config = dir.join("sgconfig.yml");
    std::fs::write(&config, "ruleDirs:\n  - rules\n").expect("write sgconfig.yml");
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o644))
        .expect("set the mode of sgconfig.yml");
    for path in [dir, rules.as_path()] {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
            .expect("set the mode of a config directory");
    }
    config
}

//! Where policy files come from: the `policies/` directory of a config root (sorted direct
//! children ending in `.rhai`, each read through the trust checks) or the built-in pack.

use super::builtin;
use crate::config::trust::{TrustError, check_dir, read_trusted};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

/// The directory under a config root that holds policies.
pub const POLICY_DIR: &str = "policies";

/// One policy file, read or refused.
#[derive(Clone, Debug)]
pub struct PolicySource {
    /// The path problems are reported under (absolute for a config root, `policies/<name>` for the
    /// built-in pack).
    pub path: PathBuf,
    /// The path relative to the root, with `/` separators: the key the digest and reloads use.
    pub relative: String,
    /// The text, or why it was not read.
    pub text: Result<String, TrustError>,
}

/// What a config root holds, as far as policies are concerned.
#[derive(Debug)]
pub enum RootPolicies {
    /// The root does not exist.
    Absent,
    /// The root or its `policies/` directory failed a trust check: nothing was read.
    Untrusted(TrustError),
    /// The policy files, sorted by name (empty when there is no `policies/` directory).
    Files(Vec<PolicySource>),
}

/// Lists and reads `<root>/policies/*.rhai`.
pub fn read_root(root: &Path) -> RootPolicies {
    match std::fs::symlink_metadata(root) {
        Err(error) if error.kind() == ErrorKind::NotFound => return RootPolicies::Absent,
        _ => {}
    }
    if let Err(error) = check_dir(root) {
        return RootPolicies::Untrusted(error);
    }
    let dir = root.join(POLICY_DIR);
    if std::fs::symlink_metadata(&dir).is_err_and(|e| e.kind() == ErrorKind::NotFound) {
        return RootPolicies::Files(Vec::new());
    }
    if let Err(error) = check_dir(&dir) {
        return RootPolicies::Untrusted(error);
    }
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(error) => {
            return RootPolicies::Untrusted(TrustError::Io {
                path: dir,
                error: error.to_string(),
            });
        }
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| name.ends_with(".rhai"))
        .collect();
    names.sort();
    RootPolicies::Files(
        names
            .into_iter()
            .map(|name| {
                let path = dir.join(&name);
                let text = read_trusted(&path);
                PolicySource {
                    path,
                    relative: format!("{POLICY_DIR}/{name}"),
                    text,
                }
            })
            .collect(),
    )
}

/// The built-in policies as sources.
pub fn builtin_sources() -> Vec<PolicySource> {
    builtin::POLICY_FILES
        .iter()
        .map(|(name, text)| {
            let relative = format!("{POLICY_DIR}/{name}");
            PolicySource {
                path: PathBuf::from(&relative),
                relative,
                text: Ok((*text).to_owned()),
            }
        })
        .collect()
}

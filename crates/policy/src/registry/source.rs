//! Where policy files come from: the `policies/` directory of a config root (sorted direct
//! children ending in `.rhai`, each opened relative to the checked directory) or the built-in
//! pack.

use crate::builtin;
use pi_native_hooks_config::trust::{TrustError, TrustedDir, escape_name};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The directory under a config root that holds policies.
pub(crate) const POLICY_DIR: &str = "policies";

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
pub(crate) enum RootPolicies {
    /// The root does not exist.
    Absent,
    /// The root or its `policies/` directory failed a trust check: nothing was read.
    Untrusted(TrustError),
    /// The policy files, sorted by name (empty when there is no `policies/` directory).
    Files(Vec<PolicySource>),
}

/// Lists and reads `<root>/policies/*.rhai`, everything opened relative to the checked root.
/// A name in `policies/` that is not valid UTF-8 is returned as a source whose text is the
/// [`TrustError::UnreadableName`] that reports it.
// A policy file is `*.rhai` exactly, as the docs say: `A.RHAI` is not loaded.
#[expect(clippy::case_sensitive_file_extension_comparisons)]
pub(crate) fn read_root(root: &Path) -> RootPolicies {
    let root = match TrustedDir::open_root_if_exists(root) {
        Ok(Some(root)) => root,
        Ok(None) => return RootPolicies::Absent,
        Err(error) => return RootPolicies::Untrusted(error),
    };
    let dir = match root.open_dir_if_exists(OsStr::new(POLICY_DIR)) {
        Ok(Some(dir)) => dir,
        Ok(None) => return RootPolicies::Files(Vec::new()),
        Err(error) => return RootPolicies::Untrusted(error),
    };
    let entries = match dir.entries() {
        Ok(entries) => entries,
        Err(error) => return RootPolicies::Untrusted(error),
    };
    RootPolicies::Files(
        entries
            .iter()
            .filter_map(|entry| {
                let path = dir.path().join(&entry.name);
                match entry.utf8_name(&dir) {
                    Ok(name) if name.ends_with(".rhai") => Some(PolicySource {
                        path,
                        relative: format!("{POLICY_DIR}/{name}"),
                        text: dir.read_file(&entry.name),
                    }),
                    Ok(_) => None,
                    Err(unreadable) => Some(PolicySource {
                        path,
                        relative: format!("{POLICY_DIR}/{}", escape_name(&entry.name)),
                        text: Err(unreadable),
                    }),
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

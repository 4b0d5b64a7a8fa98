//! The trust model's owner checks with real owners: a config file or root that root owns is not
//! yours, a root-owned ancestor is, and below a sticky ancestor an entry a third user owns is
//! refused, since that user could rename it and put their own config in its place. As root every
//! owner is "you" or root, so none of this can be seen there.

use super::Foreign;
use crate::support::cli::cli;
use crate::support::config_root::build_no_bang_root_at as config_root;
use pi_native_hooks_analysis::load_source;
use pi_native_hooks_cli::ExitStatus;
use pi_native_hooks_config::ConfigSource;
use pi_native_hooks_config::trust::{TrustError, TrustedFile, check_dir};
use pi_native_hooks_doctor::root_report;
use pi_native_hooks_policy::{PolicyRegistry, RegistrySource};
use std::path::Path;

fn me() -> u32 {
    nix::unistd::geteuid().as_raw()
}

/// Asserts that every loader refuses the config root `root` with `refusal`, whose message
/// contains `says`: the policy registry, the rule loader, `doctor` and `check`.
fn refused_everywhere(root: &Path, refusal: &TrustError, says: &str) {
    assert_eq!(check_dir(root).as_ref(), Err(refusal));
    assert!(refusal.to_string().contains(says), "{refusal}");
    let registry = PolicyRegistry::load(root);
    assert_eq!(
        registry.source(),
        &RegistrySource::Untrusted(root.to_path_buf(), refusal.clone())
    );
    assert!(registry.policies().is_empty());
    let (rules, errors) = load_source(&ConfigSource::Root(root.to_path_buf()));
    assert!(rules.ids().is_empty());
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].to_string().contains(says), "{}", errors[0]);
    assert!(!root_report(root).healthy());
    let cwd = tempfile::tempdir().expect("temp dir");
    let root_arg = root.to_str().expect("utf-8 path");
    let (status, _, stderr) = cli(cwd.path(), &["check", "--config", root_arg]);
    assert_eq!(status, ExitStatus::Error, "{stderr}");
    assert!(stderr.contains(says), "{stderr}");
}

#[test]
#[ignore = "runs as an unprivileged user from scripts/test-unprivileged"]
fn a_config_file_or_root_that_root_owns_is_not_yours() {
    let Some(foreign) = Foreign::get() else {
        return;
    };
    let file = foreign.root_file();
    assert_eq!(
        TrustedFile::open(&file).map(drop),
        Err(TrustError::NotOwned {
            path: file,
            owner: 0,
            current: me(),
        })
    );
    let root = foreign.root_dir();
    let refusal = TrustError::NotOwned {
        path: root.clone(),
        owner: 0,
        current: me(),
    };
    refused_everywhere(
        &root,
        &refusal,
        &format!("owned by uid 0, not by you (uid {})", me()),
    );
}

#[test]
#[ignore = "runs as an unprivileged user from scripts/test-unprivileged"]
fn a_root_owned_sticky_ancestor_passes_a_root_you_own() {
    let Some(foreign) = Foreign::get() else {
        return;
    };
    let mine = tempfile::tempdir_in(foreign.sticky()).expect("a directory of mine in sticky/");
    let root = mine.path().join("pi-native-hooks");
    config_root(&root);
    assert_eq!(check_dir(&root), Ok(()));
    let registry = PolicyRegistry::load(&root);
    assert_eq!(registry.source(), &RegistrySource::Root(root.clone()));
    assert_eq!(registry.policies().len(), 1);
    let (rules, errors) = load_source(&ConfigSource::Root(root.clone()));
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(rules.ids(), ["no-bang"]);
    assert!(root_report(&root).healthy());
}

#[test]
#[ignore = "runs as an unprivileged user from scripts/test-unprivileged"]
fn an_entry_a_third_user_owns_below_a_sticky_ancestor_is_refused() {
    let Some(foreign) = Foreign::get() else {
        return;
    };
    // The root itself is yours and complete: only the ancestor's owner is wrong.
    let root = foreign.root_below_theirs();
    config_root(&root);
    let theirs = std::fs::canonicalize(foreign.theirs()).expect("real path");
    let owner = super::owner(&theirs);
    let refusal = TrustError::AncestorNotOwned {
        path: theirs,
        owner,
        current: me(),
    };
    refused_everywhere(
        &root,
        &refusal,
        &format!("owned by uid {owner} (neither root nor you, uid {})", me()),
    );
}

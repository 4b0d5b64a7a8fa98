//! Trust checks against hostile and odd config roots: the whole path to the root is checked,
//! everything below it is read relative to checked descriptors, `ruleDirs`/`utilDirs` stay inside
//! the root, unreadable names are reported, and `doctor` reports what `check` refuses.
//!
//! Written to pass both as root and as a normal user: hostile directories are made with `chmod`,
//! never with `chown`. What needs real owners or unreadable files is in `unprivileged`.

#![expect(clippy::unwrap_used, reason = "test helpers: a panic is a failed test")]

use crate::support::cli::cli;
use crate::support::config_root::{
    NO_BANG_POLICY as POLICY, NO_BANG_RULE as RULE, build_no_bang_root_at as config_root,
    write_private,
};
use pi_native_hooks_analysis::{RuleError, load_source};
use pi_native_hooks_cli::ExitStatus;
use pi_native_hooks_config::trust::{TrustError, TrustedDir, check_dir};
use pi_native_hooks_config::{ConfigProblem, ConfigSource, DirFault};
use pi_native_hooks_doctor::root_report;
use pi_native_hooks_policy::{PolicyRegistry, RegistrySource};
use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};

fn chmod(path: &Path, mode: u32) {
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

/// A temporary directory with its real path (the system temp dir may be reached by a symlink).
fn temp() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let real = fs::canonicalize(dir.path()).unwrap();
    (dir, real)
}

fn root_source(root: &Path) -> ConfigSource {
    ConfigSource::Root(root.to_path_buf())
}

#[test]
fn a_world_or_group_writable_ancestor_is_refused() {
    let (_guard, base) = temp();
    let shared = base.join("shared");
    let root = shared.join("pi-native-hooks");
    config_root(&root);
    assert_eq!(check_dir(&root), Ok(()), "a private ancestor is fine");

    for mode in [0o777, 0o775, 0o757] {
        chmod(&shared, mode);
        assert_eq!(
            check_dir(&root),
            Err(TrustError::AncestorWritable {
                path: shared.clone(),
                mode
            }),
            "mode {mode:o}"
        );
    }
    // Refused everywhere the root is loaded: rules, policies, doctor and the CLI.
    let registry = PolicyRegistry::load(&root);
    assert!(
        matches!(
            registry.source(),
            RegistrySource::Untrusted(_, TrustError::AncestorWritable { .. })
        ),
        "{:?}",
        registry.source()
    );
    assert!(registry.policies().is_empty());
    let (rules, errors) = load_source(&root_source(&root));
    assert!(rules.ids().is_empty());
    assert_eq!(errors.len(), 1, "{errors:?}");
    let message = errors[0].to_string();
    assert!(
        message.contains(&format!(
            "{}: a directory above the config root with mode 0757",
            shared.display()
        )) && message.contains("chmod go-w"),
        "{message}"
    );
    assert!(!root_report(&root).healthy());
    let (status, _, stderr) = cli(&base, &["check", "--config", root.to_str().unwrap()]);
    assert_eq!(status, ExitStatus::Error, "{stderr}");
    assert!(
        stderr.contains("a directory above the config root"),
        "{stderr}"
    );

    // A writable directory further up is refused just the same.
    chmod(&shared, 0o700);
    chmod(&base, 0o777);
    assert!(matches!(
        check_dir(&root),
        Err(TrustError::AncestorWritable { path, mode: 0o777 }) if path == base
    ));
    chmod(&base, 0o700);
    assert_eq!(check_dir(&root), Ok(()));
}

#[test]
fn a_sticky_shared_ancestor_accepts_a_root_you_own() {
    let (_guard, base) = temp();
    let shared = base.join("shared");
    let root = shared.join("pi-native-hooks");
    config_root(&root);
    chmod(&shared, 0o1777);
    assert_eq!(check_dir(&root), Ok(()));
    let registry = PolicyRegistry::load(&root);
    assert_eq!(registry.source(), &RegistrySource::Root(root.clone()));
    assert_eq!(registry.policies().len(), 1);
    let (rules, errors) = load_source(&root_source(&root));
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(rules.ids(), ["no-bang"]);
    assert!(root_report(&root).healthy());

    // Below the sticky directory, the root itself must still be yours and private.
    chmod(&root, 0o770);
    assert!(matches!(
        check_dir(&root),
        Err(TrustError::Writable { mode: 0o770, .. })
    ));
    chmod(&root, 0o700);

    // The sticky bit protects only entries owned by root or you; an entry a third user owns
    // below it is refused in `unprivileged::owners`, which runs with a fixture of real owners.
}

#[test]
fn a_symlinked_ancestor_is_resolved_and_its_target_checked() {
    let (_guard, base) = temp();
    let real = base.join("real");
    config_root(&real.join("pi-native-hooks"));
    // An absolute link and a relative one with `..`, as dotfile managers and systems make them.
    symlink(&real, base.join("abs-link")).unwrap();
    fs::create_dir(base.join("sub")).unwrap();
    symlink("../real", base.join("sub/rel-link")).unwrap();
    for link in ["abs-link", "sub/rel-link"] {
        let root = base.join(link).join("pi-native-hooks");
        assert_eq!(check_dir(&root), Ok(()), "{link}");
        let registry = PolicyRegistry::load(&root);
        assert_eq!(registry.policies().len(), 1, "{link}");
        assert_eq!(
            registry.policies()[0].path,
            root.join("policies/p.rhai"),
            "reported under the path as given"
        );
        let (rules, errors) = load_source(&root_source(&root));
        assert!(errors.is_empty(), "{link}: {errors:?}");
        assert_eq!(rules.ids(), ["no-bang"]);
    }

    // The target's own path is checked: a link into a writable directory is refused there.
    let open = base.join("open");
    config_root(&open.join("pi-native-hooks"));
    chmod(&open, 0o777);
    symlink(&open, base.join("to-open")).unwrap();
    assert_eq!(
        check_dir(&base.join("to-open/pi-native-hooks")),
        Err(TrustError::AncestorWritable {
            path: open.clone(),
            mode: 0o777
        })
    );
    // The root itself is never a symlink, whatever its target.
    symlink("real/pi-native-hooks", base.join("root-link")).unwrap();
    assert_eq!(
        check_dir(&base.join("root-link")),
        Err(TrustError::Symlink {
            path: base.join("root-link")
        })
    );

    // A loop ends with a clear error instead of spinning.
    symlink(base.join("loop"), base.join("loop")).unwrap();
    assert!(matches!(
        check_dir(&base.join("loop/pi-native-hooks")),
        Err(TrustError::SymlinkLoop { .. })
    ));
    // A dangling link above the root means the root does not exist.
    symlink(base.join("nowhere"), base.join("dangling")).unwrap();
    assert!(matches!(
        PolicyRegistry::load(&base.join("dangling/pi-native-hooks")).source(),
        RegistrySource::Absent(_)
    ));
}

#[test]
fn a_file_swapped_for_a_symlink_after_the_check_is_not_followed() {
    let (_guard, base) = temp();
    let root = base.join("root");
    config_root(&root);
    let outside = base.join("outside");
    fs::create_dir(&outside).unwrap();
    write_private(&outside, "evil.rhai", "evil");
    write_private(&outside, "p.rhai", "evil");

    let checked = TrustedDir::open_root(&root).unwrap();
    let policies = checked.open_dir(OsStr::new("policies")).unwrap();
    let listed: Vec<_> = policies
        .entries()
        .unwrap()
        .into_iter()
        .map(|e| e.name)
        .collect();
    assert_eq!(listed, ["p.rhai"]);

    // After the checks, the policy file becomes a symlink to a file outside the root.
    let staged = root.join("policies/staged");
    symlink(outside.join("evil.rhai"), &staged).unwrap();
    fs::rename(&staged, root.join("policies/p.rhai")).unwrap();
    assert_eq!(
        policies.read_file(OsStr::new("p.rhai")),
        Err(TrustError::Symlink {
            path: root.join("policies/p.rhai")
        })
    );

    // The directory itself swapped for a symlink: the held descriptor still lists the real
    // directory, and opening the name again refuses the link.
    fs::rename(root.join("policies"), base.join("moved")).unwrap();
    symlink(&outside, root.join("policies")).unwrap();
    let listed: Vec<_> = policies
        .entries()
        .unwrap()
        .into_iter()
        .map(|e| e.name)
        .collect();
    assert_eq!(listed, ["p.rhai"], "still the checked directory");
    assert_eq!(
        checked.open_dir(OsStr::new("policies")).map(drop),
        Err(TrustError::Symlink {
            path: root.join("policies")
        })
    );
    let registry = PolicyRegistry::load(&root);
    assert!(matches!(
        registry.source(),
        RegistrySource::Untrusted(_, TrustError::Symlink { .. })
    ));

    // The root's parent swapped for a symlink after the root was opened: reads stay in the
    // checked root.
    fs::remove_file(root.join("policies")).unwrap();
    fs::rename(base.join("moved"), root.join("policies")).unwrap();
    write_private(&root, "policies/p.rhai", POLICY);
    let held = TrustedDir::open_root(&root).unwrap();
    let decoy = base.join("decoy");
    config_root(&decoy);
    write_private(&decoy, "sgconfig.yml", "ruleDirs: [decoy-rules]\n");
    fs::rename(&root, base.join("root-moved")).unwrap();
    symlink(&decoy, &root).unwrap();
    assert_eq!(
        held.read_file(OsStr::new("sgconfig.yml")).unwrap(),
        "ruleDirs:\n  - rules\n"
    );

    // A FIFO named like a policy is refused without waiting for a writer.
    let fifo_root = base.join("fifo-root");
    config_root(&fifo_root);
    nix::unistd::mkfifo(
        &fifo_root.join("policies/fifo.rhai"),
        nix::sys::stat::Mode::from_bits_truncate(0o600),
    )
    .unwrap();
    let registry = PolicyRegistry::load(&fifo_root);
    assert_eq!(registry.policies().len(), 1);
    let problems: Vec<String> = registry
        .problems()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        problems,
        [format!(
            "{}: expected a regular file",
            fifo_root.join("policies/fifo.rhai").display()
        )]
    );
}

fn project_dir_error(sgconfig: &str, prepare: impl FnOnce(&Path)) -> (Vec<String>, Vec<RuleError>) {
    let (_guard, base) = temp();
    let root = base.join("root");
    config_root(&root);
    prepare(&base);
    write_private(&root, "sgconfig.yml", sgconfig);
    let (rules, errors) = load_source(&root_source(&root));
    (rules.ids().to_vec(), errors)
}

#[test]
fn rule_dirs_must_stay_inside_the_root() {
    let outside_rules =
        |base: &Path| write_private(base, "x/other.yml", &RULE.replace("no-bang", "outside"));

    let (ids, errors) = project_dir_error("ruleDirs: [\"../x\"]\n", outside_rules);
    assert!(
        ids.is_empty(),
        "nothing outside the root is loaded: {ids:?}"
    );
    assert_eq!(errors.len(), 1, "{errors:?}");
    let RuleError::Config(ConfigProblem::ProjectDir {
        config,
        line,
        key,
        entry,
        fault,
    }) = &errors[0]
    else {
        panic!("expected a ruleDirs error, got {errors:?}")
    };
    assert!(config.ends_with("root/sgconfig.yml"));
    assert_eq!(
        (*line, *key, entry.as_path(), fault),
        (
            Some(1),
            "ruleDirs",
            Path::new("../x"),
            &DirFault::LeavesRoot
        )
    );
    let message = errors[0].to_string();
    assert!(
        message.contains("sgconfig.yml:1: `ruleDirs` entry \"../x\" leaves the config root through `..`; list a directory inside the config root as a relative path"),
        "{message}"
    );

    // Absolute, on its line of a block list; the valid entry beside it still loads.
    let (ids, errors) = project_dir_error("ruleDirs:\n  - rules\n  - /abs\n", |_| {});
    assert_eq!(ids, ["no-bang"]);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        matches!(
            &errors[0],
            RuleError::Config(ConfigProblem::ProjectDir {
                line: Some(3),
                fault: DirFault::Absolute,
                ..
            })
        ),
        "{errors:?}"
    );

    // `..` deeper inside is allowed as long as it stays in the root; above it is not.
    let (ids, errors) = project_dir_error(
        "ruleDirs: [rules/../rules]\nutilDirs: [rules/../../x]\n",
        outside_rules,
    );
    assert_eq!(ids, ["no-bang"]);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        matches!(
            &errors[0],
            RuleError::Config(ConfigProblem::ProjectDir {
                key: "utilDirs",
                line: Some(2),
                fault: DirFault::LeavesRoot,
                ..
            })
        ),
        "{errors:?}"
    );

    // A symlinked rule directory, even one pointing inside the root, names sgconfig.yml.
    let (ids, errors) = project_dir_error("ruleDirs: [linked/rules]\n", |base| {
        symlink(base.join("root"), base.join("root/linked")).unwrap();
    });
    assert!(ids.is_empty());
    assert_eq!(errors.len(), 1, "{errors:?}");
    let message = errors[0].to_string();
    assert!(
        message.contains(
            "sgconfig.yml:1: `ruleDirs` entry \"linked/rules\" passes through the symbolic link"
        ) && message.contains("root/linked"),
        "{message}"
    );
}

#[test]
fn names_that_are_not_utf8_are_reported_not_skipped() {
    let (_guard, base) = temp();
    let root = base.join("root");
    config_root(&root);
    let bad = OsStr::from_bytes(b"caf\xe9\x1b[31m.rhai");
    fs::write(
        root.join("policies").join(bad),
        POLICY.replace("\"p\"", "\"q\""),
    )
    .unwrap();
    chmod(&root.join("policies").join(bad), 0o600);
    fs::write(
        root.join("rules").join(OsStr::from_bytes(b"r\xff.yml")),
        RULE,
    )
    .unwrap();

    let registry = PolicyRegistry::load(&root);
    assert_eq!(registry.policies().len(), 1, "the sibling still loads");
    let problems: Vec<String> = registry
        .problems()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        problems,
        [format!(
            "{}/caf\\xe9\\x1b[31m.rhai: the file name is not valid UTF-8, so it was not loaded; rename it",
            root.join("policies").display()
        )],
        "named with its bytes escaped, never raw"
    );

    let (rules, errors) = load_source(&root_source(&root));
    assert_eq!(rules.ids(), ["no-bang"]);
    let errors: Vec<String> = errors.iter().map(ToString::to_string).collect();
    assert_eq!(
        errors,
        [format!(
            "{}/r\\xff.yml: the file name is not valid UTF-8, so it was not loaded; rename it",
            root.join("rules").display()
        )]
    );

    let report = root_report(&root);
    assert!(!report.healthy());
    let (status, _, stderr) = cli(&base, &["check", "--config", "root"]);
    assert_eq!(status, ExitStatus::Error);
    assert!(
        stderr.contains("r\\xff.yml: the file name is not valid UTF-8"),
        "{stderr}"
    );
}

#[test]
fn doctor_reports_exactly_what_check_refuses() {
    let (_guard, base) = temp();
    let root = base.join("root");
    config_root(&root);
    let (status, stdout, stderr) = cli(&base, &["doctor", "--config", "root"]);
    assert_eq!(status, ExitStatus::Clean, "{stdout}{stderr}");

    // A rule that parses but does not compile, and one entry leaving the root.
    write_private(
        &root,
        "rules/broken.yml",
        "id: broken\nlanguage: TypeScript\nseverity: warning\nmessage: m\nrule:\n  kind: no_such_kind\n",
    );
    write_private(&root, "sgconfig.yml", "ruleDirs:\n  - rules\n  - ../x\n");
    let (status, _, stderr) = cli(&base, &["check", "--config", "root", "."]);
    assert_eq!(status, ExitStatus::Error, "{stderr}");
    let errors: Vec<&str> = stderr.lines().skip(1).collect();
    assert_eq!(errors.len(), 2, "{stderr}");
    assert!(
        errors
            .iter()
            .any(|e| e.contains("rule `broken` is invalid")),
        "{stderr}"
    );

    let (status, stdout, _) = cli(&base, &["doctor", "--config", "root"]);
    assert_ne!(status, ExitStatus::Clean, "{stdout}");
    for error in &errors {
        assert!(
            stdout.contains(&format!("  problem: {error}\n")),
            "doctor must print check's error {error:?}:\n{stdout}"
        );
    }
    let report = root_report(&root);
    assert_eq!(report.rule_problems, errors);
    assert_eq!(report.rule_files, 2, "both rule files were read");
}

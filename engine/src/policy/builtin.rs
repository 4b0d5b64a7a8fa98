//! The built-in policy pack: the repository's `policies/` (with their fixtures) compiled into the
//! binary, used when no personal config root exists and copied by `init`.

macro_rules! embed {
    ($dir:literal: $($name:literal),+ $(,)?) => {
        &[$(($name, include_str!(concat!("../../../", $dir, "/", $name)))),+]
    };
}

/// The shipped policies, by file name, sorted.
pub const POLICY_FILES: &[(&str, &str)] = embed!("policies":
    "node-project-verification.rhai",
    "pi-native-hooks-verification.rhai",
    "typescript-no-dynamic-import.rhai",
    "typescript-no-non-null-assertion.rhai",
);

/// The shipped policy fixtures and their snapshots (`policies/tests/`), by file name, sorted.
pub const FIXTURE_FILES: &[(&str, &str)] = embed!("policies/tests":
    "node-project-verification.snap",
    "node-project-verification.yml",
    "pi-native-hooks-verification.snap",
    "pi-native-hooks-verification.yml",
    "typescript-no-dynamic-import.snap",
    "typescript-no-dynamic-import.yml",
    "typescript-no-non-null-assertion.snap",
    "typescript-no-non-null-assertion.yml",
);

//! The built-in policy pack: the repository's `policies/` compiled into the binary, used when no
//! personal config root exists.

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


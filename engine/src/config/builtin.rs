//! The built-in default pack: the repository's `rules/` compiled into the binary, used when no
//! personal config root exists.

use super::ConfigFile;
use std::path::PathBuf;

macro_rules! builtin_files {
    ($dir:literal: $($name:literal),+ $(,)?) => {
        &[$(($name, include_str!(concat!("../../../", $dir, "/", $name)))),+]
    };
}

/// The shipped ast-grep rule files, by file name.
pub const RULE_FILES: &[(&str, &str)] = builtin_files!("rules":
    "typescript-no-dynamic-import-ts.yml",
    "typescript-no-dynamic-import-tsx.yml",
    "typescript-no-non-null-assertion-ts.yml",
    "typescript-no-non-null-assertion-tsx.yml",
);

/// The shipped rule files as [`ConfigFile`]s, reported under `rules/<name>`.
pub fn rule_files() -> Vec<ConfigFile> {
    RULE_FILES
        .iter()
        .map(|(name, text)| ConfigFile {
            path: PathBuf::from("rules").join(name),
            text: (*text).to_owned(),
        })
        .collect()
}

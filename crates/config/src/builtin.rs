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
    "typescript-no-console-log-ts.yml",
    "typescript-no-console-log-tsx.yml",
    "typescript-no-debugger-ts.yml",
    "typescript-no-debugger-tsx.yml",
    "typescript-no-dynamic-import-ts.yml",
    "typescript-no-dynamic-import-tsx.yml",
    "typescript-no-elision-placeholder-ts.yml",
    "typescript-no-elision-placeholder-tsx.yml",
    "typescript-no-empty-catch-ts.yml",
    "typescript-no-empty-catch-tsx.yml",
    "typescript-no-explicit-any-ts.yml",
    "typescript-no-explicit-any-tsx.yml",
    "typescript-no-focused-test-ts.yml",
    "typescript-no-focused-test-tsx.yml",
    "typescript-no-lint-suppression-ts.yml",
    "typescript-no-lint-suppression-tsx.yml",
    "typescript-no-non-null-assertion-ts.yml",
    "typescript-no-non-null-assertion-tsx.yml",
    "typescript-no-skipped-test-ts.yml",
    "typescript-no-skipped-test-tsx.yml",
    "typescript-no-ts-suppression-ts.yml",
    "typescript-no-ts-suppression-tsx.yml",
    "typescript-no-unimplemented-stub-ts.yml",
    "typescript-no-unimplemented-stub-tsx.yml",
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

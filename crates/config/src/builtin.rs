//! The built-in default pack: the repository's `rules/` compiled into the binary, used when no
//! personal config root exists.

use super::ConfigFile;
use std::path::PathBuf;

/// The shipped ast-grep rule files, by file name: every `.yml` file of the repository's `rules/`,
/// sorted (listed by the crate's build script).
pub const RULE_FILES: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/rule_files.rs"));

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

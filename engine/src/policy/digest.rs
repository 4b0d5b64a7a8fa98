//! The registry digest: SHA-256 over the sorted paths and contents of the loaded configuration
//! (policies and rule files), identifying exactly what was loaded.

use sha2::{Digest, Sha256};
use std::fmt::Write;

/// Hex SHA-256 over `files` (path relative to the config root, content), sorted by path. Each path
/// and content is length-prefixed, so no two different file sets hash alike.
pub fn registry_digest<'a>(files: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut files: Vec<(&str, &str)> = files.into_iter().collect();
    files.sort_unstable();
    let mut hasher = Sha256::new();
    for (path, text) in files {
        for part in [path, text] {
            hasher.update((part.len() as u64).to_le_bytes());
            hasher.update(part.as_bytes());
        }
    }
    hasher
        .finalize()
        .iter()
        .fold(String::with_capacity(64), |mut hex, byte| {
            let _ = write!(hex, "{byte:02x}");
            hex
        })
}

#[cfg(test)]
mod tests {
    use super::registry_digest;

    #[test]
    fn digest_is_order_independent_and_unambiguous() {
        let a = registry_digest([("policies/a.rhai", "x"), ("rules/b.yml", "y")]);
        let b = registry_digest([("rules/b.yml", "y"), ("policies/a.rhai", "x")]);
        assert_eq!(a, b);
        assert_eq!(a.len(), 64);
        assert_ne!(
            registry_digest([("ab", "c")]),
            registry_digest([("a", "bc")])
        );
        assert_ne!(
            a,
            registry_digest([("policies/a.rhai", "x!"), ("rules/b.yml", "y")])
        );
    }
}

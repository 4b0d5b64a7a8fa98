//! Owns [`ContentHash`], the one hash that identifies a file's bytes: the workspace fingerprint
//! (what changed between two snapshots) and the analysis cache (whether a file must be parsed
//! again) both key on it.

use std::fmt;

/// The xxh3-128 hash of a file's bytes (or of a symlink's target). Not cryptographic: it tells
/// contents apart, it does not resist a forger. `Display` renders it as 32 lowercase hex digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ContentHash(pub u128);

impl ContentHash {
    /// The hash of `bytes`.
    pub fn of(bytes: &[u8]) -> Self {
        ContentHash(xxhash_rust::xxh3::xxh3_128(bytes))
    }
}

impl fmt::Display for ContentHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:032x}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::ContentHash;

    #[test]
    fn displays_as_32_hex_digits_and_tells_contents_apart() {
        let a = ContentHash::of(b"a");
        assert_eq!(a.to_string().len(), 32);
        assert!(a.to_string().chars().all(|c| c.is_ascii_hexdigit()));
        assert_eq!(a, ContentHash::of(b"a"));
        assert_ne!(a, ContentHash::of(b"b"));
        assert_eq!(ContentHash(0xab).to_string(), format!("{:032x}", 0xab));
    }
}

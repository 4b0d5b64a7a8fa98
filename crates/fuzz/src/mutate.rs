//! Owns the smoke test's inputs: each target's committed seeds and regressions, and a fixed
//! number of deterministic mutations of them (libFuzzer's simplest moves: flip a bit, set a
//! byte, insert, delete, duplicate, splice from another seed). Seeded, so a failure reproduces;
//! the input that failed is named and can be copied into `fuzz/regressions/<target>/`.

use std::path::{Path, PathBuf};

/// The files of `dir` (sorted by name); none when it does not exist.
pub fn inputs_in(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<(PathBuf, Vec<u8>)> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.is_file())
        .filter_map(|path| std::fs::read(&path).ok().map(|bytes| (path, bytes)))
        .collect();
    files.sort();
    files
}

/// xorshift64*: small, seeded, good enough to pick mutations.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed` (zero is replaced, xorshift never leaves it).
    pub fn new(seed: u64) -> Self {
        Self(seed.max(1))
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number below `n` (0 for `n` = 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        // The remainder's bias is irrelevant for choosing mutations.
        usize::try_from(self.next() % n as u64).unwrap_or(0)
    }
}

/// `seed` after one to four mutations; `others` give the spliced bytes.
pub fn mutate(rng: &mut Rng, seed: &[u8], others: &[&[u8]]) -> Vec<u8> {
    let mut bytes = seed.to_vec();
    for _ in 0..=rng.below(4) {
        let at = rng.below(bytes.len() + 1);
        match rng.below(6) {
            0 if !bytes.is_empty() => {
                let i = rng.below(bytes.len());
                bytes[i] ^= 1 << rng.below(8);
            }
            1 if !bytes.is_empty() => {
                let i = rng.below(bytes.len());
                bytes[i] = u8::try_from(rng.below(256)).unwrap_or(0);
            }
            2 => {
                let inserted: Vec<u8> = (0..=rng.below(16))
                    .map(|_| u8::try_from(rng.below(256)).unwrap_or(0))
                    .collect();
                bytes.splice(at..at, inserted);
            }
            3 => {
                let end = (at + rng.below(32)).min(bytes.len());
                bytes.drain(at..end);
            }
            4 => {
                let end = (at + rng.below(64)).min(bytes.len());
                let copy = bytes[at..end].to_vec();
                bytes.splice(at..at, copy);
            }
            _ => {
                if let Some(other) = others.get(rng.below(others.len())) {
                    let from = rng.below(other.len() + 1);
                    let end = (from + rng.below(256)).min(other.len());
                    bytes.splice(at..at, other[from..end].iter().copied());
                }
            }
        }
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::{Rng, mutate};

    #[test]
    fn mutations_are_deterministic_and_change_the_input() {
        let seed = b"[diagnostic_block]\nmax_tokens = 800\n";
        let first: Vec<Vec<u8>> = {
            let mut rng = Rng::new(7);
            (0..50)
                .map(|_| mutate(&mut rng, seed, &[b"other"]))
                .collect()
        };
        let again: Vec<Vec<u8>> = {
            let mut rng = Rng::new(7);
            (0..50)
                .map(|_| mutate(&mut rng, seed, &[b"other"]))
                .collect()
        };
        assert_eq!(first, again);
        assert!(first.iter().filter(|m| m.as_slice() != seed).count() > 40);
    }
}

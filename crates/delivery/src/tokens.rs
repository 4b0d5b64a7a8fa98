//! Owns how the diagnostic block is measured: model tokens in the `o200k_base` encoding (the
//! encoding of current GPT models, a close stand-in for any model's tokenizer on this kind of
//! text), counted with `tiktoken-rs`, whose encoding tables ship inside the crate, so nothing is
//! downloaded at build or run time.
//!
//! Counting is skipped whenever it cannot change the answer. An `o200k_base` token is at least one
//! byte, so a text never has more tokens than bytes: [`measure`] answers a text whose byte length
//! is within the budget with that length as a bound ([`TokenCount::AtMost`]) and counts only a
//! longer one ([`TokenCount::Exact`]).
//!
//! The encoder (about 45 MiB of memory and a few tenths of a second of CPU: 200,000 ranks are
//! decoded from the embedded text and the split pattern compiled) is therefore built by the first
//! count a process needs, on the thread that needs it (in a session, a worker of the wave
//! pipeline, never Node's), and never before: a session whose blocks are all within their budget
//! in bytes never builds it. Every later count reuses it.

use std::cell::Cell;
use std::fmt;
use std::sync::OnceLock;
use tiktoken_rs::CoreBPE;

/// A text's size in `o200k_base` tokens, as far as it was worth knowing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenCount {
    /// Counted with the encoder: exactly this many tokens.
    Exact(usize),
    /// Not counted: at most this many tokens, the text's length in bytes (no token is shorter than
    /// a byte).
    AtMost(usize),
}

impl TokenCount {
    /// The most tokens the text can have: the count when exact, else the bound.
    pub fn upper_bound(self) -> usize {
        match self {
            Self::Exact(n) | Self::AtMost(n) => n,
        }
    }

    /// The count, when the text was counted.
    pub fn exact(self) -> Option<usize> {
        match self {
            Self::Exact(n) => Some(n),
            Self::AtMost(_) => None,
        }
    }

    /// Whether the text is certainly within `budget` tokens.
    pub fn fits(self, budget: usize) -> bool {
        self.upper_bound() <= budget
    }
}

impl fmt::Display for TokenCount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Exact(n) => write!(f, "{n}"),
            Self::AtMost(n) => write!(f, "at most {n}"),
        }
    }
}

/// The encoder, built on first use and shared by every later count; holds `None` only if the
/// tables embedded in the crate failed to parse.
static ENCODER: OnceLock<Option<CoreBPE>> = OnceLock::new();

fn encoder() -> Option<&'static CoreBPE> {
    ENCODER
        .get_or_init(|| tiktoken_rs::o200k_base().ok())
        .as_ref()
}

/// Whether this process has built the encoder (asking does not build it).
pub fn is_built() -> bool {
    ENCODER.get().is_some()
}

thread_local! {
    /// Texts this thread has counted with the encoder.
    static COUNTED: Cell<u64> = const { Cell::new(0) };
}

/// How many texts the calling thread has counted with the encoder (building it, the first
/// time). A caller compares it before and after a measurement to see whether the encoder was
/// needed at all, which [`is_built`] cannot show once any thread has built it.
pub fn exact_counts_on_this_thread() -> u64 {
    COUNTED.with(Cell::get)
}

/// The exact count, or `None` without an encoder.
fn exact(text: &str) -> Option<usize> {
    COUNTED.with(|n| n.set(n.get() + 1));
    encoder().map(|bpe| bpe.count_ordinary(text))
}

/// The size of `text` against `budget`: [`TokenCount::AtMost`] its byte length when that is within
/// the budget, without touching the encoder; else [`TokenCount::Exact`] its count. Without an
/// encoder (its embedded tables failed to parse) every byte counts as a token: an overestimate,
/// so a block only gets shorter.
pub fn measure(text: &str, budget: usize) -> TokenCount {
    if text.len() <= budget {
        return TokenCount::AtMost(text.len());
    }
    exact(text).map_or(TokenCount::AtMost(text.len()), TokenCount::Exact)
}

/// The number of `o200k_base` tokens of `text`, always counted (building the encoder on the first
/// call). Text that looks like a special token (`<|endoftext|>`) is counted as ordinary text, as a
/// model receives it in a tool result.
///
/// Without an encoder every byte counts as a token, as in [`measure`].
pub fn count(text: &str) -> usize {
    exact(text).unwrap_or(text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_o200k_tokens_and_special_tokens_as_text() {
        assert_eq!(count(""), 0);
        assert_eq!(count("hello world"), 2);
        // Counted as the characters it is made of, never as one special token.
        assert!(count("<|endoftext|>") > 1);
        assert!(is_built());
    }

    #[test]
    fn a_text_within_the_budget_in_bytes_is_not_counted() {
        let text = "hello world";
        let before = exact_counts_on_this_thread();
        assert_eq!(measure(text, 11), TokenCount::AtMost(11));
        assert_eq!(measure(text, 1_000), TokenCount::AtMost(11));
        assert_eq!(exact_counts_on_this_thread(), before, "no count was made");

        assert_eq!(measure(text, 10), TokenCount::Exact(2));
        assert_eq!(exact_counts_on_this_thread(), before + 1);
        assert!(measure(text, 10).fits(10));
        assert!(!measure(&"ab ".repeat(100), 10).fits(10));
    }

    #[test]
    fn a_count_says_whether_it_is_exact() {
        assert_eq!(TokenCount::Exact(3).exact(), Some(3));
        assert_eq!(TokenCount::AtMost(3).exact(), None);
        assert_eq!(TokenCount::AtMost(3).upper_bound(), 3);
        assert_eq!(TokenCount::AtMost(3).to_string(), "at most 3");
        assert_eq!(TokenCount::Exact(3).to_string(), "3");
    }
}

//! Owns how the diagnostic block is measured: model tokens in the `o200k_base` encoding (the
//! encoding of current GPT models, a close stand-in for any model's tokenizer on this kind of
//! text), counted with `tiktoken-rs`, whose encoding tables ship inside the crate, so nothing is
//! downloaded at build or run time.
//!
//! The encoder is built once per process (about a second: 200,000 ranks are decoded from the
//! embedded text and the split pattern compiled), by [`warm`] off the caller's thread when a wave
//! coordinator starts, else by the first count; every later count reuses it.

use std::sync::OnceLock;
use tiktoken_rs::CoreBPE;

/// The encoder, built on first use and shared by every later count; `None` only if the tables
/// embedded in the crate failed to parse.
fn encoder() -> Option<&'static CoreBPE> {
    static ENCODER: OnceLock<Option<CoreBPE>> = OnceLock::new();
    ENCODER
        .get_or_init(|| tiktoken_rs::o200k_base().ok())
        .as_ref()
}

/// Builds the encoder if no count has yet. Blocking: run it on a blocking thread at start-up,
/// so the first block is not delayed by the build.
pub fn warm() {
    let _ = encoder();
}

/// The number of `o200k_base` tokens of `text`. Text that looks like a special token
/// (`<|endoftext|>`) is counted as ordinary text, as a model receives it in a tool result.
///
/// Without an encoder (its embedded tables failed to parse, which the tests rule out) every byte
/// counts as a token: an overestimate, so the block only gets shorter.
pub fn count(text: &str) -> usize {
    encoder().map_or(text.len(), |bpe| bpe.count_ordinary(text))
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
    }
}

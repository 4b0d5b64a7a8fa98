//! The process-wide cache of `affects(path)` answers, keyed by (policy digest, function, path).
//!
//! A predicate sees nothing but the path and its own script (the sandbox has no time, files or
//! randomness), so its answer is a function of the policy's content, the function and the path:
//! keyed by the SHA-256 of the policy text, the cache needs no invalidation — an edited policy has
//! another digest and misses. Only decided answers (`true`/`false`) are kept; failures and budget
//! stops are not, so they are retried. The cache holds at most [`MAX_ENTRIES`] answers and
//! [`MAX_KEY_BYTES`] bytes of keys, forgetting the oldest first; paths longer than
//! [`MAX_PATH_BYTES`] are not cached.

use std::collections::{HashMap, VecDeque};
use std::sync::{LazyLock, Mutex};

/// Answers kept at most.
pub(crate) const MAX_ENTRIES: usize = 8_192;
/// Bytes of keys kept at most.
pub(crate) const MAX_KEY_BYTES: usize = 2 * 1024 * 1024;
/// Longer paths are not cached.
pub(crate) const MAX_PATH_BYTES: usize = 1_024;

#[derive(Default)]
struct Cache {
    answers: HashMap<String, bool>,
    order: VecDeque<String>,
    key_bytes: usize,
}

static CACHE: LazyLock<Mutex<Cache>> = LazyLock::new(Mutex::default);

fn key(digest: &str, function: &str, path: &str) -> String {
    format!("{digest}\0{function}\0{path}")
}

/// The cached answer of `function` of the policy with `digest` for `path`.
pub(crate) fn get(digest: &str, function: &str, path: &str) -> Option<bool> {
    if path.len() > MAX_PATH_BYTES {
        return None;
    }
    let cache = CACHE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    cache.answers.get(&key(digest, function, path)).copied()
}

/// Remembers `answer`, forgetting the oldest answers beyond the bounds.
pub(crate) fn put(digest: &str, function: &str, path: &str, answer: bool) {
    if path.len() > MAX_PATH_BYTES {
        return;
    }
    let key = key(digest, function, path);
    let mut cache = CACHE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if cache.answers.insert(key.clone(), answer).is_some() {
        return;
    }
    cache.key_bytes += key.len();
    cache.order.push_back(key);
    while cache.order.len() > MAX_ENTRIES || cache.key_bytes > MAX_KEY_BYTES {
        let Some(oldest) = cache.order.pop_front() else {
            break;
        };
        cache.key_bytes -= oldest.len();
        cache.answers.remove(&oldest);
    }
}

//! Rendered text (the diagnostic block, `/hooks-status` and `/hooks-doctor`, `check`, `doctor`
//! and `test` output, the continuation message) is compared with `insta` snapshots kept in
//! `tests/snapshots/`, one file per assertion named after the test's module and the
//! snapshot's name. Review a change with `cargo insta review`, or rewrite them with
//! `INSTA_UPDATE=always cargo test -p pi-native-hooks-tests --test it` and read the diff.
//!
//! A snapshot holds nothing that differs between runs: `assert_snapshot!(name, value, redact =
//! paths)` compares `value` through insta filters that replace the given temporary paths with
//! their placeholders, measured durations, elapsed times and content hashes ([`filters`]). Text
//! a test compares itself goes through the same filters with [`redact`].

use regex::Regex;
use std::path::Path;

/// `insta::assert_snapshot!(name, value)` against `tests/snapshots/`; with `redact = paths` (a
/// `&[(&Path, &str)]` of paths and their placeholders, maybe empty), through the [`filters`] of
/// those paths.
macro_rules! assert_snapshot {
    ($name:expr, $value:expr, redact = $paths:expr $(,)?) => {{
        $crate::support::snapshot::redacting($paths)
            .bind(|| insta::assert_snapshot!($name, $value));
    }};
    ($name:expr, $value:expr $(,)?) => {{
        $crate::support::snapshot::settings().bind(|| insta::assert_snapshot!($name, $value));
    }};
}
pub(crate) use assert_snapshot;

/// A measured duration, `123 µs`.
const DURATION: (&str, &str) = ("[0-9]+ µs", "[duration]");
/// An elapsed time `check` prints: `in 850µs`, `in 12ms`, `in 1.25s`, the unit ending the word.
const ELAPSED: (&str, &str) = (r" in [0-9][0-9.]*(?:µs|ms|s)\b", " in [elapsed]");
/// A fingerprint or digest: a run of 32 or more hex digits.
const HASH: (&str, &str) = ("[0-9a-fA-F]{32,}", "[hash]");

/// The filters of a redacted snapshot, as (regex, replacement) pairs in the order they apply:
/// each `(path, placeholder)` (its canonical form too), longest first so that a path is never
/// partly replaced by one of its ancestors; then every measured duration by `[duration]`, every
/// elapsed time by `in [elapsed]` and every run of 32 or more hex digits (a fingerprint or
/// digest) by `[hash]`.
pub fn filters(paths: &[(&Path, &str)]) -> Vec<(String, String)> {
    let mut replacements: Vec<(String, &str)> = Vec::new();
    for (path, placeholder) in paths {
        replacements.push((path.display().to_string(), placeholder));
        if let Ok(canonical) = path.canonicalize() {
            replacements.push((canonical.display().to_string(), placeholder));
        }
    }
    replacements.sort_by_key(|(path, _)| std::cmp::Reverse(path.len()));
    replacements
        .into_iter()
        .map(|(path, placeholder)| (regex::escape(&path), placeholder.replace('$', "$$")))
        .chain([DURATION, ELAPSED, HASH].map(|(regex, with)| (regex.to_owned(), with.to_owned())))
        .collect()
}

/// insta's settings for a snapshot in `tests/snapshots/`.
pub fn settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(super::test_data("snapshots"));
    settings
}

/// [`settings`] with the [`filters`] of `paths`.
pub fn redacting(paths: &[(&Path, &str)]) -> insta::Settings {
    let mut settings = settings();
    for (regex, replacement) in filters(paths) {
        settings.add_filter(&regex, replacement);
    }
    settings
}

/// `text` through the [`filters`] of `paths`, as a redacted snapshot would compare it.
pub fn redact(text: &str, paths: &[(&Path, &str)]) -> String {
    filters(paths)
        .into_iter()
        .fold(text.to_owned(), |text, (regex, replacement)| {
            let regex = Regex::new(&regex).expect("a filter is a valid regex");
            regex.replace_all(&text, replacement.as_str()).into_owned()
        })
}

#[test]
fn redaction_replaces_paths_durations_and_hashes_only() {
    let text = "root /tmp/x/pi-native-hooks/policies/a.rhai in /tmp/x, last 1234 µs, \
                not 300 ms, digest 0123456789abcdef0123456789abcdef, id deadbeef, \
                analyzed in 12ms: in 850µs or in 1.25s, not in 3 steps or in 2sec";
    let paths = [
        (Path::new("/tmp/x"), "[home]"),
        (Path::new("/tmp/x/pi-native-hooks"), "[root]"),
    ];
    let redacted = "root [root]/policies/a.rhai in [home], last [duration], not 300 ms, digest \
                    [hash], id deadbeef, analyzed in [elapsed]: in [elapsed] or in [elapsed], \
                    not in 3 steps or in 2sec";
    assert_eq!(redact(text, &paths), redacted);
    redacting(&paths).bind(|| insta::assert_snapshot!(text, @r"root [root]/policies/a.rhai in [home], last [duration], not 300 ms, digest [hash], id deadbeef, analyzed in [elapsed]: in [elapsed] or in [elapsed], not in 3 steps or in 2sec"));
}

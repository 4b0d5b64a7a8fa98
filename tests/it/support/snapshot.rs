//! Rendered text (the diagnostic block, `/hooks-status` and `/hooks-doctor`, `check`, `doctor`
//! and `test` output, the continuation message) is compared with `insta` snapshots kept in
//! `tests/snapshots/`, one file per assertion named after the test's module and the
//! snapshot's name. Review a change with `cargo insta review`, or rewrite them with
//! `INSTA_UPDATE=always cargo test -p pi-native-hooks-engine --test it` and read the diff.
//!
//! A snapshot holds nothing that differs between runs: [`redact`] replaces temporary paths,
//! measured durations and content hashes with placeholders first.

use std::path::Path;

/// `insta::assert_snapshot!(name, value)` against `tests/snapshots/`.
macro_rules! assert_snapshot {
    ($name:expr, $value:expr $(,)?) => {{
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path($crate::support::test_data("snapshots"));
        settings.bind(|| insta::assert_snapshot!($name, $value));
    }};
}
pub(crate) use assert_snapshot;

/// `text` with each `(path, placeholder)` replaced (its canonical form too), every measured
/// duration (`123 µs`) replaced by `[duration]`, every elapsed time `check` prints (`in 850µs`,
/// `in 12ms`, `in 1.25s`) by `in [elapsed]` and every run of 32 or more hex digits (a fingerprint
/// or digest) by `[hash]`.
pub fn redact(text: &str, paths: &[(&Path, &str)]) -> String {
    let mut replacements: Vec<(String, &str)> = Vec::new();
    for (path, placeholder) in paths {
        replacements.push((path.display().to_string(), placeholder));
        if let Ok(canonical) = path.canonicalize() {
            replacements.push((canonical.display().to_string(), placeholder));
        }
    }
    // Longest first, so a path is never partly replaced by one of its ancestors.
    replacements.sort_by_key(|(path, _)| std::cmp::Reverse(path.len()));
    let mut out = text.to_owned();
    for (path, placeholder) in &replacements {
        out = out.replace(path.as_str(), placeholder);
    }
    redact_hashes(&redact_elapsed(&redact_durations(&out)))
}

/// Replaces `in <digits>[.<digits>]<unit>` (`µs`, `ms` or `s`, ending the word) with
/// `in [elapsed]`.
pub fn redact_elapsed(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(" in ") {
        let after = &rest[at + " in ".len()..];
        let number = after
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(after.len());
        let unit = ["µs", "ms", "s"]
            .into_iter()
            .find(|unit| after[number..].starts_with(unit))
            .filter(|unit| {
                number > 0
                    && after.starts_with(|c: char| c.is_ascii_digit())
                    && !after[number + unit.len()..].starts_with(|c: char| c.is_alphanumeric())
            });
        if let Some(unit) = unit {
            out.push_str(&rest[..at]);
            out.push_str(" in [elapsed]");
            rest = &after[number + unit.len()..];
        } else {
            out.push_str(&rest[..at + " in ".len()]);
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// Replaces `<digits> µs` with `[duration]`.
fn redact_durations(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(" µs") {
        let digits = rest[..at]
            .bytes()
            .rev()
            .take_while(u8::is_ascii_digit)
            .count();
        if digits == 0 {
            out.push_str(&rest[..at + " µs".len()]);
        } else {
            out.push_str(&rest[..at - digits]);
            out.push_str("[duration]");
        }
        rest = &rest[at + " µs".len()..];
    }
    out.push_str(rest);
    out
}

/// Replaces every run of 32 or more hex digits with `[hash]`.
fn redact_hashes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut run = String::new();
    for c in text.chars() {
        if c.is_ascii_hexdigit() {
            run.push(c);
            continue;
        }
        out.push_str(if run.len() >= 32 { "[hash]" } else { &run });
        run.clear();
        out.push(c);
    }
    out.push_str(if run.len() >= 32 { "[hash]" } else { &run });
    out
}

#[test]
fn redaction_replaces_paths_durations_and_hashes_only() {
    let text = "root /tmp/x/pi-native-hooks/policies/a.rhai in /tmp/x, last 1234 µs, \
                not 300 ms, digest 0123456789abcdef0123456789abcdef, id deadbeef, \
                analyzed in 12ms: in 850µs or in 1.25s, not in 3 steps or in 2sec";
    assert_eq!(
        redact(
            text,
            &[
                (Path::new("/tmp/x"), "[home]"),
                (Path::new("/tmp/x/pi-native-hooks"), "[root]"),
            ]
        ),
        "root [root]/policies/a.rhai in [home], last [duration], not 300 ms, digest [hash], id \
         deadbeef, analyzed in [elapsed]: in [elapsed] or in [elapsed], not in 3 steps or in 2sec"
    );
}

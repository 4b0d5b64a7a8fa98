//! The words and texts generated code is made of: the folders files go to, the nouns and verbs
//! of identifiers, string literals (non-ASCII among them) and the reasons suppressions give.

/// Directories the files are spread over.
pub(super) const AREAS: &[&str] = &[
    "api",
    "components",
    "domain",
    "hooks",
    "services",
    "state",
    "utils",
    "views",
];

pub(super) const NOUNS: &[&str] = &[
    "user", "order", "invoice", "session", "widget", "cart", "profile", "report", "metric",
    "token", "route", "query", "event", "payload", "account", "ticket", "budget", "channel",
    "device", "feature",
];

pub(super) const VERBS: &[&str] = &[
    "load", "fetch", "build", "parse", "render", "resolve", "compute", "merge", "sync", "validate",
    "format", "select", "update", "remove", "track",
];

pub(super) const TEXTS: &[&str] = &[
    "Grüße aus München",
    "日本語のテキスト",
    "Ünïcödé ✓",
    "🎉 launch day",
    "Привет, мир",
    "naïve café",
    "données reçues",
    "Ελληνικά",
    "plain ASCII text",
    "status: ok",
];

pub(super) const REASONS: &[&str] = &[
    "checked by the caller",
    "the map is filled in the constructor",
    "the plugin is optional and loaded on demand",
    "code-split route",
    "guarded two lines above",
    "legacy module, tracked in the migration plan",
];

pub(super) fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

//! Owns [`AnalyzerKey`], the name of an analyzer and of the snapshots it produces. A config
//! source names its analyzer ([`ConfigSource::analyzer_key`](super::ConfigSource::analyzer_key)).

use serde::Serialize;
use std::borrow::Borrow;
use std::fmt;

/// The name of an analyzer and of every snapshot it produces, `family:variant`:
/// `ast-grep:personal` for the rules of a config root, `ast-grep:builtin` for the built-in rules.
/// A diagnostic policy names the snapshots it consumes with a selector, either a whole key or a
/// family (`ast-grep`), matched by [`AnalyzerKey::is_selected_by`]. Keys are not validated: an
/// analyzer is registered under any name, and one that no policy selects is simply not consumed.
/// It serializes as the plain string.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct AnalyzerKey(String);

impl AnalyzerKey {
    /// The analyzer of a config root's own rules.
    pub fn personal() -> Self {
        AnalyzerKey("ast-grep:personal".to_owned())
    }

    /// The analyzer of the built-in rules (no config root).
    pub fn builtin() -> Self {
        AnalyzerKey("ast-grep:builtin".to_owned())
    }

    /// The key as a string.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// True when a policy's `ANALYZER` `selector` names this key: the whole key, or its family
    /// (the part before a `:`), so `ast-grep` selects `ast-grep:personal` but not `ast-grepx`.
    pub fn is_selected_by(&self, selector: &str) -> bool {
        self.0 == selector
            || self
                .0
                .strip_prefix(selector)
                .is_some_and(|rest| rest.starts_with(':'))
    }
}

impl From<&str> for AnalyzerKey {
    fn from(key: &str) -> Self {
        AnalyzerKey(key.to_owned())
    }
}

impl From<String> for AnalyzerKey {
    fn from(key: String) -> Self {
        AnalyzerKey(key)
    }
}

impl Borrow<str> for AnalyzerKey {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for AnalyzerKey {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl PartialEq<str> for AnalyzerKey {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for AnalyzerKey {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl fmt::Display for AnalyzerKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::AnalyzerKey;

    #[test]
    fn a_family_or_the_whole_key_selects_it() {
        let key = AnalyzerKey::personal();
        assert!(key.is_selected_by("ast-grep"));
        assert!(key.is_selected_by("ast-grep:personal"));
        assert!(!key.is_selected_by("ast-grep:builtin"));
        assert!(!key.is_selected_by("ast"));
        assert!(!AnalyzerKey::from("ast-grepx:personal").is_selected_by("ast-grep"));
        assert_eq!(AnalyzerKey::builtin().to_string(), "ast-grep:builtin");
    }
}

//! Owns the identity of a diagnostic: an xxh3-128 over its policy, rule, path, range and the hash
//! of the text it matched. Two waves that find the same code at the same place produce the same
//! fingerprint; editing the matched text or moving it produces a new one.

use pi_native_hooks_analysis::AnalysisSnapshot;
use pi_native_hooks_analysis::PolicyDiagnostic;
use std::collections::HashMap;
use std::fmt;

/// The identity of one diagnostic; `Display` renders 32 lowercase hex digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fingerprint(pub u128);

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:032x}", self.0)
    }
}

impl Fingerprint {
    /// The fingerprint of `diagnostic` whose matched text hashes to `text_hash`.
    pub fn of(diagnostic: &PolicyDiagnostic, text_hash: &str) -> Self {
        let d = diagnostic;
        let fields = [
            d.policy.as_str(),
            d.rule.as_str(),
            d.path.as_str(),
            &d.line.to_string(),
            &d.column.to_string(),
            &d.end_line.to_string(),
            &d.end_column.to_string(),
            text_hash,
        ];
        let mut bytes = Vec::with_capacity(fields.iter().map(|f| f.len() + 1).sum());
        for field in fields {
            bytes.extend_from_slice(field.as_bytes());
            bytes.push(0);
        }
        Self(xxhash_rust::xxh3::xxh3_128(&bytes))
    }
}

/// A diagnostic with its fingerprint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyedDiagnostic {
    /// The identity used for deduplication.
    pub fingerprint: Fingerprint,
    /// The diagnostic as the policy produced it.
    pub diagnostic: PolicyDiagnostic,
}

/// Finds the matched-text hash of the finding a diagnostic points at.
///
/// Policies report 1-based positions; findings are 0-based. A diagnostic that does not start at
/// a finding of its rule (a policy may point elsewhere) is identified by the hash of its message.
pub struct FindingIndex<'a> {
    by_start: HashMap<(&'a str, &'a str, usize, usize), &'a str>,
}

impl<'a> FindingIndex<'a> {
    /// Indexes the findings of `snapshot` by path, rule and start position.
    pub fn new(snapshot: &'a AnalysisSnapshot) -> Self {
        let by_start = snapshot
            .findings
            .iter()
            .map(|f| {
                let start = f.range.start;
                (
                    (f.path.as_str(), f.rule.as_str(), start.line, start.column),
                    f.text_hash.as_str(),
                )
            })
            .collect();
        Self { by_start }
    }

    /// The fingerprint of `diagnostic`, using the text hash of its finding when there is one.
    pub fn key(&self, diagnostic: PolicyDiagnostic) -> KeyedDiagnostic {
        let start = (
            diagnostic.path.as_str(),
            diagnostic.rule.as_str(),
            diagnostic.line.saturating_sub(1),
            diagnostic.column.saturating_sub(1),
        );
        let fingerprint = if let Some(text_hash) = self.by_start.get(&start) {
            Fingerprint::of(&diagnostic, text_hash)
        } else {
            let message = xxhash_rust::xxh3::xxh3_64(diagnostic.message.as_bytes());
            Fingerprint::of(&diagnostic, &format!("message:{message:016x}"))
        };
        KeyedDiagnostic {
            fingerprint,
            diagnostic,
        }
    }
}

#[cfg(test)]
mod tests {
    //! Fingerprints: every identifying field counts, and the finding index keys a diagnostic by
    //! its matched text when it sits on a finding.

    use super::*;
    use crate::test_support::diagnostic;
    use pi_native_hooks_test_support::finding;

    #[test]
    fn fingerprints_change_with_every_identifying_field() {
        let base = diagnostic("p", "a.ts", 1, "m");
        let fp = Fingerprint::of(&base, "t");
        assert_eq!(fp, Fingerprint::of(&base.clone(), "t"));
        assert_ne!(fp, Fingerprint::of(&base, "other text"));
        for changed in [
            PolicyDiagnostic {
                policy: "q".into(),
                ..base.clone()
            },
            PolicyDiagnostic {
                rule: "s".into(),
                ..base.clone()
            },
            PolicyDiagnostic {
                path: "b.ts".into(),
                ..base.clone()
            },
            PolicyDiagnostic {
                line: 2,
                ..base.clone()
            },
            PolicyDiagnostic {
                end_column: 9,
                ..base.clone()
            },
        ] {
            assert_ne!(fp, Fingerprint::of(&changed, "t"), "{changed:?}");
        }
        assert_eq!(fp.to_string().len(), 32);
    }

    #[test]
    fn the_finding_index_uses_the_matched_text_hash_or_the_message() {
        let snapshot = AnalysisSnapshot {
            findings: vec![finding("r", "a.ts", (0, 0), (0, 3), "abc")],
            ..AnalysisSnapshot::default()
        };
        let index = FindingIndex::new(&snapshot);
        let at_finding = diagnostic("p", "a.ts", 1, "m");
        assert_eq!(
            index.key(at_finding.clone()).fingerprint,
            Fingerprint::of(&at_finding, "abc")
        );
        let elsewhere = diagnostic("p", "a.ts", 7, "m");
        let key = index.key(elsewhere.clone()).fingerprint;
        assert_ne!(key, Fingerprint::of(&elsewhere, "abc"));
        assert_ne!(
            key,
            index
                .key(diagnostic("p", "a.ts", 7, "other message"))
                .fingerprint
        );
    }
}

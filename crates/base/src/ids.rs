//! Owns the identities that are names given by someone else: [`PolicyId`] (a policy's `ID`),
//! [`RuleId`] (an ast-grep rule's `id`) and [`CallId`] (the agent's id of a tool call). Each is
//! its own type so one is never passed where another is meant; each serializes as the plain
//! string, so JSON output, state entries and snapshots are the same as with a `String`.
//!
//! It also owns [`SharedText`], the one text many values carry (a rule's message and note in
//! each of its findings). All of them hold their text behind an `Arc<str>`: a finding, a
//! diagnostic or a state entry that names a rule clones a reference, not the text, so a `check`
//! over a large repository holds each rule's texts once rather than once per finding.

use serde::{Deserialize, Serialize};
use std::borrow::Borrow;
use std::fmt;
use std::sync::Arc;

/// Declares a shared immutable string type: transparent serde, `Display`, `Borrow<str>`,
/// comparisons with `str`, and conversions from `String`/`&str`. The text is not validated here:
/// where an id has a syntax (a policy's `ID`), the loader that reads it checks it and reports the
/// file.
macro_rules! string_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(Arc<str>);

        impl $name {
            /// The text exactly as given; nothing here validates it.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl From<String> for $name {
            fn from(id: String) -> Self {
                Self(Arc::from(id))
            }
        }

        impl From<&str> for $name {
            fn from(id: &str) -> Self {
                Self(Arc::from(id))
            }
        }

        impl From<&String> for $name {
            fn from(id: &String) -> Self {
                Self(Arc::from(id.as_str()))
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> Self {
                String::from(&*id.0)
            }
        }

        impl PartialEq<String> for $name {
            fn eq(&self, other: &String) -> bool {
                *self.0 == **other
            }
        }

        // As rolldown's `ModuleId`: an id reads as the text it is wherever a `&str` is taken.
        impl std::ops::Deref for $name {
            type Target = str;

            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                *self.0 == *other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                *self.0 == **other
            }
        }

        // Debug is the string's, so messages that quote an id with `{:?}` read as before.
        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.0, f)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

string_id! {
    /// A policy's `ID`: unique among the policies of one registry, lowercase letters, digits and
    /// `-` (checked when the policy's contract is read). Diagnostics, failures, requirements and
    /// waivers name their policy by it.
    PolicyId
}

string_id! {
    /// An ast-grep rule's `id` (`typescript-no-non-null-assertion-ts`), as the rule file declares
    /// it. Findings and diagnostics name their rule by it; a diagnostic policy lists the ones it
    /// reports in `RULES`.
    RuleId
}

string_id! {
    /// A text many values share, cloned by reference: a rule's message (when it has no
    /// metavariable to fill in) and its note, carried by each of the rule's findings.
    SharedText
}

string_id! {
    /// The agent's id of one tool call, unique within a session as the agent assigns it; opaque
    /// to the engine. It ties a tool's result to its call, evidence and waivers to the call that
    /// produced them.
    CallId
}

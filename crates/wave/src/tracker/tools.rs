//! Owns how a tool call is classified for the wave: read-only (`read`, `grep`, `find`, `ls`, and
//! the tools the settings file declares read-only),
//! this package's own tools, `write`/`edit` with a known target path, or a call that may change
//! anything (`bash`, a `write`/`edit` without a usable path, and every unknown tool).

use pi_native_hooks_analysis::EditHint;
use pi_native_hooks_workspace::normalize_lexically;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// What a tool call may do to the workspace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToolClass {
    /// A known read-only tool: no snapshot, no analysis.
    ReadOnly,
    /// One of this package's own tools (e.g. `pi_hooks_waive_verification`): never mutates files.
    Own,
    /// `write` or `edit` of one known file (absolute, lexically normalized).
    Targeted {
        /// The file the call writes.
        path: PathBuf,
    },
    /// A call that may change any file (`bash`, unknown tools, `write`/`edit` without a path).
    Untargeted,
}

impl ToolClass {
    /// True for calls that may change files.
    pub fn is_mutating(&self) -> bool {
        matches!(self, Self::Targeted { .. } | Self::Untargeted)
    }
}

/// The tools the wave treats as non-mutating.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolCatalog {
    /// Known read-only tools.
    pub read_only: BTreeSet<String>,
    /// This package's own tools.
    pub own: BTreeSet<String>,
}

impl Default for ToolCatalog {
    fn default() -> Self {
        Self {
            read_only: ["read", "grep", "find", "ls"].map(String::from).into(),
            own: [pi_native_hooks_config::settings::OWN_TOOL]
                .map(String::from)
                .into(),
        }
    }
}

impl ToolCatalog {
    /// Classifies a call of `name` with `input`; relative `write`/`edit` paths resolve against
    /// `cwd` (the session's working directory).
    pub fn classify(&self, name: &str, input: &Value, cwd: &Path) -> ToolClass {
        if self.read_only.contains(name) {
            return ToolClass::ReadOnly;
        }
        if self.own.contains(name) {
            return ToolClass::Own;
        }
        if !matches!(name, "write" | "edit") {
            return ToolClass::Untargeted;
        }
        match input.get("path").and_then(Value::as_str) {
            // `~` is expanded by the tool, not here: treat it as unknown rather than guess.
            Some(path) if !path.trim().is_empty() && !path.starts_with('~') => {
                ToolClass::Targeted {
                    path: normalize_lexically(&cwd.join(path)),
                }
            }
            _ => ToolClass::Untargeted,
        }
    }
}

/// The one replacement an `edit` call asked for: its `edits` list holding exactly one
/// `{ oldText, newText }`, or the older top-level `oldText` and `newText`. `None` for any other
/// tool, for several replacements, and for input of another shape.
pub(crate) fn edit_hint(name: &str, input: &Value) -> Option<EditHint> {
    if name != "edit" {
        return None;
    }
    let pair = |value: &Value| {
        Some(EditHint {
            old_text: value.get("oldText")?.as_str()?.to_owned(),
            new_text: value.get("newText")?.as_str()?.to_owned(),
        })
    };
    match input.get("edits") {
        Some(Value::Array(edits)) if input.get("oldText").is_none() => match edits.as_slice() {
            [only] => pair(only),
            _ => None,
        },
        Some(_) => None,
        None => pair(input),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_edit_hint_is_the_one_replacement_of_an_edit_call() {
        let hint = |old: &str, new: &str| EditHint {
            old_text: old.to_owned(),
            new_text: new.to_owned(),
        };
        assert_eq!(
            edit_hint(
                "edit",
                &json!({ "path": "a.ts", "edits": [{ "oldText": "a", "newText": "b" }] })
            ),
            Some(hint("a", "b"))
        );
        assert_eq!(
            edit_hint(
                "edit",
                &json!({ "path": "a.ts", "oldText": "x", "newText": "" })
            ),
            Some(hint("x", ""))
        );
        for (name, input) in [
            (
                "edit",
                json!({ "path": "a.ts", "edits": [
                    { "oldText": "a", "newText": "b" },
                    { "oldText": "c", "newText": "d" },
                ] }),
            ),
            ("edit", json!({ "path": "a.ts", "edits": [] })),
            (
                "edit",
                json!({ "path": "a.ts", "edits": [{ "oldText": "a", "newText": 1 }] }),
            ),
            (
                "edit",
                json!({ "path": "a.ts", "edits": { "oldText": "a" } }),
            ),
            (
                "edit",
                json!({ "path": "a.ts", "oldText": "a", "newText": "b", "edits": [] }),
            ),
            ("edit", json!({ "path": "a.ts" })),
            (
                "write",
                json!({ "path": "a.ts", "oldText": "a", "newText": "b" }),
            ),
        ] {
            assert_eq!(edit_hint(name, &input), None, "{name} {input}");
        }
    }

    #[test]
    fn tools_are_classified_by_name_and_target() {
        let catalog = ToolCatalog::default();
        let cwd = Path::new("/repo/sub");
        let class = |name: &str, input| catalog.classify(name, &input, cwd);
        assert_eq!(
            class("read", json!({ "path": "a.ts" })),
            ToolClass::ReadOnly
        );
        for name in ["grep", "find", "ls"] {
            assert_eq!(class(name, json!({})), ToolClass::ReadOnly);
        }
        assert_eq!(
            class("pi_hooks_waive_verification", json!({})),
            ToolClass::Own
        );
        assert_eq!(
            class("write", json!({ "path": "../src/./a.ts" })),
            ToolClass::Targeted {
                path: PathBuf::from("/repo/src/a.ts")
            }
        );
        assert_eq!(
            class("edit", json!({ "path": "/abs/b.ts" })),
            ToolClass::Targeted {
                path: PathBuf::from("/abs/b.ts")
            }
        );
        for (name, input) in [
            ("write", json!({})),
            ("edit", json!({ "path": "~/x.ts" })),
            ("write", json!({ "path": "  " })),
            ("bash", json!({ "command": "ls" })),
            ("deploy", json!({})),
        ] {
            let class = class(name, input);
            assert_eq!(class, ToolClass::Untargeted);
            assert!(class.is_mutating());
        }
        assert!(!ToolClass::ReadOnly.is_mutating() && !ToolClass::Own.is_mutating());
    }
}

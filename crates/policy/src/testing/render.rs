//! The text of a fixture snapshot: each case's diagnostics or required commands, rendered the
//! way the agent reads them.

use crate::run::AffectedRequirement;
use pi_native_hooks_analysis::PolicyDiagnostic;
use std::fmt::Write;

/// The snapshot's first line.
pub(super) fn header(policy: &str) -> String {
    format!("# policy: {policy}\n")
}

/// One case's section.
pub(super) fn case(name: &str, body: &str) -> String {
    format!("\n## {name}\n{body}")
}

/// Diagnostics, one block each; `(none)` when empty.
pub(super) fn diagnostics(diagnostics: &[PolicyDiagnostic]) -> String {
    if diagnostics.is_empty() {
        return "(none)\n".to_owned();
    }
    let mut out = String::new();
    for d in diagnostics {
        let _ = writeln!(
            out,
            "{}:{}:{}-{}:{} {} {} [{}]\n  message: {}\n  guidance: {}",
            d.path,
            d.line,
            d.column,
            d.end_line,
            d.end_column,
            d.severity,
            d.rule,
            d.policy,
            d.message,
            d.guidance
        );
    }
    out
}

/// Required commands with the paths that need them; `(none)` when empty.
pub(super) fn requirements(requirements: &[AffectedRequirement]) -> String {
    if requirements.is_empty() {
        return "(none)\n".to_owned();
    }
    let mut out = String::new();
    for r in requirements {
        let _ = writeln!(
            out,
            "{} ({} {}): {}\n  because: {}",
            r.requirement.id,
            r.project.name,
            r.project.manifest,
            r.requirement.command,
            r.paths.join(", ")
        );
    }
    out
}

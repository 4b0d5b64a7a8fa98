//! Builders the delivery modules' unit tests share.

use pi_native_hooks_analysis::PolicyDiagnostic;
use pi_native_hooks_analysis::Severity;

/// A warning of rule `r` by `policy` on `path:line:1-4` saying `message`.
pub(super) fn diagnostic(policy: &str, path: &str, line: usize, message: &str) -> PolicyDiagnostic {
    PolicyDiagnostic {
        path: path.into(),
        line,
        column: 1,
        end_line: line,
        end_column: 4,
        rule: "r".into(),
        policy: policy.into(),
        severity: Severity::Warning,
        message: message.into(),
        guidance: "g".into(),
    }
}

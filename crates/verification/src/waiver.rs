//! Owns waivers: the agent skipping the outstanding requirements with a reason
//! ([`WaiverRequest`] → [`Waiver`]), why a waiver is refused ([`WaiverError`]), and the text the
//! waiver tool returns. A waiver covers each requirement at the revision it was outstanding for
//! and expires for a requirement at its next relevant change; it is never a pass.

use super::project::ProjectIdentity;
use crate::gate::requirement::RequirementKey;
use crate::gate::time::Timestamp;
use pi_native_hooks_base::CallId;
use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// The name of the tool the agent calls to waive verification.
pub const WAIVER_TOOL: &str = "pi_hooks_waive_verification";

/// A call of the waiver tool.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaiverRequest {
    /// The tool call's id.
    pub tool_call_id: CallId,
    /// The agent's reason, as given (it is trimmed).
    pub reason: String,
}

/// Why a waiver was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WaiverError {
    /// The reason is empty once trimmed.
    #[error("a waiver needs a reason: say why the required checks cannot be run")]
    EmptyReason,
    /// No armed requirement is outstanding.
    #[error("nothing to waive: no verification check is outstanding")]
    NothingOutstanding,
}

/// One requirement a waiver covers, at the revision it covers.
#[expect(missing_docs, reason = "bare fields name what they hold")]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaivedRequirement {
    pub key: RequirementKey,
    pub project: ProjectIdentity,
    pub command: String,
    /// The required revision the waiver covers.
    pub revision: u64,
}

/// A recorded waiver.
#[expect(missing_docs, reason = "`covers` names what it holds")]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Waiver {
    /// The waiver tool call's id.
    pub tool_call_id: CallId,
    /// The trimmed reason.
    pub reason: String,
    /// When it was recorded.
    pub at: Timestamp,
    pub covers: Vec<WaivedRequirement>,
}

impl Waiver {
    /// The waiver tool's result text: verification was skipped, what it covers, and when it
    /// expires.
    pub fn message(&self) -> String {
        let mut out = String::from(
            "Verification skipped (waived, not passed). The following checks did not run:\n",
        );
        for covered in &self.covers {
            let _ = writeln!(
                out,
                "- `{}` ({}) in {} at revision {}",
                covered.command,
                covered.key,
                covered.project.root.display(),
                covered.revision
            );
        }
        let _ = write!(
            out,
            "Reason recorded: {}\nThe waiver expires for a check at its next relevant change.",
            self.reason
        );
        out
    }
}

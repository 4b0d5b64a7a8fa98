//! Owns the settle decision: the outstanding checks ([`OutstandingCheck`]), the continuation
//! message that sends the agent back to work ([`Continuation`]), and the continuation cap that
//! stops forcing after N consecutive continuations without progress ([`Exhaustion`]).
//!
//! Progress means the outstanding set changed: a requirement passed, failed, was waived or was
//! advanced by a relevant change. The set is compared by requirement, state, required revision
//! and the reason it is unknown; the required revision of an `unknown` requirement is left out, so
//! unprovable changes that repeat (a workspace outside git) are not progress.
//!
//! Commands, reasons and paths in the message and the notice are escaped ([`pi_native_hooks_base::text`]).

use super::evidence::{cd_form, same_dir};
use super::project::ProjectIdentity;
use super::waiver::WAIVER_TOOL;
use crate::gate::requirement::{RequirementKey, RequirementState, Standing, TrackedRequirement};
use pi_native_hooks_base::Escaped;
use std::collections::BTreeSet;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// The type name of the continuation message (the extension sends it as a custom message).
pub const VERIFICATION_MESSAGE_TYPE: &str = "pi-native-hooks-verification";

/// Consecutive continuations without progress before the gate stops forcing (the settings
/// file's default for `verification.continuation_cap`).
pub const DEFAULT_CONTINUATION_CAP: u32 =
    pi_native_hooks_config::settings::DEFAULT_CONTINUATION_CAP;

/// One armed requirement that is neither passed nor waived.
#[expect(missing_docs, reason = "bare fields name what they hold")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutstandingCheck {
    pub key: RequirementKey,
    pub project: ProjectIdentity,
    /// The exact command.
    pub command: String,
    /// The directory the command must run in.
    pub dir: PathBuf,
    /// What to run from the session's directory: the command itself when that is `dir`, else
    /// its [`cd_form`] (the command itself when no `cd` form exists; it can then only be waived).
    pub run_as: String,
    pub state: RequirementState,
    pub required_revision: u64,
    /// Why it is outstanding, in one line.
    pub detail: String,
}

impl OutstandingCheck {
    /// The check for `requirement`, if it is outstanding, for a session in `cwd`.
    pub(crate) fn of(requirement: &TrackedRequirement, cwd: &Path) -> Option<Self> {
        let revision = requirement.required_revision?;
        if !requirement.is_outstanding() {
            return None;
        }
        let mut detail = match (&requirement.standing, &requirement.last_failure) {
            (Standing::Unknown { reason }, _) => format!("unproven: {reason}"),
            (Standing::Failed, Some(failure)) => format!("{failure} at revision {revision}"),
            (Standing::Stale, _) => format!(
                "stale: files it depends on changed at revision {revision}, after its last run or waiver"
            ),
            _ => format!("not run since the relevant change at revision {revision}"),
        };
        if let Some(rejection) = &requirement.last_rejection
            && rejection.revision >= revision
        {
            let _ = write!(
                detail,
                "; the run in call {} did not count: {}",
                rejection.tool_call_id, rejection.reason
            );
        }
        let dir = requirement.run_dir();
        let run_as = if same_dir(cwd, dir) {
            None
        } else {
            cd_form(dir, &requirement.command)
        };
        Some(OutstandingCheck {
            key: requirement.key.clone(),
            project: requirement.project.clone(),
            command: requirement.command.clone(),
            dir: dir.to_owned(),
            run_as: run_as.unwrap_or_else(|| requirement.command.clone()),
            state: requirement.state(),
            required_revision: revision,
            detail,
        })
    }
}

/// Push the agent back to work: the binding returns a `custom_message` of type
/// [`VERIFICATION_MESSAGE_TYPE`] with `content` and `continue: true`.
#[expect(missing_docs, reason = "`checks` names what it holds")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Continuation {
    /// The message for the model.
    pub content: String,
    pub checks: Vec<OutstandingCheck>,
    /// How many consecutive continuations (this one included) saw no progress.
    pub without_progress: u32,
}

/// Checks are outstanding but the cap was reached: let the agent stop, keep them pending.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exhaustion {
    /// What is still outstanding.
    pub checks: Vec<OutstandingCheck>,
    /// The continuations sent without progress.
    pub continuations: u32,
    /// The text to notify the user with, the first time the cap is reached (`None` after that).
    pub notification: Option<String>,
}

/// What to do at a settle candidate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SettleDecision {
    /// Nothing is outstanding: let the agent settle.
    Settle,
    /// Send the agent back to work.
    Continue(Continuation),
    /// Stop forcing; the checks stay pending.
    Exhausted(Exhaustion),
}

/// The continuation cap's state for the current session.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CapState {
    last: Option<Vec<Progress>>,
    without_progress: u32,
    exhausted: bool,
}

/// What counts as the same outstanding set.
type Progress = (
    RequirementKey,
    RequirementState,
    Option<u64>,
    Option<String>,
);

impl CapState {
    /// Consecutive continuations sent for the same outstanding set.
    pub fn without_progress(&self) -> u32 {
        self.without_progress
    }

    /// Whether the gate stopped forcing.
    pub fn is_exhausted(&self) -> bool {
        self.exhausted
    }

    /// Decides for `checks` under a cap of `cap` continuations without progress.
    pub(crate) fn decide(
        &mut self,
        checks: Vec<OutstandingCheck>,
        cap: u32,
        context: &MessageContext<'_>,
    ) -> SettleDecision {
        if checks.is_empty() {
            *self = CapState::default();
            return SettleDecision::Settle;
        }
        let progress: Vec<Progress> = checks.iter().map(progress_key).collect();
        if self.last.as_ref() != Some(&progress) {
            *self = CapState {
                last: Some(progress),
                ..CapState::default()
            };
        }
        if self.without_progress >= cap {
            let notification = (!self.exhausted).then(|| exhausted_notice(&checks, cap));
            self.exhausted = true;
            return SettleDecision::Exhausted(Exhaustion {
                checks,
                continuations: self.without_progress,
                notification,
            });
        }
        self.without_progress += 1;
        SettleDecision::Continue(Continuation {
            content: continuation_message(&checks, context),
            checks,
            without_progress: self.without_progress,
        })
    }
}

fn progress_key(check: &OutstandingCheck) -> Progress {
    let unknown = check.state == RequirementState::Unknown;
    (
        check.key.clone(),
        check.state,
        (!unknown).then_some(check.required_revision),
        unknown.then(|| check.detail.clone()),
    )
}

/// What the continuation message needs beside the checks.
pub(crate) struct MessageContext<'a> {
    /// The git root, to name directories below it relatively.
    pub(crate) repo_root: Option<&'a Path>,
    /// The tools whose calls are runs: `bash` and the declared shell tools.
    pub(crate) shell_tools: &'a BTreeSet<String>,
}

fn continuation_message(checks: &[OutstandingCheck], context: &MessageContext<'_>) -> String {
    let mut out = String::from("Verification required before you finish.");
    let mut project: Option<&ProjectIdentity> = None;
    for check in checks {
        if project != Some(&check.project) {
            project = Some(&check.project);
            let project = check.project.to_string();
            let _ = write!(out, "\nOutstanding for project {}:", Escaped(&project));
        }
        let _ = write!(out, "\n- `{}`", Escaped(&check.command));
        if check.run_as != check.command {
            let dir = match context.repo_root.map(|root| check.dir.strip_prefix(root)) {
                Some(Ok(relative)) if !relative.as_os_str().is_empty() => relative,
                _ => &check.dir,
            };
            let _ = write!(
                out,
                " in `{}`: run `{}`",
                Escaped(&dir.display().to_string()),
                Escaped(&check.run_as)
            );
        }
        let _ = write!(out, " — {}", Escaped(&check.detail));
    }
    let mut roots: Vec<String> = checks
        .iter()
        .filter(|check| check.run_as == check.command)
        .map(|check| Escaped(&check.dir.display().to_string()).to_string())
        .collect();
    roots.dedup();
    let from = if roots.is_empty() {
        String::new()
    } else {
        format!(", from {}", roots.join(", "))
    };
    let cd = if checks.iter().all(|check| check.run_as == check.command) {
        "`cd`"
    } else {
        "`cd` beyond the form shown"
    };
    let _ = write!(
        out,
        "\nRun each command exactly as written with the {}{from}, as its own call: no extra \
         arguments, `&&`, pipes or {cd}, and no file changes in the same batch. If a check cannot \
         be run, call `{WAIVER_TOOL}` with the reason instead; the user sees the waiver and it never \
         counts as a pass.",
        tools_phrase(context.shell_tools),
    );
    out
}

/// "bash tool", or "`bash` or `run_shell` tool" when the settings declare shell tools.
fn tools_phrase(tools: &BTreeSet<String>) -> String {
    if tools.len() <= 1 && tools.iter().all(|tool| tool == "bash") {
        return "bash tool".to_owned();
    }
    let names: Vec<String> = tools
        .iter()
        .map(|tool| format!("`{}`", Escaped(tool)))
        .collect();
    match names.split_last() {
        Some((last, [])) => format!("{last} tool"),
        Some((last, rest)) => format!("{} or {last} tool", rest.join(", ")),
        None => "bash tool".to_owned(),
    }
}

fn exhausted_notice(checks: &[OutstandingCheck], cap: u32) -> String {
    let commands: Vec<String> = checks
        .iter()
        .map(|check| {
            let dir = check.dir.display().to_string();
            format!("`{}` in {}", Escaped(&check.command), Escaped(&dir))
        })
        .collect();
    format!(
        "pi-native-hooks stopped asking the agent to verify after {cap} continuations without \
         progress. Still pending (not passed): {}. See /hooks-status.",
        commands.join(", ")
    )
}

//! Owns the evidence rule: when a `bash` call counts as a run of a required command, and the
//! records it leaves ([`Evidence`], [`FailedRun`], [`Rejection`]).
//!
//! A call is a run of a requirement only when its tool is `bash` (or a shell tool the settings
//! file declares, [`GateConfig::shell_tools`](super::GateConfig)) and its `command`, trimmed of
//! ASCII spaces, tabs and newlines only, equals the configured command exactly: `npm test --
//! --watch`, `npm test && npm run lint`, `cd . && npm test` or `cargo test\u{a0}` (a test filter
//! to bash) are different commands, and a command holding any other control, Unicode space or
//! invisible character is never a run. When the call ran in another directory than the
//! requirement's ([`TrackedRequirement::run_dir`](super::TrackedRequirement::run_dir)), exactly
//! one other command is a run of it: [`cd_form`], `cd <absolute dir> && <command>`. A run then
//! counts only when
//! * it ran in the requirement's directory (or changed to it in the `cd` form);
//! * no other potentially mutating call shared its wave;
//! * its result reported no error and exit code 0
//!   (a nonzero exit code or an error is a failure; no result or no exit code does not count).
//!
//! A shell call that is not a run of a requirement but looks like a try at it ([`near_miss`]: it
//! contains the command, or starts with the same program and subcommand) leaves a
//! [`RejectionReason::NotExactCommand`], so the status and the continuation say which command,
//! in which directory, would have counted. It never counts as a pass or a failure.
//!
//! The remaining conditions are enforced by the gate's ordering: a call started at the revision
//! current when its wave was observed, which is never before the required revision, and the
//! wave's own changes (or any later drift) are applied after its evidence. An accepted run was
//! the wave's only potentially mutating call, so the wave's named changes are its own writes and
//! the state it verified: they do not stale the requirement it passed (a snapshot test updating
//! its snapshots, a generator, a formatter). Any change in a later wave or out of band does.

use super::project::ProjectIdentity;
use crate::gate::observation::{CallOutcome, ObservedCall};
use crate::gate::time::Timestamp;
use pi_native_hooks_base::CallId;
use pi_native_hooks_policy::{trim_command, unsafe_command_char};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

/// A counted successful run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    /// The `bash` call's id.
    pub tool_call_id: CallId,
    /// The command that ran (equal to the configured command).
    pub command: String,
    /// The project it verified.
    pub project: ProjectIdentity,
    /// The digest of the policies that required it.
    pub registry_digest: String,
    /// The required revision it satisfied.
    pub required_revision: u64,
    /// The revision it started at.
    pub started_at_revision: u64,
    /// When its wave was observed.
    pub at: Timestamp,
}

/// A counted failed run: it ran the exact command in the right place, and failed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailedRun {
    /// The `bash` call's id.
    pub tool_call_id: CallId,
    /// The required revision it ran for.
    pub required_revision: u64,
    /// The exit code, when the result reported one.
    pub exit_code: Option<i64>,
    /// Whether the tool reported an error.
    pub is_error: bool,
    /// When its wave was observed.
    pub at: Timestamp,
}

impl fmt::Display for FailedRun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.exit_code {
            Some(code) => write!(f, "failed with exit code {code}"),
            None => f.write_str("failed without an exit code (aborted or timed out)"),
        }
    }
}

/// Why a run of the exact command did not count.
#[expect(missing_docs, reason = "`cwd` names what it holds")]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum RejectionReason {
    /// It ran somewhere other than the requirement's directory.
    WrongDirectory { cwd: PathBuf },
    /// A potentially mutating call ran in the same wave and may have changed files under it.
    MutatingSibling {
        /// The sibling's tool call id.
        tool_call_id: CallId,
        /// The sibling's tool.
        tool: String,
    },
    /// Pi delivered no result for it (aborted, blocked, or the wave timed out).
    NoResult,
    /// It reported success without an exit code, so success cannot be proven.
    NoExitCode,
    /// A near miss ([`near_miss`]): it looks like a try at the requirement (it contains the
    /// command, or starts with the same program and subcommand) but is not a run of it.
    NotExactCommand {
        /// The command a run must be, exactly.
        expected: String,
        /// The directory it must run in.
        dir: PathBuf,
    },
}

impl fmt::Display for RejectionReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RejectionReason::WrongDirectory { cwd } => {
                write!(
                    f,
                    "it ran in {}, not in the directory its command must run in",
                    cwd.display()
                )
            }
            RejectionReason::MutatingSibling { tool_call_id, tool } => write!(
                f,
                "`{tool}` call {tool_call_id} ran in the same batch and may have changed files while it ran"
            ),
            RejectionReason::NoResult => f.write_str("it produced no result"),
            RejectionReason::NoExitCode => f.write_str("its result carried no exit code"),
            RejectionReason::NotExactCommand { expected, dir } => write!(
                f,
                "not the exact command: expected `{expected}` in {}",
                dir.display()
            ),
        }
    }
}

/// A run of the exact command that did not count.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rejection {
    /// The `bash` call's id.
    pub tool_call_id: CallId,
    /// The revision it started at.
    pub revision: u64,
    /// Why it did not count.
    pub reason: RejectionReason,
    /// When its wave was observed.
    pub at: Timestamp,
}

/// What one call means for a requirement whose command it ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// It counts as a success.
    Pass,
    /// It counts as a failure.
    Fail {
        /// The exit code, when reported.
        exit_code: Option<i64>,
        /// Whether the tool reported an error.
        is_error: bool,
    },
    /// It does not count.
    Rejected(RejectionReason),
}

/// The command of a call of a shell tool (`bash`, or one of `shell_tools`, whose `command`
/// argument is the command it runs), trimmed, or `None` for any other call.
pub(crate) fn shell_command<'c>(
    call: &'c ObservedCall,
    shell_tools: &BTreeSet<String>,
) -> Option<&'c str> {
    if !shell_tools.contains(&call.tool) {
        return None;
    }
    Some(trim_command(call.input.get("command")?.as_str()?))
}

/// Whether a shell command (trimmed) may be a run of a required command at all: it holds no
/// character no required command may hold.
pub(crate) fn may_be_a_run(command: &str) -> bool {
    unsafe_command_char(command).is_none()
}

/// Whether `command`, a shell call that is not a run of `required`, looks like a try at it: it
/// contains `required` (extra arguments, `&&`, a pipe, a `cd` form where none is accepted, an
/// invisible character around it), or it starts with the same first two words (the program and
/// its subcommand: `cargo test -p a` for `cargo test --workspace`; the only word of a one-word
/// command). Both tests are linear in the command's length. Only the status and the continuation
/// use it: a near miss never counts, as a pass or as a failure.
pub(crate) fn near_miss(command: &str, required: &str) -> bool {
    if required.is_empty() {
        return false;
    }
    if command.contains(required) {
        return true;
    }
    let lead: Vec<&str> = required.split_whitespace().take(2).collect();
    let mut words = command.split_whitespace();
    lead.iter().all(|word| words.next() == Some(word))
}

/// How a call's command runs a requirement's command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Invocation {
    /// The command itself, which must run in the requirement's directory.
    Plain,
    /// [`cd_form`]: the call ran elsewhere and changed to the requirement's directory first.
    ChangingDirectory,
}

/// Whether `command` (a call's trimmed command, run in `cwd`) is a run of `required` in `dir`:
/// the command itself, or — only when `cwd` is not `dir` — exactly [`cd_form`].
pub(crate) fn invocation(
    command: &str,
    required: &str,
    dir: &Path,
    cwd: &Path,
) -> Option<Invocation> {
    if command == required {
        return Some(Invocation::Plain);
    }
    (command.starts_with("cd ")
        && cd_form(dir, required).as_deref() == Some(command)
        && !same_dir(cwd, dir))
    .then_some(Invocation::ChangingDirectory)
}

/// The one accepted way to run `command` in `dir` from another directory:
/// `cd <dir> && <command>`, `dir` absolute as given (so no `CDPATH` or session directory
/// changes where it lands), single-quoted when it holds anything but letters, digits and
/// `/._-+,:@%`. A failing `cd` fails the call, so an exit code of 0 means the command ran there.
/// `None` when `dir` is not UTF-8 or holds a character no command may hold.
pub fn cd_form(dir: &Path, command: &str) -> Option<String> {
    let dir = dir.to_str()?;
    if unsafe_command_char(dir).is_some() || dir.contains(['\t', '\n']) {
        return None;
    }
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+,:@%".contains(c);
    let quoted = if !dir.is_empty() && dir.chars().all(plain) {
        dir.to_owned()
    } else {
        format!("'{}'", dir.replace('\'', r"'\''"))
    };
    Some(format!("cd {quoted} && {command}"))
}

/// Judges `call` (a run of some requirement's exact command, as `how`) for a requirement whose
/// command runs in `dir`, with `wave` the calls of its wave.
pub(crate) fn judge(
    call: &ObservedCall,
    wave: &[ObservedCall],
    dir: &Path,
    how: Invocation,
) -> Verdict {
    if how == Invocation::Plain && !same_dir(&call.cwd, dir) {
        return Verdict::Rejected(RejectionReason::WrongDirectory {
            cwd: call.cwd.clone(),
        });
    }
    if let Some(sibling) = wave
        .iter()
        .find(|other| other.id != call.id && other.potentially_mutating)
    {
        return Verdict::Rejected(RejectionReason::MutatingSibling {
            tool_call_id: sibling.id.clone(),
            tool: sibling.tool.clone(),
        });
    }
    match call.outcome {
        CallOutcome::NoResult => Verdict::Rejected(RejectionReason::NoResult),
        CallOutcome::Finished {
            is_error: false,
            exit_code: Some(0),
        } => Verdict::Pass,
        CallOutcome::Finished {
            is_error: false,
            exit_code: None,
        } => Verdict::Rejected(RejectionReason::NoExitCode),
        CallOutcome::Finished {
            is_error,
            exit_code,
        } => Verdict::Fail {
            exit_code,
            is_error,
        },
    }
}

/// Whether two directories are the same: equal as given, or equal once symlinks are resolved.
pub(crate) fn same_dir(a: &Path, b: &Path) -> bool {
    a == b
        || match (a.canonicalize(), b.canonicalize()) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        }
}

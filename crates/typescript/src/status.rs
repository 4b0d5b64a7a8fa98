//! Owns what the TypeScript analyzer shows of itself in the status: each project it met, with its
//! server's state, memory and reason when it has none, the files pending and what it remembers,
//! as data and as the status lines `/hooks-status` prints. Published by the analyzer after every
//! wave into a shared handle, so the status is read without waiting for a running wave.

use pi_native_hooks_analysis::StatusSource;
use pi_native_hooks_base::{StoreUse, byte_size, lock};
use serde::Serialize;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// What one project's type check is doing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum ProjectState {
    /// Its server is starting.
    Starting,
    /// Its server answers.
    Running {
        /// The server's process id.
        pid: Option<u32>,
        /// Its resident memory in bytes, where the system tells it.
        memory_bytes: Option<u64>,
        /// Documents it holds open.
        open_documents: usize,
    },
    /// Stopped to make room for another project's server (started again when needed).
    Stopped,
    /// No type check for it: no TypeScript 7 installed, or the analyzer is off.
    Off {
        /// Why.
        reason: String,
    },
    /// Its type check failed for good this session (crashed twice, over its memory budget).
    Degraded {
        /// Why.
        reason: String,
    },
}

/// One project as the status shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ProjectStatus {
    /// Its `tsconfig.json` or `jsconfig.json`.
    pub config: PathBuf,
    /// The installed TypeScript's version, when there is one.
    pub version: Option<String>,
    /// What its type check is doing.
    #[serde(flatten)]
    pub state: ProjectState,
    /// Restarts after a crash so far (at most one).
    pub restarts: u32,
    /// Set when the project has more source files than its import index reads (the bound):
    /// dependents among the others are not found.
    pub import_index_cut_at: Option<usize>,
}

/// The analyzer as the status shows it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TypeScriptStatus {
    /// Off for the whole session, and why (`[typescript] enabled = false`).
    pub disabled: Option<String>,
    /// Every project met so far, by config path.
    pub projects: Vec<ProjectStatus>,
    /// Files whose type check is still pending from an earlier wave.
    pub pending: usize,
    /// The servers' total resident memory in bytes.
    pub memory_bytes: u64,
    /// The files whose last answer is remembered (reused while its server is unchanged).
    pub answers: StoreUse,
    /// The unopened files whose disk content the servers were last told of.
    pub disk_seen: StoreUse,
}

impl TypeScriptStatus {
    /// Whether any project's type check has failed for good.
    pub fn is_degraded(&self) -> bool {
        self.projects
            .iter()
            .any(|p| matches!(p.state, ProjectState::Degraded { .. }))
    }

    /// The status lines: off and why, or each project met with its server's state, the files
    /// pending and what the analyzer remembers.
    pub fn lines(&self) -> Vec<String> {
        if let Some(reason) = &self.disabled {
            return vec![format!("type check: off ({reason})")];
        }
        let mut lines = Vec::new();
        if self.projects.is_empty() {
            lines.push(
                "type check: no TypeScript project met yet (a server starts at the first change to a file under a tsconfig.json or jsconfig.json)"
                    .to_owned(),
            );
        }
        lines.extend(self.projects.iter().map(ProjectStatus::line));
        if self.pending > 0 {
            lines.push(format!(
                "type check: {} files pending (asked again with the next wave)",
                self.pending
            ));
        }
        if !self.projects.is_empty() {
            let (answers, disk) = (&self.answers, &self.disk_seen);
            lines.push(format!(
                "type check memory: answers kept for {} of {} files ({} forgotten, asked again); disk contents told to the servers kept for {} of {} files ({} forgotten, told again)",
                answers.held,
                answers.capacity,
                answers.dropped,
                disk.held,
                disk.capacity,
                disk.dropped
            ));
        }
        lines
    }
}

impl ProjectStatus {
    /// `type check: <config>: TypeScript <version>, <state>`, with its restarts and a cut
    /// import index.
    fn line(&self) -> String {
        let version = self
            .version
            .as_deref()
            .map_or_else(String::new, |v| format!("TypeScript {v}, "));
        let state = match &self.state {
            ProjectState::Starting => "starting".to_owned(),
            ProjectState::Running {
                pid,
                memory_bytes,
                open_documents,
            } => format!(
                "running (pid {}, {}, {open_documents} open documents)",
                pid.map_or_else(|| "?".to_owned(), |p| p.to_string()),
                memory_bytes.map_or_else(|| "memory unknown".to_owned(), byte_size)
            ),
            ProjectState::Stopped => "stopped (starts again at the next change)".to_owned(),
            ProjectState::Off { reason } => format!("off: {reason}"),
            ProjectState::Degraded { reason } => format!("degraded: {reason}"),
        };
        let restarts = if self.restarts > 0 {
            format!(", restarted {} time(s)", self.restarts)
        } else {
            String::new()
        };
        let cut = self.import_index_cut_at.map_or_else(String::new, |limit| {
            format!(
                "; import index cut at {limit} files (dependents among the rest are not re-checked)"
            )
        });
        format!(
            "type check: {}: {version}{state}{restarts}{cut}",
            self.config.display()
        )
    }
}

/// The status of a type check the settings turn off, with the reason.
pub fn disabled(reason: &str) -> Arc<dyn StatusSource> {
    Arc::new(TypeScriptStatus {
        disabled: Some(reason.to_owned()),
        ..TypeScriptStatus::default()
    })
}

impl StatusSource for TypeScriptStatus {
    fn lines(&self) -> Vec<String> {
        TypeScriptStatus::lines(self)
    }

    fn degraded(&self) -> bool {
        self.is_degraded()
    }
}

impl StatusSource for StatusHandle {
    fn lines(&self) -> Vec<String> {
        self.get().lines()
    }

    fn degraded(&self) -> bool {
        self.get().is_degraded()
    }
}

/// The shared, latest status.
#[derive(Clone, Debug, Default)]
pub struct StatusHandle(Arc<Mutex<TypeScriptStatus>>);

impl StatusHandle {
    /// The latest status.
    pub fn get(&self) -> TypeScriptStatus {
        lock(&self.0).clone()
    }

    pub(crate) fn set(&self, status: TypeScriptStatus) {
        *lock(&self.0) = status;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_type_check_shows_how_much_it_remembers_once_a_project_is_met() {
        let mut status = TypeScriptStatus::default();
        let lines = status.lines().join("\n");
        assert!(!lines.contains("type check memory"), "{lines}");
        assert!(lines.contains("no TypeScript project met yet"), "{lines}");
        status.projects.push(ProjectStatus {
            config: "tsconfig.json".into(),
            version: Some("7.0.0".to_owned()),
            state: ProjectState::Running {
                pid: Some(42),
                memory_bytes: Some(3 << 20),
                open_documents: 2,
            },
            restarts: 1,
            import_index_cut_at: None,
        });
        status.answers = StoreUse {
            held: 3,
            capacity: 16_384,
            dropped: 2,
        };
        status.disk_seen = StoreUse {
            held: 1,
            capacity: 16_384,
            dropped: 0,
        };
        assert_eq!(
            status.lines(),
            [
                "type check: tsconfig.json: TypeScript 7.0.0, running (pid 42, 3.0 MiB, 2 open documents), restarted 1 time(s)",
                "type check memory: answers kept for 3 of 16384 files (2 forgotten, asked again); disk contents told to the servers kept for 1 of 16384 files (0 forgotten, told again)",
            ]
        );
        assert!(!StatusSource::degraded(&status));
    }

    #[test]
    fn a_type_check_turned_off_says_why_and_is_not_degraded() {
        let off = disabled("[typescript] enabled = false in settings.toml");
        assert_eq!(
            off.lines(),
            ["type check: off ([typescript] enabled = false in settings.toml)"]
        );
        assert!(!off.degraded());
    }
}

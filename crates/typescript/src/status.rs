//! Owns what the TypeScript analyzer shows of itself in the status: each project it met, with its
//! server's state, memory and reason when it has none. Published by the analyzer after every wave
//! into a shared handle, so the status is read without waiting for a running wave.

use pi_native_hooks_base::StoreUse;
use pi_native_hooks_base::lock;
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

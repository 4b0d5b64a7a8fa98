//! Owns what the analyzer publishes of itself after every wave: each project it met, with its
//! server's state, memory and reason when it has none, the files still pending, and how full its
//! memory of answers and disk contents is.

use super::TypeScriptAnalyzer;
use crate::status::{ProjectState, ProjectStatus, TypeScriptStatus};
use pi_native_hooks_lsp::ServerState;

impl TypeScriptAnalyzer {
    /// Publishes the current status to the handle.
    pub(super) fn publish(&self) {
        let mut status = TypeScriptStatus {
            pending: self.memory.pending(),
            answers: self.memory.answers.usage(),
            disk_seen: self.memory.disk_seen.usage(),
            ..TypeScriptStatus::default()
        };
        for (config, project) in &self.projects {
            let version = project.typescript.as_ref().ok().map(|i| i.version.clone());
            let (state, restarts) = match (&project.typescript, self.servers.state(config)) {
                (Err(reason), _) => (
                    ProjectState::Off {
                        reason: reason.to_string(),
                    },
                    0,
                ),
                (Ok(_), None) => (ProjectState::Stopped, 0),
                (Ok(_), Some(ServerState::Starting { restarts })) => {
                    (ProjectState::Starting, restarts)
                }
                (Ok(_), Some(ServerState::Stopped { restarts })) => {
                    (ProjectState::Stopped, restarts)
                }
                (Ok(_), Some(ServerState::Degraded { reason })) => (
                    ProjectState::Degraded {
                        reason: reason.to_owned(),
                    },
                    1,
                ),
                (Ok(_), Some(ServerState::Running { server, restarts })) => {
                    let memory = server.resident_bytes();
                    status.memory_bytes += memory.unwrap_or(0);
                    (
                        ProjectState::Running {
                            pid: server.pid(),
                            memory_bytes: memory,
                            open_documents: server.open_count(),
                        },
                        restarts,
                    )
                }
            };
            status.projects.push(ProjectStatus {
                config: config.clone(),
                version,
                state,
                restarts,
                import_index_cut_at: self.indexes.get(config).and_then(|i| i.truncated_at),
            });
        }
        self.status.set(status);
    }
}

//! Owns one project's part of a wave: what each changed file holds now and held before the wave,
//! the dependents a change reaches (only a change an importer can see: its export surface moved),
//! bounded by `max_dependents`, and the project's server — waited for until the wave's deadline,
//! its files named as pending or unavailable when it cannot answer — before the check itself.

use super::check::Check;
use super::{ProjectFiles, ProjectWave, TypeScriptAnalyzer, Wait, WaveOutcome, read_text};
use crate::imports::ImportIndex;
use crate::install::Project;
use crate::server::TypeScriptServer;
use futures::future::BoxFuture;
use pi_native_hooks_analysis::SkipReason;
use pi_native_hooks_base::safe_open::Beneath;
use pi_native_hooks_lsp::{NoServer, ServerError};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// Each file's text, `None` where it does not exist.
type Texts = BTreeMap<String, Option<Arc<str>>>;

impl TypeScriptAnalyzer {
    /// Checks one project's changed files and dependents, recording each file's result in
    /// `outcome`.
    pub(super) async fn check_project(
        &mut self,
        root: &Path,
        beneath: &Beneath,
        files: ProjectFiles,
        wait: Wait,
        outcome: &mut WaveOutcome,
    ) {
        let config = files.project.config.clone();
        let after = self.read_after(beneath, &files.changed, outcome);
        let index = self.indexes.entry(config.clone()).or_insert_with(|| {
            ImportIndex::build(root, &files.project.dir, self.limits.max_index_files)
        });
        for (path, text) in &after {
            index.update(root, path, text.as_deref());
        }
        let before = self.before_texts(&config, &after);
        let mut wave = ProjectWave {
            config,
            before,
            after,
            dependents: Vec::new(),
        };
        wave.dependents = self.dependents(&wave, files.dependents, outcome);
        match self.ready_server(&files.project, wait).await {
            Ok(()) => {}
            Err(NoServer::Pending) => {
                for (path, text) in wave.before {
                    outcome.skip(&path, wait.pending());
                    self.memory.carried_changed.insert(path, text);
                }
                for path in wave.dependents {
                    outcome.skip(&path, wait.pending());
                    self.memory.carried_dependents.entry(path).or_insert(None);
                }
                return;
            }
            Err(NoServer::Unavailable(reason)) => {
                for path in wave.after.keys().chain(&wave.dependents) {
                    self.memory.carried_dependents.remove(path);
                    outcome.skip(path, wave.unavailable(&reason));
                }
                return;
            }
        }
        let Some(server) = self.servers.get_mut(&wave.config) else {
            return;
        };
        let check = Check {
            server,
            memory: &mut self.memory,
            beneath,
            max_file_bytes: self.limits.max_file_bytes,
            wait,
        };
        check.run(&wave, outcome).await;
    }

    /// What each changed file holds now: exactly the bytes on disk the wave's snapshot saw
    /// (`None`: deleted). One that cannot be read is named.
    fn read_after(
        &self,
        beneath: &Beneath,
        changed: &[String],
        outcome: &mut WaveOutcome,
    ) -> Texts {
        let mut after = Texts::new();
        for path in changed {
            match read_text(beneath, path, self.limits.max_file_bytes) {
                Ok(text) => {
                    after.insert(path.clone(), Some(text));
                }
                Err(SkipReason::Vanished) => {
                    after.insert(path.clone(), None);
                }
                Err(reason) => outcome.skip(path, reason),
            }
        }
        after
    }

    /// The text each changed file held before the wave: the one carried from its own wave, else
    /// what the server holds open, else its text in the prior revision (`HEAD`).
    fn before_texts(&mut self, config: &Path, after: &Texts) -> Texts {
        let mut before = Texts::new();
        let mut from_revision = Vec::new();
        for path in after.keys() {
            if let Some(text) = self.memory.carried_changed.remove(path) {
                before.insert(path.clone(), text);
            } else if let Some(text) = self
                .servers
                .get(&config.to_path_buf())
                .and_then(|server| server.open_text(path))
            {
                before.insert(path.clone(), Some(text));
            } else {
                from_revision.push(path.clone());
            }
        }
        if !from_revision.is_empty() {
            let texts = (self.prior_texts)(&from_revision);
            for (path, bytes) in from_revision.into_iter().zip(texts) {
                let text = bytes.and_then(|b| String::from_utf8(b).ok()).map(Arc::from);
                before.insert(path, text);
            }
        }
        before
    }

    /// The unchanged files of the project a change of `wave` reaches (with those `carried` from an
    /// earlier wave), at most `max_dependents`: the rest are named as not checked.
    fn dependents(
        &mut self,
        wave: &ProjectWave,
        carried: Vec<String>,
        outcome: &mut WaveOutcome,
    ) -> Vec<String> {
        // Only a change an importer can see makes its importers dependents of the wave. A file
        // nothing imports has none to spare, so its surface is not parsed.
        let index = self.indexes.get(&wave.config);
        let mut visible = Vec::new();
        for (path, text) in &wave.after {
            let imported =
                index.is_some_and(|index| !index.importers_of(std::iter::once(path)).is_empty());
            if !imported {
                continue;
            }
            let before = wave.before.get(path).and_then(Option::as_deref);
            let hidden = if let (Some(before), Some(after)) = (before, text.as_deref()) {
                self.surfaces.same(path, before, after)
            } else {
                self.surfaces.forget(path);
                false
            };
            if !hidden {
                visible.push(path.clone());
            }
        }
        let mut dependents: Vec<String> = index
            .map(|index| index.importers_of(&visible))
            .unwrap_or_default()
            .into_iter()
            .filter(|d| !wave.after.contains_key(d))
            .collect();
        for path in carried {
            if !dependents.contains(&path) && !wave.after.contains_key(&path) {
                dependents.push(path);
            }
        }
        dependents.retain(|d| {
            self.lookup()
                .project_of(d)
                .is_some_and(|p| p.config == wave.config)
                && self.handles(d)
        });
        let limit = self.limits.max_dependents;
        if dependents.len() > limit {
            for cut in dependents.split_off(limit) {
                self.memory.carried_dependents.remove(&cut);
                outcome.skip(&cut, SkipReason::DependentNotChecked { limit });
            }
        }
        dependents
    }

    /// `project`'s server, started or restarted as needed and waited for until the wave's
    /// deadline; what the servers that went away meanwhile answered is forgotten.
    async fn ready_server(&mut self, project: &Project, wait: Wait) -> Result<(), NoServer> {
        let installed = match &project.typescript {
            Ok(installed) => installed.clone(),
            Err(reason) => return Err(NoServer::Unavailable(reason.to_string())),
        };
        let root = self.lookup().root().to_path_buf();
        let dir = project.dir.clone();
        let (output, memory) = (self.limits.max_output_bytes, self.limits.max_server_memory);
        let start = move || -> BoxFuture<'static, Result<TypeScriptServer, ServerError>> {
            Box::pin(async move {
                TypeScriptServer::start(&installed.server, &dir, &root, output, memory).await
            })
        };
        let ready = self
            .servers
            .ready(&project.config, start, wait.deadline)
            .await
            .map(|_| ());
        self.forget_retired();
        ready
    }
}

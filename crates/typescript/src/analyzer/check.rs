//! Owns one project's before and after on its running server. "Before": the changed files as they
//! were, the dependents as they are on disk (the server is told of those that changed since it
//! was last told: it never looks at the disk by itself). "After": the changed files hold exactly
//! what the wave left. Each file's result is then recorded: its findings and its "before", or why
//! it has none (pending, carried to the next wave; unreadable; the server could not answer).

use super::memory::{Answer, Memory};
use super::pull::{PullFailure, Pulled, pull};
use super::{ProjectWave, Wait, WaveOutcome, read_text};
use crate::server::TypeScriptServer;
use pi_native_hooks_analysis::{Finding, SkipReason};
use pi_native_hooks_base::ContentHash;
use pi_native_hooks_base::safe_open::Beneath;
use pi_native_hooks_lsp::ServerError;
use std::collections::HashMap;
use std::sync::Arc;

/// One project's check on its running server.
pub(super) struct Check<'a> {
    pub(super) server: &'a mut TypeScriptServer,
    pub(super) memory: &'a mut Memory,
    pub(super) beneath: &'a Beneath,
    pub(super) max_file_bytes: u64,
    pub(super) wait: Wait,
}

/// The dependents as the check reads them: each one's text on disk, and the first failure to
/// tell the server anything (after which nothing is asked).
struct Dependents {
    paths: Vec<String>,
    disk: HashMap<String, Arc<str>>,
    failure: Option<ServerError>,
}

impl Check<'_> {
    /// Checks `wave` and records each file's result in `outcome`.
    pub(super) async fn run(mut self, wave: &ProjectWave, outcome: &mut WaveOutcome) {
        self.server.renew_budget();
        let mut dependents = self.read_dependents(&wave.dependents, outcome);
        let before = self.before(wave, &mut dependents, outcome).await;
        let (generation, after) = self.after(wave, &mut dependents, outcome).await;
        self.record(wave, &dependents, generation, before, after, outcome);
    }

    /// The dependents as they are on disk; the server is told of those that changed since it was
    /// last told. One that cannot be read is named and no longer carried.
    fn read_dependents(&mut self, dependents: &[String], outcome: &mut WaveOutcome) -> Dependents {
        let mut disk = HashMap::new();
        let mut paths = Vec::with_capacity(dependents.len());
        let mut touched: Vec<&str> = Vec::new();
        for path in dependents {
            match read_text(self.beneath, path, self.max_file_bytes) {
                Ok(text) => {
                    let hash = ContentHash::of(text.as_bytes());
                    if self.memory.disk_seen.insert(path.clone(), hash) != Some(hash) {
                        touched.push(path);
                    }
                    disk.insert(path.clone(), text);
                    paths.push(path.clone());
                }
                Err(reason) => {
                    self.memory.carried_dependents.remove(path);
                    outcome.skip(path, reason);
                }
            }
        }
        let failure = self.server.changed_on_disk(&touched).err();
        Dependents {
            paths,
            disk,
            failure,
        }
    }

    /// The "before" of every file: the changed files as they were (a new file has none), the
    /// dependents as they are, or as a carried dependent's own wave kept it.
    async fn before(
        &mut self,
        wave: &ProjectWave,
        dependents: &mut Dependents,
        outcome: &mut WaveOutcome,
    ) -> HashMap<String, Option<Vec<Finding>>> {
        for (path, text) in &wave.before {
            if let Err(error) = self.server.sync(path, text.as_ref()) {
                dependents.failure.get_or_insert(error);
            }
        }
        let targets: Vec<String> = wave
            .before
            .iter()
            .filter(|(_, text)| text.is_some())
            .map(|(path, _)| path.clone())
            .chain(dependents.paths.iter().cloned())
            .collect();
        let mut before: HashMap<String, Option<Vec<Finding>>> = wave
            .before
            .iter()
            .filter(|(_, text)| text.is_none())
            .map(|(path, _)| (path.clone(), Some(Vec::new())))
            .collect();
        if dependents.failure.is_none() {
            let pulled = self.pull(wave, &dependents.disk, &targets).await;
            outcome.count(&pulled);
            for (path, result) in pulled.results {
                before.insert(path, result.ok());
            }
        }
        // A carried dependent's "before" is the one its own wave kept (this project's only:
        // another project's are taken when its turn comes).
        for path in &dependents.paths {
            if let Some(old) = self
                .memory
                .carried_dependents
                .get_mut(path)
                .and_then(Option::take)
            {
                before.insert(path.clone(), Some(old));
            }
        }
        before
    }

    /// The "after" of every file, with the server's generation it was pulled at.
    async fn after(
        &mut self,
        wave: &ProjectWave,
        dependents: &mut Dependents,
        outcome: &mut WaveOutcome,
    ) -> (u64, HashMap<String, Result<Vec<Finding>, PullFailure>>) {
        for (path, text) in &wave.after {
            if let Err(error) = self.server.sync(path, text.as_ref()) {
                dependents.failure.get_or_insert(error);
            }
        }
        let generation = self.server.generation();
        let pulled = if dependents.failure.is_none() {
            let targets: Vec<String> = after_targets(wave, dependents).cloned().collect();
            self.pull(wave, &dependents.disk, &targets).await
        } else {
            Pulled::default()
        };
        outcome.count(&pulled);
        (generation, pulled.results.into_iter().collect())
    }

    async fn pull(
        &self,
        wave: &ProjectWave,
        disk: &HashMap<String, Arc<str>>,
        targets: &[String],
    ) -> Pulled {
        pull(
            self.server,
            &self.memory.answers,
            &wave.config,
            disk,
            targets,
            self.wait.deadline,
        )
        .await
    }

    /// Records each file's result: its findings, answer and "before"; or why it has none, the
    /// pending ones carried to the next wave.
    fn record(
        self,
        wave: &ProjectWave,
        dependents: &Dependents,
        generation: u64,
        mut before: HashMap<String, Option<Vec<Finding>>>,
        mut results: HashMap<String, Result<Vec<Finding>, PullFailure>>,
        outcome: &mut WaveOutcome,
    ) {
        let memory = self.memory;
        for path in wave.after.keys() {
            memory.carried_dependents.remove(path);
        }
        for path in after_targets(wave, dependents) {
            let result = results.remove(path).unwrap_or_else(|| {
                Err(PullFailure::Server(
                    dependents
                        .failure
                        .clone()
                        .unwrap_or_else(|| ServerError::Stopped("no answer".to_owned())),
                ))
            });
            let is_dependent = !wave.after.contains_key(path);
            let before_text = || wave.before.get(path).cloned().flatten();
            match result {
                Ok(findings) => {
                    memory.carried_dependents.remove(path);
                    memory.answers.insert(
                        path.clone(),
                        Answer {
                            config: wave.config.clone(),
                            generation,
                            findings: findings.clone(),
                        },
                    );
                    outcome.paths.insert(path.clone());
                    outcome.findings.extend(findings);
                    memory
                        .before
                        .insert(path.clone(), before.remove(path).flatten());
                }
                Err(PullFailure::TimedOut) => {
                    outcome.skip(path, self.wait.pending());
                    if is_dependent {
                        memory
                            .carried_dependents
                            .insert(path.clone(), before.remove(path).flatten());
                    } else {
                        memory.carried_changed.insert(path.clone(), before_text());
                    }
                }
                Err(PullFailure::Unreadable(reason)) => outcome.skip(path, reason),
                Err(PullFailure::Server(error)) => {
                    outcome.skip(path, wave.unavailable(&error.to_string()));
                    if !is_dependent {
                        memory.carried_changed.insert(path.clone(), before_text());
                    }
                }
            }
        }
        for (path, text) in &wave.after {
            if text.is_none() {
                memory.answers.remove(path);
                outcome.skip(path, SkipReason::Vanished);
            }
        }
    }
}

/// The files whose "after" is asked: the changed files that exist, then the dependents.
fn after_targets<'a>(
    wave: &'a ProjectWave,
    dependents: &'a Dependents,
) -> impl Iterator<Item = &'a String> {
    wave.after
        .iter()
        .filter(|(_, text)| text.is_some())
        .map(|(path, _)| path)
        .chain(&dependents.paths)
}

//! Owns a wave that changed project configuration (a `tsconfig.json`, a `package.json` …):
//! projects and installs are looked up afresh, every running server reads its configuration
//! again (one that cannot is stopped, to start again with it), and every file a server answered
//! for is re-checked against that answer as the wave's dependent — a `strict` turned on
//! introduces errors in files the wave did not touch.

use super::TypeScriptAnalyzer;

impl TypeScriptAnalyzer {
    /// After a wave changed `configs`, within `deadline`.
    pub(super) async fn configs_changed(
        &mut self,
        configs: &[String],
        deadline: tokio::time::Instant,
    ) {
        self.lookup().forget();
        let paths: Vec<&str> = configs.iter().map(String::as_str).collect();
        let mut failed = Vec::new();
        for (config, server) in self.servers.running_mut() {
            let reloaded = tokio::time::timeout_at(deadline, server.reload_config(&paths)).await;
            if !matches!(reloaded, Ok(Ok(()))) {
                failed.push(config.clone());
            }
        }
        for config in failed {
            self.servers.restart_later(&config);
        }
        self.forget_retired();
        let memory = &mut self.memory;
        for (path, answer) in memory.answers.iter() {
            memory
                .carried_dependents
                .entry(path.clone())
                .or_insert_with(|| Some(answer.findings.clone()));
        }
    }
}

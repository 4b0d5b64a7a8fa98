//! Owns a language server's process: started in a process group of its own (so what it spawns
//! stops with it), its standard error's last bytes kept to say why it stopped, and its end —
//! asked to exit within a grace period, else killed with its whole group.

use crate::error::ServerError;
use crate::launch::Launch;
use crate::shared::Shared;
use pi_native_hooks_base::lock;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::AsyncReadExt;
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};

/// The bytes of a server's standard error kept to explain why it stopped.
pub(crate) const STDERR_TAIL_BYTES: usize = 2048;

/// One server's process, the leader of its process group.
pub(crate) struct ServerProcess {
    child: Child,
    pid: Option<u32>,
}

impl ServerProcess {
    /// Starts `launch`'s program in its directory, in a process group of its own, its standard
    /// error's tail kept in `shared`. Must run inside a tokio runtime.
    pub(crate) fn spawn(
        launch: &Launch,
        shared: &Arc<Shared>,
    ) -> Result<(Self, ChildStdin, ChildStdout), ServerError> {
        let mut child = Command::new(&launch.program)
            .args(&launch.args)
            .current_dir(&launch.dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true)
            .spawn()
            .map_err(|error| ServerError::Spawn {
                executable: launch.program.clone(),
                reason: error.to_string(),
            })?;
        let no_pipe = |what: &str| ServerError::Spawn {
            executable: launch.program.clone(),
            reason: format!("no {what} pipe"),
        };
        let stdin = child.stdin.take().ok_or_else(|| no_pipe("stdin"))?;
        let stdout = child.stdout.take().ok_or_else(|| no_pipe("stdout"))?;
        let stderr = child.stderr.take().ok_or_else(|| no_pipe("stderr"))?;
        tokio::spawn(keep_tail(stderr, Arc::clone(shared)));
        let pid = child.id();
        Ok((Self { child, pid }, stdin, stdout))
    }

    /// The process id (none once the process was reaped).
    pub(crate) fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// How the process exited, when it has.
    pub(crate) fn exited(&mut self) -> Option<String> {
        match self.child.try_wait() {
            Ok(Some(status)) => Some(format!("the process exited ({status})")),
            Ok(None) => None,
            Err(error) => Some(error.to_string()),
        }
    }

    /// Waits `grace` for the process to exit, then kills it and its group.
    pub(crate) async fn wait_or_kill(&mut self, grace: Duration) {
        if tokio::time::timeout(grace, self.child.wait())
            .await
            .is_err()
        {
            self.kill_group();
            let _ = self.child.kill().await;
        }
    }

    /// Kills the process and what it started at once.
    pub(crate) fn kill(&mut self) {
        self.kill_group();
        let _ = self.child.start_kill();
    }

    /// Kills the server's process group (it leads one of its own), so a process it started (a
    /// bridge's real server) does not outlive it.
    pub(crate) fn kill_group(&self) {
        if let Some(pid) = self.pid.and_then(|pid| i32::try_from(pid).ok()) {
            // The group the server leads (spawned with `process_group(0)`) holds only what it
            // started; it may be gone already.
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }
}

/// Keeps the last [`STDERR_TAIL_BYTES`] the server writes to its standard error.
async fn keep_tail(mut stderr: ChildStderr, shared: Arc<Shared>) {
    let mut chunk = vec![0u8; 4096];
    while let Ok(read) = stderr.read(&mut chunk).await {
        if read == 0 {
            break;
        }
        let mut tail = lock(&shared.stderr_tail);
        tail.extend(&chunk[..read]);
        let excess = tail.len().saturating_sub(STDERR_TAIL_BYTES);
        tail.drain(..excess);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn alive(pid: u32) -> bool {
        i32::try_from(pid).ok().is_some_and(|pid| {
            nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_ok()
        })
    }

    #[tokio::test]
    async fn killing_a_server_kills_what_it_started() {
        let launch = Launch::new("sh", Path::new("/")).args(["-c", "sleep 60 & sleep 60"]);
        let shared = Arc::new(Shared::default());
        let (mut process, _stdin, _stdout) =
            ServerProcess::spawn(&launch, &shared).expect("a shell starts");
        let pid = process.pid().expect("a pid");
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        let mut below = crate::memory::children_of(pid);
        while below.len() < 2 && std::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
            below = crate::memory::children_of(pid);
        }
        assert_eq!(below.len(), 2, "the shell's two sleeps");
        process.kill();
        process.wait_or_kill(Duration::from_secs(5)).await;
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while below.iter().any(|p| alive(*p)) && std::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(
            !below.iter().any(|p| alive(*p)),
            "the group went with its leader"
        );
        assert!(process.exited().is_some());
    }

    #[tokio::test]
    async fn a_program_that_cannot_start_is_named() {
        let launch = Launch::new("/nonexistent/server", Path::new("/"));
        let Err(error) = ServerProcess::spawn(&launch, &Arc::new(Shared::default())) else {
            panic!("it started");
        };
        assert!(
            error
                .to_string()
                .starts_with("could not start /nonexistent/server: "),
            "{error}"
        );
    }
}

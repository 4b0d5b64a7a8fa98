//! Owns a bounded set of servers, one per key (a project): each started lazily on the engine's
//! runtime within a deadline, restarted once after it stopped or failed to start, then degraded
//! for the session with the reason; at most `max_servers` at once (the least recently used stops
//! first, and starts again when needed); each within a memory budget checked after every use
//! (one over it is killed and degraded with the figure). A caller waiting for a server waits at
//! most until its own deadline; a start still running then is kept for the next call.
//!
//! The pool knows a server only through [`PooledServer`], so it is tested against a fake one.
//! Whoever caches answers per server learns which servers went away from
//! [`ServerPool::take_retired`].

use crate::connection::LanguageServer;
use crate::error::ServerError;
use futures::future::BoxFuture;
use std::collections::BTreeMap;
use std::time::Duration;
use tokio::runtime::Handle;
use tokio::task::JoinHandle;

/// What the pool needs of a server.
pub trait PooledServer: Send + 'static {
    /// Why the server can no longer be used, if it cannot.
    fn stopped(&mut self) -> Option<String>;
    /// Its resident memory in bytes, where the system tells it.
    fn resident_bytes(&self) -> Option<u64>;
    /// Kills it at once.
    fn kill(&mut self);
    /// Asks it to exit, killing it when it does not in time.
    fn shut_down(self) -> BoxFuture<'static, ()>;
}

impl PooledServer for LanguageServer {
    fn stopped(&mut self) -> Option<String> {
        LanguageServer::stopped(self)
    }

    fn resident_bytes(&self) -> Option<u64> {
        LanguageServer::resident_bytes(self)
    }

    fn kill(&mut self) {
        LanguageServer::kill(self);
    }

    fn shut_down(self) -> BoxFuture<'static, ()> {
        Box::pin(self.stop())
    }
}

/// The pool's bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolLimits {
    /// Servers running (or starting) at once.
    pub max_servers: usize,
    /// A server's resident memory budget, in bytes.
    pub max_memory_bytes: u64,
    /// How long a server may take to start (spawn and `initialize`).
    pub start_timeout: Duration,
    /// The setting that sets the memory budget, named when a server is stopped for it.
    pub memory_setting: &'static str,
}

/// Why a key has no server to use now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoServer {
    /// Its server is still starting at the caller's deadline.
    Pending,
    /// It has none, for this reason (failed to start, degraded).
    Unavailable(String),
}

/// A key's server as the status shows it.
#[derive(Debug)]
pub enum ServerState<'a, S> {
    /// Starting.
    Starting {
        /// Restarts so far.
        restarts: u32,
    },
    /// Running.
    Running {
        /// The server.
        server: &'a S,
        /// Restarts so far.
        restarts: u32,
    },
    /// Stopped to make room, or to start again with a new configuration; starts again when
    /// needed.
    Stopped {
        /// Restarts so far.
        restarts: u32,
    },
    /// Failed for good this session.
    Degraded {
        /// Why.
        reason: &'a str,
    },
}

/// One key's server, in whatever state it is.
enum Slot<S> {
    Starting {
        task: JoinHandle<Result<S, ServerError>>,
        restarts: u32,
    },
    Ready {
        server: Box<S>,
        restarts: u32,
        last_used: u64,
    },
    Stopped {
        restarts: u32,
    },
    Degraded {
        reason: String,
    },
}

/// The servers of a session, one per key.
pub struct ServerPool<K, S: PooledServer> {
    runtime: Handle,
    limits: PoolLimits,
    slots: BTreeMap<K, Slot<S>>,
    /// Counts uses, to find the least recently used server.
    uses: u64,
    /// Keys whose server went away since [`ServerPool::take_retired`] was last called.
    retired: Vec<K>,
}

impl<K: Ord + Clone, S: PooledServer> ServerPool<K, S> {
    /// An empty pool starting servers on `runtime` within `limits`.
    pub fn new(runtime: Handle, limits: PoolLimits) -> Self {
        Self {
            runtime,
            limits,
            slots: BTreeMap::new(),
            uses: 0,
            retired: Vec::new(),
        }
    }

    /// The running server of `key`, started with `start` (or restarted once after it stopped)
    /// as needed, waited for until `deadline`.
    pub async fn ready(
        &mut self,
        key: &K,
        start: impl FnOnce() -> BoxFuture<'static, Result<S, ServerError>>,
        deadline: tokio::time::Instant,
    ) -> Result<&mut S, NoServer> {
        self.uses += 1;
        self.replace_if_stopped(key);
        let restarts = match self.slots.get(key) {
            None => Some(0),
            Some(Slot::Stopped { restarts }) => Some(*restarts),
            _ => None,
        };
        if let Some(restarts) = restarts {
            self.make_room(key);
            let starting = start();
            let timeout = self.limits.start_timeout;
            let task = self.runtime.spawn(async move {
                tokio::time::timeout(timeout, starting)
                    .await
                    .unwrap_or(Err(ServerError::StartTimedOut(timeout)))
            });
            self.slots
                .insert(key.clone(), Slot::Starting { task, restarts });
        }
        if let Some(Slot::Starting { task, restarts }) = self.slots.get_mut(key) {
            let restarts = *restarts;
            let Ok(started) = tokio::time::timeout_at(deadline, &mut *task).await else {
                return Err(NoServer::Pending);
            };
            let next = match started {
                Ok(Ok(server)) => Slot::Ready {
                    server: Box::new(server),
                    restarts,
                    last_used: self.uses,
                },
                Ok(Err(error)) => {
                    let next = if restarts == 0 {
                        Slot::Stopped { restarts: 1 }
                    } else {
                        Slot::Degraded {
                            reason: format!(
                                "its server failed to start twice; the last time: {error}"
                            ),
                        }
                    };
                    self.slots.insert(key.clone(), next);
                    return Err(NoServer::Unavailable(error.to_string()));
                }
                Err(join) => Slot::Degraded {
                    reason: format!("starting its server failed: {join}"),
                },
            };
            self.slots.insert(key.clone(), next);
        }
        let uses = self.uses;
        match self.slots.get_mut(key) {
            Some(Slot::Ready {
                server, last_used, ..
            }) => {
                *last_used = uses;
                Ok(server)
            }
            Some(Slot::Degraded { reason }) => Err(NoServer::Unavailable(reason.clone())),
            _ => Err(NoServer::Unavailable(
                "its server is not running".to_owned(),
            )),
        }
    }

    /// A running server that stopped is replaced: by a restart the first time, by the reason
    /// the second.
    fn replace_if_stopped(&mut self, key: &K) {
        let Some(Slot::Ready {
            server, restarts, ..
        }) = self.slots.get_mut(key)
        else {
            return;
        };
        let Some(reason) = server.stopped() else {
            return;
        };
        let next = if *restarts == 0 {
            Slot::Stopped { restarts: 1 }
        } else {
            Slot::Degraded {
                reason: format!("its server stopped twice; the last time: {reason}"),
            }
        };
        self.slots.insert(key.clone(), next);
        self.retired.push(key.clone());
    }

    /// Stops the least recently used running server while starting another would exceed
    /// `max_servers`.
    fn make_room(&mut self, starting: &K) {
        loop {
            let running = self
                .slots
                .iter()
                .filter(|(key, slot)| {
                    *key != starting && matches!(slot, Slot::Ready { .. } | Slot::Starting { .. })
                })
                .count();
            if running < self.limits.max_servers {
                return;
            }
            let oldest = self
                .slots
                .iter()
                .filter_map(|(key, slot)| match slot {
                    Slot::Ready { last_used, .. } if key != starting => Some((*last_used, key)),
                    _ => None,
                })
                .min()
                .map(|(_, key)| key.clone());
            let Some(key) = oldest else {
                return;
            };
            self.restart_later(&key);
        }
    }

    /// Stops `key`'s running server gracefully, to start again when next needed (with a new
    /// configuration, or to make room). Its restarts are kept.
    pub fn restart_later(&mut self, key: &K) {
        if let Some(Slot::Ready {
            server, restarts, ..
        }) = self.slots.remove(key)
        {
            self.runtime.spawn(server.shut_down());
            self.slots.insert(key.clone(), Slot::Stopped { restarts });
            self.retired.push(key.clone());
        }
    }

    /// Kills every server over its memory budget; its key is degraded with the figure. Returns
    /// the keys stopped, with the memory each held.
    pub fn enforce_memory(&mut self) -> Vec<(K, u64)> {
        let budget = self.limits.max_memory_bytes;
        let over: Vec<(K, u64)> = self
            .slots
            .iter()
            .filter_map(|(key, slot)| match slot {
                Slot::Ready { server, .. } => server
                    .resident_bytes()
                    .filter(|bytes| *bytes > budget)
                    .map(|bytes| (key.clone(), bytes)),
                _ => None,
            })
            .collect();
        for (key, bytes) in &over {
            if let Some(Slot::Ready { mut server, .. }) = self.slots.remove(key) {
                server.kill();
            }
            self.retired.push(key.clone());
            self.slots.insert(
                key.clone(),
                Slot::Degraded {
                    reason: format!(
                        "its server used {} MiB, over the {} MiB budget ({})",
                        bytes / (1024 * 1024),
                        budget / (1024 * 1024),
                        self.limits.memory_setting
                    ),
                },
            );
        }
        over
    }

    /// The keys whose server went away (stopped, restarted, killed) since the last call: what
    /// was learnt from those servers no longer holds.
    pub fn take_retired(&mut self) -> Vec<K> {
        std::mem::take(&mut self.retired)
    }

    /// `key`'s server, when it runs.
    pub fn get(&self, key: &K) -> Option<&S> {
        match self.slots.get(key) {
            Some(Slot::Ready { server, .. }) => Some(server),
            _ => None,
        }
    }

    /// `key`'s server, when it runs.
    pub fn get_mut(&mut self, key: &K) -> Option<&mut S> {
        match self.slots.get_mut(key) {
            Some(Slot::Ready { server, .. }) => Some(server),
            _ => None,
        }
    }

    /// Every running server, by key.
    pub fn running_mut(&mut self) -> impl Iterator<Item = (&K, &mut S)> {
        self.slots.iter_mut().filter_map(|(key, slot)| match slot {
            Slot::Ready { server, .. } => Some((key, &mut **server)),
            _ => None,
        })
    }

    /// Every running server.
    pub fn running(&self) -> impl Iterator<Item = &S> {
        self.slots.values().filter_map(|slot| match slot {
            Slot::Ready { server, .. } => Some(&**server),
            _ => None,
        })
    }

    /// `key`'s server as the status shows it; `None` before it was first needed.
    pub fn state(&self, key: &K) -> Option<ServerState<'_, S>> {
        Some(match self.slots.get(key)? {
            Slot::Starting { restarts, .. } => ServerState::Starting {
                restarts: *restarts,
            },
            Slot::Ready {
                server, restarts, ..
            } => ServerState::Running {
                server,
                restarts: *restarts,
            },
            Slot::Stopped { restarts } => ServerState::Stopped {
                restarts: *restarts,
            },
            Slot::Degraded { reason } => ServerState::Degraded { reason },
        })
    }
}

impl<K, S: PooledServer> Drop for ServerPool<K, S> {
    /// Servers stop with the pool: a starting one is abandoned (its start task is aborted, which
    /// kills its process), a running one is killed.
    fn drop(&mut self) {
        for slot in self.slots.values_mut() {
            match slot {
                Slot::Starting { task, .. } => task.abort(),
                Slot::Ready { server, .. } => server.kill(),
                Slot::Stopped { .. } | Slot::Degraded { .. } => {}
            }
        }
    }
}

#[cfg(test)]
mod tests;

//! The pool against fake servers: started lazily and reused, the least recently used stopped
//! first, restarted once then degraded, a start slower than the caller's deadline kept for the
//! next call, a start past its own timeout counted as a failure, the memory bound, and every
//! server stopped with the pool.

use super::*;
use futures::FutureExt;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// What a test sees of a fake server, and sets.
#[derive(Default)]
struct Probe {
    memory: AtomicU64,
    crashed: Mutex<Option<String>>,
    killed: AtomicBool,
    shut_down: AtomicBool,
}

struct Fake(Arc<Probe>);

impl PooledServer for Fake {
    fn stopped(&mut self) -> Option<String> {
        self.0.crashed.lock().expect("probe").clone()
    }

    fn resident_bytes(&self) -> Option<u64> {
        Some(self.0.memory.load(Ordering::Relaxed))
    }

    fn kill(&mut self) {
        self.0.killed.store(true, Ordering::Relaxed);
    }

    fn shut_down(self) -> BoxFuture<'static, ()> {
        self.0.shut_down.store(true, Ordering::Relaxed);
        async {}.boxed()
    }
}

const LIMITS: PoolLimits = PoolLimits {
    max_servers: 2,
    max_memory_bytes: 100 * 1024 * 1024,
    start_timeout: Duration::from_secs(5),
    memory_setting: "[test] max_memory",
};

fn deadline() -> tokio::time::Instant {
    tokio::time::Instant::now() + Duration::from_secs(5)
}

/// Starts fake servers, counting starts and keeping each one's probe.
#[derive(Default)]
struct Starter {
    starts: AtomicUsize,
    probes: Mutex<Vec<Arc<Probe>>>,
}

impl Starter {
    fn start(&self) -> impl FnOnce() -> BoxFuture<'static, Result<Fake, ServerError>> + '_ {
        move || {
            self.starts.fetch_add(1, Ordering::Relaxed);
            let probe = Arc::new(Probe::default());
            self.probes.lock().expect("probes").push(Arc::clone(&probe));
            async move { Ok(Fake(probe)) }.boxed()
        }
    }

    fn last(&self) -> Arc<Probe> {
        Arc::clone(self.probes.lock().expect("probes").last().expect("a start"))
    }

    fn starts(&self) -> usize {
        self.starts.load(Ordering::Relaxed)
    }
}

/// `key`'s server made ready by `start`, or why not.
async fn ready(
    pool: &mut ServerPool<&'static str, Fake>,
    key: &'static str,
    start: impl FnOnce() -> BoxFuture<'static, Result<Fake, ServerError>>,
) -> Result<(), NoServer> {
    pool.ready(&key, start, deadline()).await.map(|_| ())
}

/// A start that finishes when `release` is notified, then runs `started`.
fn gated(
    release: Arc<tokio::sync::Notify>,
    started: impl FnOnce() + Send + 'static,
) -> BoxFuture<'static, Result<Fake, ServerError>> {
    async move {
        release.notified().await;
        started();
        Ok(Fake(Arc::new(Probe::default())))
    }
    .boxed()
}

fn failing() -> BoxFuture<'static, Result<Fake, ServerError>> {
    async {
        Err(ServerError::Spawn {
            executable: "server".into(),
            reason: "not found".to_owned(),
        })
    }
    .boxed()
}

fn restarts_of(pool: &ServerPool<&'static str, Fake>, key: &'static str) -> Option<u32> {
    match pool.state(&key)? {
        ServerState::Starting { restarts }
        | ServerState::Running { restarts, .. }
        | ServerState::Stopped { restarts } => Some(restarts),
        ServerState::Degraded { .. } => None,
    }
}

#[tokio::test]
async fn a_server_starts_when_first_needed_and_is_reused() {
    let mut pool = ServerPool::new(Handle::current(), LIMITS);
    let starter = Starter::default();
    assert!(
        pool.state(&"a").is_none(),
        "nothing starts before it is needed"
    );
    assert!(pool.ready(&"a", starter.start(), deadline()).await.is_ok());
    assert!(pool.ready(&"a", starter.start(), deadline()).await.is_ok());
    assert_eq!(starter.starts(), 1);
    assert!(matches!(
        pool.state(&"a"),
        Some(ServerState::Running { restarts: 0, .. })
    ));
    assert_eq!(pool.running().count(), 1);
    assert!(pool.take_retired().is_empty());
}

#[tokio::test]
async fn the_least_recently_used_server_stops_to_make_room() {
    let mut pool = ServerPool::new(Handle::current(), LIMITS);
    let starter = Starter::default();
    ready(&mut pool, "a", starter.start()).await.expect("a");
    let a = starter.last();
    ready(&mut pool, "b", starter.start()).await.expect("b");
    ready(&mut pool, "a", starter.start())
        .await
        .expect("a again");
    ready(&mut pool, "c", starter.start()).await.expect("c");
    assert!(matches!(
        pool.state(&"b"),
        Some(ServerState::Stopped { restarts: 0 })
    ));
    assert!(matches!(
        pool.state(&"a"),
        Some(ServerState::Running { .. })
    ));
    assert_eq!(pool.take_retired(), ["b"]);
    assert!(!a.shut_down.load(Ordering::Relaxed));
    assert_eq!(pool.running().count(), 2);
    // b starts again when needed, stopping a (now the least recently used).
    ready(&mut pool, "b", starter.start())
        .await
        .expect("b again");
    tokio::task::yield_now().await;
    assert!(
        a.shut_down.load(Ordering::Relaxed),
        "a was asked to shut down"
    );
    assert_eq!(pool.take_retired(), ["a"]);
    assert_eq!(starter.starts(), 4);
}

#[tokio::test]
async fn a_server_that_stops_is_restarted_once_then_degraded() {
    let mut pool = ServerPool::new(Handle::current(), LIMITS);
    let starter = Starter::default();
    ready(&mut pool, "a", starter.start()).await.expect("a");
    *starter.last().crashed.lock().expect("probe") = Some("crashed".to_owned());
    ready(&mut pool, "a", starter.start())
        .await
        .expect("restarted");
    assert_eq!(restarts_of(&pool, "a"), Some(1));
    assert_eq!(pool.take_retired(), ["a"]);
    *starter.last().crashed.lock().expect("probe") = Some("crashed again".to_owned());
    let error = pool
        .ready(&"a", starter.start(), deadline())
        .await
        .map(|_| ())
        .expect_err("degraded");
    assert_eq!(
        error,
        NoServer::Unavailable("its server stopped twice; the last time: crashed again".to_owned())
    );
    assert_eq!(starter.starts(), 2, "no third start");
    assert!(matches!(
        pool.state(&"a"),
        Some(ServerState::Degraded { .. })
    ));
}

#[tokio::test]
async fn a_server_that_fails_to_start_twice_is_degraded() {
    let mut pool: ServerPool<&'static str, Fake> = ServerPool::new(Handle::current(), LIMITS);
    let first = ready(&mut pool, "a", failing).await.expect_err("fails");
    assert_eq!(
        first,
        NoServer::Unavailable("could not start server: not found".to_owned())
    );
    assert!(matches!(
        pool.state(&"a"),
        Some(ServerState::Stopped { restarts: 1 })
    ));
    let second = ready(&mut pool, "a", failing).await.expect_err("fails");
    assert_eq!(second, first);
    let NoServer::Unavailable(reason) = ready(&mut pool, "a", failing).await.expect_err("degraded")
    else {
        panic!("not unavailable");
    };
    assert_eq!(
        reason,
        "its server failed to start twice; the last time: could not start server: not found"
    );
}

#[tokio::test]
async fn a_start_slower_than_the_callers_deadline_is_kept_for_the_next_call() {
    let mut pool = ServerPool::new(Handle::current(), LIMITS);
    let release = Arc::new(tokio::sync::Notify::new());
    let starts = Arc::new(AtomicUsize::new(0));
    let slow = |release: Arc<tokio::sync::Notify>, starts: Arc<AtomicUsize>| {
        move || {
            starts.fetch_add(1, Ordering::Relaxed);
            gated(release, || {})
        }
    };
    let now = tokio::time::Instant::now() + Duration::from_millis(20);
    let pending = pool
        .ready(&"a", slow(Arc::clone(&release), Arc::clone(&starts)), now)
        .await
        .map(|_| ());
    assert_eq!(pending, Err(NoServer::Pending));
    assert!(matches!(
        pool.state(&"a"),
        Some(ServerState::Starting { .. })
    ));
    release.notify_one();
    pool.ready(
        &"a",
        slow(Arc::clone(&release), Arc::clone(&starts)),
        deadline(),
    )
    .await
    .map(|_| ())
    .expect("the same start finished");
    assert_eq!(starts.load(Ordering::Relaxed), 1);
}

#[tokio::test]
async fn a_start_past_its_timeout_counts_as_a_failed_start() {
    let limits = PoolLimits {
        start_timeout: Duration::from_millis(20),
        ..LIMITS
    };
    let mut pool: ServerPool<&'static str, Fake> = ServerPool::new(Handle::current(), limits);
    let never =
        || -> BoxFuture<'static, Result<Fake, ServerError>> { futures::future::pending().boxed() };
    let error = pool
        .ready(&"a", never, deadline())
        .await
        .map(|_| ())
        .expect_err("timed out");
    assert_eq!(
        error,
        NoServer::Unavailable("the server did not start within 20 ms".to_owned())
    );
}

#[tokio::test]
async fn a_server_over_its_memory_budget_is_killed_and_degraded_with_the_figure() {
    let mut pool = ServerPool::new(Handle::current(), LIMITS);
    let starter = Starter::default();
    ready(&mut pool, "a", starter.start()).await.expect("a");
    let probe = starter.last();
    probe.memory.store(100 * 1024 * 1024, Ordering::Relaxed);
    assert!(
        pool.enforce_memory().is_empty(),
        "at the budget is within it"
    );
    probe.memory.store(150 * 1024 * 1024, Ordering::Relaxed);
    assert_eq!(pool.enforce_memory(), [("a", 150 * 1024 * 1024)]);
    assert!(probe.killed.load(Ordering::Relaxed));
    assert_eq!(pool.take_retired(), ["a"]);
    let Some(ServerState::Degraded { reason }) = pool.state(&"a") else {
        panic!("not degraded");
    };
    assert_eq!(
        reason,
        "its server used 150 MiB, over the 100 MiB budget ([test] max_memory)"
    );
}

#[tokio::test]
async fn a_server_asked_to_restart_later_starts_again_when_needed() {
    let mut pool = ServerPool::new(Handle::current(), LIMITS);
    let starter = Starter::default();
    ready(&mut pool, "a", starter.start()).await.expect("a");
    let first = starter.last();
    pool.restart_later(&"a");
    tokio::task::yield_now().await;
    assert!(first.shut_down.load(Ordering::Relaxed));
    assert!(matches!(
        pool.state(&"a"),
        Some(ServerState::Stopped { restarts: 0 })
    ));
    ready(&mut pool, "a", starter.start()).await.expect("again");
    assert_eq!(starter.starts(), 2);
}

#[tokio::test]
async fn servers_stop_with_the_pool() {
    let starter = Starter::default();
    let release = Arc::new(tokio::sync::Notify::new());
    let abandoned = Arc::new(AtomicBool::new(true));
    {
        let mut pool = ServerPool::new(Handle::current(), LIMITS);
        ready(&mut pool, "a", starter.start()).await.expect("a");
        let (release, abandoned) = (Arc::clone(&release), Arc::clone(&abandoned));
        let slow = move || gated(release, move || abandoned.store(false, Ordering::Relaxed));
        let soon = tokio::time::Instant::now() + Duration::from_millis(10);
        assert_eq!(
            pool.ready(&"b", slow, soon).await.map(|_| ()),
            Err(NoServer::Pending)
        );
    }
    assert!(
        starter.last().killed.load(Ordering::Relaxed),
        "the running one was killed"
    );
    release.notify_one();
    tokio::task::yield_now().await;
    assert!(
        abandoned.load(Ordering::Relaxed),
        "the starting one was abandoned"
    );
}

//! Hands the memory the engine's threads freed back to the system, every few waves.
//!
//! glibc's allocator gives each thread that allocates an arena of its own and keeps what is freed
//! in it for later: after a wave, the pages the wave's parse and analysis freed on the engine's
//! threads stay in the Pi process's resident memory. Measured on the Pi soak bench, that was about
//! half of what the extension added to Pi's RSS. `malloc_trim` returns every whole free page of
//! every arena to the system (the pages stay mapped and are faulted in again when reused). It runs
//! on a blocking thread of napi's runtime, never on Node's thread, one at a time.
//!
//! When ([`TrimSchedule`]): after every 8th turn, and when the agent is about to stop. The trim
//! also returns what the host (Node, Pi) freed, holding each arena's lock while it walks it, and
//! the host faults those pages in again at its next allocations: in a long session the host's
//! free memory grows, and so does the trim's cost. In probe runs of the soak bench a trim after
//! every turn cost 2.6 to 3.4 ms a wave after 1,500 waves (about 0.5 ms early), where every 8th
//! turn kept the memory at wave 100 within 2 MiB of it. The engine's threads free about the same
//! memory each wave and reuse it the next, so eight waves leave little more in their arenas than
//! one. Trimming at most once a second left the bench's memory at wave 100 where it was without a
//! trim: its first 100 waves take about a second.
//!
//! Elsewhere than on glibc this does nothing: other allocators return memory on their own terms.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

/// A trim after this many turns.
const TURNS_PER_TRIM: u32 = 8;

/// Counts a session's turns since its last trim and says when the next one is due.
#[derive(Debug, Default)]
pub(crate) struct TrimSchedule {
    turns: AtomicU32,
}

impl TrimSchedule {
    /// A turn ended: true (and the count starts over) if it is the 8th since the last trim.
    pub(crate) fn turn_ended(&self) -> bool {
        if self.turns.fetch_add(1, Ordering::AcqRel) + 1 < TURNS_PER_TRIM {
            return false;
        }
        self.turns.store(0, Ordering::Release);
        true
    }

    /// The agent is about to stop: true (and the count starts over) if a turn ended since the
    /// last trim.
    pub(crate) fn settling(&self) -> bool {
        self.turns.swap(0, Ordering::AcqRel) > 0
    }
}

/// True while a trim is queued or running: the next one is not queued behind it.
static TRIMMING: AtomicBool = AtomicBool::new(false);

/// Queues one trim of the process's free memory, unless one is already on its way.
pub(crate) fn release_freed_memory() {
    if TRIMMING.swap(true, Ordering::AcqRel) {
        return;
    }
    // Dropping the handle detaches the task; a runtime that is shutting down never runs it, and
    // then nothing is lost but the trim.
    drop(napi::bindgen_prelude::spawn_blocking(|| {
        trim();
        TRIMMING.store(false, Ordering::Release);
    }));
}

/// Returns the free pages of every arena to the system, now, on this thread.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[expect(unsafe_code, reason = "malloc_trim is a C function")]
pub(crate) fn trim() {
    // SAFETY: `malloc_trim` takes no pointer and may be called from any thread at any time; it
    // only releases memory the allocator holds free.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Not on glibc: nothing to do.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub(crate) fn trim() {}

#[cfg(test)]
mod schedule_tests {
    use super::TrimSchedule;

    #[test]
    fn a_trim_is_due_after_every_8th_turn_and_at_a_settle_after_any_turn() {
        let schedule = TrimSchedule::default();
        let due: Vec<bool> = (0..17).map(|_| schedule.turn_ended()).collect();
        let expected: Vec<bool> = (1..=17).map(|turn| turn % 8 == 0).collect();
        assert_eq!(due, expected);
        // One turn since the 16th: the settle trims, and a second settle has nothing to trim.
        assert!(schedule.settling());
        assert!(!schedule.settling());
        // The settle started the count over: the next trim is 8 turns later.
        assert_eq!(
            (0..8)
                .map(|_| schedule.turn_ended())
                .filter(|due| *due)
                .count(),
            1
        );
        assert!(!schedule.settling());
    }
}

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod tests {
    use super::trim;

    /// The process's resident memory, from `/proc/self/statm`, in bytes of the kernel's page size
    /// (4 KiB on `x86_64`, up to 64 KiB on some arm64 kernels).
    #[expect(unsafe_code, reason = "sysconf is a C function")]
    fn resident_bytes() -> u64 {
        // SAFETY: `sysconf` takes no pointer and only reads a system constant.
        let page = u64::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096);
        let statm = std::fs::read_to_string("/proc/self/statm").expect("statm");
        let pages: u64 = statm
            .split_whitespace()
            .nth(1)
            .and_then(|field| field.parse().ok())
            .expect("resident pages");
        pages * page
    }

    #[test]
    fn a_trim_returns_what_a_thread_freed_in_its_arena() {
        const CHUNKS: usize = 16 * 1024;
        const CHUNK: usize = 4096;
        // A thread of its own: its own arena, as the engine's threads have. The chunks are small
        // enough to come from the arena (not mapped one by one), and the last one stays allocated,
        // so the freed ones sit below the arena's top where freeing alone returns nothing.
        let (freed, kept) = std::thread::spawn(|| {
            let chunks: Vec<Vec<u8>> = (0..CHUNKS)
                .map(|k| vec![u8::try_from(k % 251).unwrap_or(1); CHUNK])
                .collect();
            let kept = vec![7_u8; CHUNK];
            drop(chunks);
            let freed = resident_bytes();
            trim();
            (freed, kept)
        })
        .join()
        .expect("the thread ran");
        let trimmed = resident_bytes();
        assert_eq!(kept[0], 7);
        let released = freed.saturating_sub(trimmed);
        // 64 MiB were freed; at least half of it must leave the resident set.
        assert!(
            released >= 32 * 1024 * 1024,
            "the trim released {released} bytes (resident {freed} before, {trimmed} after)"
        );
    }
}

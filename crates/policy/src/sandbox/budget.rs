//! The memory budget of a policy call: a counting global allocator and the per-thread byte count
//! the sandbox reads.
//!
//! Rhai has no allocator hook, so the sandbox cannot refuse an allocation. Instead
//! [`CountingAllocator`] wraps the system allocator and keeps, per thread, the net number of bytes
//! that thread allocated (allocations minus frees). A policy call runs on one thread from start to
//! finish, so the growth of that count during the call is what the call holds; the sandbox reads it
//! on every progress callback (between two Rhai operations) and once more when the call returns,
//! and stops the call when it exceeds [`SandboxLimits::memory_budget`](super::SandboxLimits). One
//! native operation can still allocate between two checks: the per-value caps of the sandbox keep
//! that bounded (see docs/policies.md).
//!
//! The allocator only counts when it is the process's `#[global_allocator]`: the `pi-native-hooks`
//! binary and the Node addon install it ([`is_installed`] tells). Elsewhere the budget is not
//! enforced and the other limits still apply.

#![expect(unsafe_code, reason = "a global allocator is an unsafe trait")]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::hint::black_box;
use std::sync::OnceLock;

thread_local! {
    // Const-initialized and without a destructor: reading it never allocates, so the allocator
    // can use it.
    static NET_BYTES: Cell<i64> = const { Cell::new(0) };
}

#[inline]
fn add(delta: i64) {
    // During thread teardown the slot may be gone: such frees are not a policy call's.
    let _ = NET_BYTES.try_with(|net| net.set(net.get().wrapping_add(delta)));
}

fn signed(size: usize) -> i64 {
    i64::try_from(size).unwrap_or(i64::MAX)
}

/// The system allocator, counting the net bytes each thread allocates. Install it with
/// `#[global_allocator] static ALLOCATOR: CountingAllocator = CountingAllocator;`.
#[derive(Clone, Copy, Debug, Default)]
pub struct CountingAllocator;

// SAFETY: every method forwards to `System` with the caller's arguments unchanged and only adds
// bookkeeping on a thread-local cell that never allocates.
unsafe impl GlobalAlloc for CountingAllocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged; the caller upholds `alloc`'s contract.
        let pointer = unsafe { System.alloc(layout) };
        if !pointer.is_null() {
            add(signed(layout.size()));
        }
        pointer
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged; the caller upholds `alloc_zeroed`'s contract.
        let pointer = unsafe { System.alloc_zeroed(layout) };
        if !pointer.is_null() {
            add(signed(layout.size()));
        }
        pointer
    }

    #[inline]
    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged; `pointer` was allocated by `System` with `layout`.
        unsafe { System.dealloc(pointer, layout) };
        add(-signed(layout.size()));
    }

    #[inline]
    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded unchanged; the caller upholds `realloc`'s contract.
        let grown = unsafe { System.realloc(pointer, layout, new_size) };
        if !grown.is_null() {
            add(signed(new_size) - signed(layout.size()));
        }
        grown
    }
}

/// The net bytes the current thread has allocated so far (may be negative: a thread can free
/// what another allocated). Only differences between two readings mean anything.
pub(crate) fn thread_net_bytes() -> i64 {
    NET_BYTES.try_with(Cell::get).unwrap_or(0)
}

/// True when [`CountingAllocator`] is the global allocator, so memory budgets are enforced.
pub fn is_installed() -> bool {
    static INSTALLED: OnceLock<bool> = OnceLock::new();
    *INSTALLED.get_or_init(|| {
        let before = thread_net_bytes();
        let probe = black_box(vec![0_u8; 4096]);
        let counted = thread_net_bytes() - before >= 4096;
        drop(probe);
        counted
    })
}

//! The `pi-native-hooks` binary: see [`pi_native_hooks_cli`].

// Counts allocations per thread so policy calls are held to their memory budget.
#[global_allocator]
static ALLOCATOR: pi_native_hooks_policy::CountingAllocator =
    pi_native_hooks_policy::CountingAllocator;

fn main() -> std::process::ExitCode {
    pi_native_hooks_cli::main()
}

//! The `pi-native-hooks` binary: see [`pi_native_hooks::cli`].

fn main() -> std::process::ExitCode {
    pi_native_hooks::cli::main()
}

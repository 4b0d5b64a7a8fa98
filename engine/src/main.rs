//! The `pi-native-hooks` binary.

fn main() -> std::process::ExitCode {
    std::process::ExitCode::SUCCESS
}

//! The `pi-native-hooks` command line: `check`, its output forms, its parity with the ast-grep CLI,
//! the policy commands `init`, `doctor` and `test`, and `completions`.

mod check;
mod output;
mod parity;
mod policy_commands;

//! The `pi-native-hooks` command line: `check`, its output forms, its parity with the ast-grep CLI
//! (findings and `--fix`), the policy commands `init`, `doctor` (with the projects it matches in a repository) and
//! `test`, and `completions`.

mod check;
mod doctor;
mod documented;
mod fail_closed;
mod fix;
mod output;
mod parity;
mod policy_commands;
mod types;
mod unconsumed;

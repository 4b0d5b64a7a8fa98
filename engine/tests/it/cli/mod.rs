//! The `pi-native-hooks` command line: `check`, its parity with the ast-grep CLI (findings and
//! `--fix`), and the policy commands `init`, `doctor` and `test`.

mod check;
mod fail_closed;
mod fix;
mod parity;
mod policy_commands;
mod unconsumed;

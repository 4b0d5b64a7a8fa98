//! The `pi-native-hooks` command line: `check`, its parity with the ast-grep CLI, and the policy
//! commands `init`, `doctor` and `test`.

mod check;
mod parity;
mod policy_commands;
mod unconsumed;

//! Where configuration comes from: the trust checks over a hostile config root, through every
//! loader (rules, policies, `doctor`, `check`). The checks on one file or directory are unit
//! tests in `config::trust`.

mod settings;
mod trust;

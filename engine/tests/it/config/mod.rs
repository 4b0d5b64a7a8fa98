//! Where configuration comes from: the trust checks over a config root.

mod trust;
mod trust_checks;

//! Persisted state entries and restoring a branch from them.

mod restore;

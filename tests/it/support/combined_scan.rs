//! The reference the analyzer's matcher is checked against: ast-grep's own `CombinedScan` over
//! every rule that applies to a file, with its suppression comments and unused-suppression hints
//! (the fuzz targets' differential checks use the same one).

pub use pi_native_hooks_fuzz::reference::findings;

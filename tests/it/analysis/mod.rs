//! ast-grep in process: rule loading, the shipped rules' fixtures, scan bounds and the cache, and
//! files that are not what their name says.

mod hostile;
mod incremental;
mod prefilter;
mod rule_fixtures;
mod rule_loading;
mod scan;
mod suppressions;

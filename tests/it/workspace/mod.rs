//! Git state read with `gix`: full snapshots against `git status`, path-limited snapshots,
//! changed paths, the async wrappers, the non-git fallback and hostile worktrees.

mod async_capture;
mod cache_tree;
mod changes;
mod git_status;
mod hostile;
mod nongit;
mod paths;
mod stat_pass;
mod watch;
mod watch_props;

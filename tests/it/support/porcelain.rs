//! Snapshots against `git status`: a parser for `git status --porcelain=v2 -z
//! --untracked-files=all`, the same records made from a [`WorkspaceSnapshot`], and
//! [`TestRepo::assert_matches_git`] comparing the two.

use super::repo::{TestRepo, git_cmd};
use pi_native_hooks_workspace::{Content, StagedChange, WorkspaceSnapshot, WorktreeChange};
use std::collections::{BTreeMap, BTreeSet};

impl TestRepo {
    /// A full snapshot of the worktree.
    pub fn snapshot(&self) -> WorkspaceSnapshot {
        pi_native_hooks_workspace::capture(self.path()).expect("snapshot")
    }

    /// `git status` records, as produced by [`parse_porcelain_v2`].
    pub fn git_status(&self) -> BTreeSet<(String, String)> {
        let out = git_cmd(self.path())
            .args([
                "--no-optional-locks",
                "status",
                "--porcelain=v2",
                "-z",
                "--untracked-files=all",
            ])
            .output()
            .expect("git status runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        parse_porcelain_v2(&out.stdout)
    }

    /// Take a snapshot, then `git status`, and assert both list the same records.
    pub fn assert_matches_git(&self) -> WorkspaceSnapshot {
        let snapshot = self.snapshot();
        let ours = records(&snapshot);
        let git = self.git_status();
        assert_eq!(ours, git, "snapshot (left) vs git status (right)");
        snapshot
    }
}

/// Parse `git status --porcelain=v2 -z` into `(path, code)` records.
///
/// Codes: `XY` for ordinary changes (plus ` S<c><m><u>` for submodules), `XY from=<orig>` for
/// renames/copies, the conflict `XY` for unmerged paths, `??` for untracked files. A trailing
/// `/` (untracked nested repository) is dropped.
pub fn parse_porcelain_v2(out: &[u8]) -> BTreeSet<(String, String)> {
    let text = String::from_utf8_lossy(out);
    let mut fields = text.split('\0').filter(|f| !f.is_empty());
    let mut records = BTreeSet::new();
    while let Some(record) = fields.next() {
        let kind = &record[..1];
        match kind {
            "1" => {
                let parts: Vec<&str> = record.splitn(9, ' ').collect();
                let (xy, sub, path) = (parts[1], parts[2], parts[8]);
                records.insert((path.to_owned(), with_sub(xy, sub)));
            }
            "2" => {
                let parts: Vec<&str> = record.splitn(10, ' ').collect();
                let (xy, sub, path) = (parts[1], parts[2], parts[9]);
                let orig = fields.next().expect("rename source");
                records.insert((
                    path.to_owned(),
                    format!("{} from={orig}", with_sub(xy, sub)),
                ));
            }
            "u" => {
                let parts: Vec<&str> = record.splitn(11, ' ').collect();
                records.insert((parts[10].to_owned(), parts[1].to_owned()));
            }
            "?" => {
                records.insert((
                    record[2..].trim_end_matches('/').to_owned(),
                    "??".to_owned(),
                ));
            }
            "!" => {
                records.insert((
                    record[2..].trim_end_matches('/').to_owned(),
                    "!!".to_owned(),
                ));
            }
            other => panic!("unexpected porcelain record kind {other:?} in {record:?}"),
        }
    }
    records
}

fn with_sub(xy: &str, sub: &str) -> String {
    if sub.starts_with('S') {
        format!("{xy} {sub}")
    } else {
        xy.to_owned()
    }
}

/// The snapshot's entries in the same record format as [`parse_porcelain_v2`].
pub fn records(snapshot: &WorkspaceSnapshot) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for entry in snapshot.entries().values() {
        let path = entry.path.clone();
        if entry.conflict.is_some() {
            out.insert((path, entry.xy()));
            continue;
        }
        if entry.is_untracked() {
            out.insert((path.clone(), "??".to_owned()));
            if entry.staged.is_none() {
                continue;
            }
        }
        let mut xy = entry.xy();
        if entry.is_untracked() {
            xy.replace_range(1.., ".");
        }
        let mut code = match &entry.worktree {
            Some(WorktreeChange::Submodule(sm)) => format!(
                "{xy} S{}{}{}",
                if sm.commit_changed { 'C' } else { '.' },
                if sm.modified_content { 'M' } else { '.' },
                if sm.untracked_content { 'U' } else { '.' },
            ),
            _ if matches!(entry.content, Content::Repository { .. }) => format!("{xy} S..."),
            _ => xy,
        };
        if let Some(StagedChange::Renamed { from } | StagedChange::Copied { from }) = &entry.staged
        {
            code = format!("{code} from={from}");
        }
        out.insert((path, code));
    }
    out
}

/// `(path, xy)` of a snapshot, for compact assertions.
pub fn xy_map(snapshot: &WorkspaceSnapshot) -> BTreeMap<String, String> {
    snapshot
        .entries()
        .values()
        .map(|entry| (entry.path.clone(), entry.xy()))
        .collect()
}

//! Owns the workspace state the gate remembers and persists ([`WorkspaceRecord`]: `HEAD`, the
//! snapshot fingerprint and one digest per dirty path), what a caller observed
//! ([`WorkspaceObservation`]), and drift: which paths changed between the remembered state
//! ([`Baseline`]) and a live snapshot, or that this cannot be proven.

use crate::workspace::{DirtyEntry, Scope, WorkspaceError, WorkspaceSnapshot, WorktreeChange};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use xxhash_rust::xxh3::Xxh3;

/// Past this many dirty paths a record keeps only the fingerprint: drift then cannot name paths
/// and armed requirements become `unknown` instead.
pub const MAX_RECORDED_PATHS: usize = 5_000;

/// A full workspace snapshot reduced to what drift detection needs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkspaceRecord {
    /// `HEAD`'s commit id; `None` for an unborn branch.
    pub head: Option<String>,
    /// The snapshot fingerprint; `None` once a path-limited snapshot patched the record.
    pub fingerprint: Option<String>,
    /// Path → digest of its dirty status and content; `None` past [`MAX_RECORDED_PATHS`].
    pub dirty: Option<BTreeMap<String, String>>,
}

/// A path-limited snapshot reduced the same way: the state of `paths` only.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartialRecord {
    /// `HEAD`'s commit id.
    pub head: Option<String>,
    /// The paths the snapshot looked at (a directory covers everything below it).
    pub paths: BTreeSet<String>,
    /// The dirty ones among them, with their digests.
    pub dirty: BTreeMap<String, String>,
}

/// A workspace snapshot as the gate receives it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum WorkspaceObservation {
    /// A full snapshot.
    Full(WorkspaceRecord),
    /// A path-limited snapshot (a wave whose only mutating calls were `write`/`edit`).
    Partial(PartialRecord),
    /// No snapshot could be taken.
    Unavailable {
        /// Why, e.g. the snapshot error.
        reason: String,
    },
}

impl WorkspaceObservation {
    /// Reduces a snapshot, full or path-limited.
    pub fn of_snapshot(snapshot: &WorkspaceSnapshot) -> Self {
        let digests = snapshot
            .entries()
            .iter()
            .map(|(path, entry)| (path.clone(), entry_digest(entry)));
        let head = snapshot.head().id.clone();
        match snapshot.scope() {
            Scope::Full => {
                let dirty =
                    (snapshot.entries().len() <= MAX_RECORDED_PATHS).then(|| digests.collect());
                WorkspaceObservation::Full(WorkspaceRecord {
                    head,
                    fingerprint: Some(snapshot.fingerprint().to_owned()),
                    dirty,
                })
            }
            Scope::Paths(paths) => WorkspaceObservation::Partial(PartialRecord {
                head,
                paths: paths.clone(),
                dirty: digests.collect(),
            }),
        }
    }

    /// Reduces the result of a capture; a failed capture is [`WorkspaceObservation::Unavailable`].
    pub fn of_capture(capture: Result<WorkspaceSnapshot, WorkspaceError>) -> Self {
        match capture {
            Ok(snapshot) => Self::of_snapshot(&snapshot),
            Err(error) => WorkspaceObservation::Unavailable {
                reason: error.to_string(),
            },
        }
    }
}

/// The workspace state the gate has accounted for, or why it has none.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Baseline {
    /// Every change up to this state was observed and applied.
    Known(WorkspaceRecord),
    /// The state could not be recorded; armed requirements were made `unknown` when it happened.
    Unknown {
        /// Why.
        reason: String,
    },
}

/// What changed between the baseline and a live observation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Drift {
    /// Nothing, or nothing the gate has not already accounted for.
    None,
    /// These paths changed.
    Paths(BTreeSet<String>),
    /// Something may have changed; which paths cannot be proven.
    Unknown(String),
}

impl Baseline {
    /// The baseline a live observation establishes.
    pub(crate) fn of(live: &WorkspaceObservation) -> Self {
        match live {
            WorkspaceObservation::Full(record) => Baseline::Known(record.clone()),
            WorkspaceObservation::Partial(_) => Baseline::Unknown {
                reason: "only a path-limited snapshot was available".to_owned(),
            },
            WorkspaceObservation::Unavailable { reason } => Baseline::Unknown {
                reason: reason.clone(),
            },
        }
    }

    /// The changes from this baseline to `live`, for a refresh (session start, settle).
    pub(crate) fn drift_to(&self, live: &WorkspaceObservation) -> Drift {
        match (self, live) {
            (Baseline::Unknown { .. }, WorkspaceObservation::Unavailable { .. }) => Drift::None,
            (Baseline::Unknown { reason }, _) => Drift::Unknown(format!(
                "the workspace could not be recorded earlier ({reason}), so changes since then cannot be attributed"
            )),
            (Baseline::Known(_), WorkspaceObservation::Unavailable { reason }) => {
                Drift::Unknown(format!("the workspace snapshot failed: {reason}"))
            }
            (Baseline::Known(_), WorkspaceObservation::Partial(_)) => Drift::Unknown(
                "only a path-limited snapshot was available, which cannot show changes elsewhere"
                    .to_owned(),
            ),
            (Baseline::Known(before), WorkspaceObservation::Full(after)) => before.drift_to(after),
        }
    }

    /// Folds in the workspace after a wave and returns why the baseline was lost, if it was lost
    /// here (the caller then makes armed requirements `unknown`). `None` (no snapshot) leaves the
    /// baseline as it was, so the wave's changes reappear as drift at the next refresh. An
    /// unknown baseline is re-established only by a refresh, which treats the gap as unprovable.
    pub(crate) fn after_wave(&mut self, after: Option<&WorkspaceObservation>) -> Option<String> {
        let Baseline::Known(record) = self else {
            return None;
        };
        let reason = match after? {
            WorkspaceObservation::Full(next) => {
                *record = next.clone();
                return None;
            }
            WorkspaceObservation::Partial(partial) => record.patch(partial).err()?,
            WorkspaceObservation::Unavailable { reason } => {
                format!("the workspace snapshot after a wave failed: {reason}")
            }
        };
        *self = Baseline::Unknown {
            reason: reason.clone(),
        };
        Some(reason)
    }
}

impl WorkspaceRecord {
    fn drift_to(&self, after: &WorkspaceRecord) -> Drift {
        if self.fingerprint.is_some() && self.fingerprint == after.fingerprint {
            return Drift::None;
        }
        if self.head != after.head {
            return Drift::Unknown(format!(
                "HEAD moved from {} to {} outside the observed tool calls",
                short(self.head.as_deref()),
                short(after.head.as_deref()),
            ));
        }
        let (Some(before), Some(now)) = (&self.dirty, &after.dirty) else {
            return Drift::Unknown(format!(
                "more than {MAX_RECORDED_PATHS} dirty paths: changed paths cannot be named"
            ));
        };
        let changed: BTreeSet<String> = before
            .keys()
            .chain(now.keys())
            .filter(|path| before.get(*path) != now.get(*path))
            .cloned()
            .collect();
        if changed.is_empty() {
            Drift::None
        } else {
            Drift::Paths(changed)
        }
    }

    /// Replaces the state of `partial.paths` with what the path-limited snapshot saw.
    fn patch(&mut self, partial: &PartialRecord) -> Result<(), String> {
        if partial.head != self.head {
            return Err(format!(
                "HEAD moved from {} to {} during a wave with only a path-limited snapshot",
                short(self.head.as_deref()),
                short(partial.head.as_deref()),
            ));
        }
        self.fingerprint = None;
        if let Some(dirty) = &mut self.dirty {
            let scope = Scope::Paths(partial.paths.clone());
            dirty.retain(|path, _| !scope.contains(path));
            dirty.extend(partial.dirty.clone());
            if dirty.len() > MAX_RECORDED_PATHS {
                self.dirty = None;
            }
        }
        Ok(())
    }
}

fn short(head: Option<&str>) -> &str {
    head.map_or("an unborn branch", |id| id.get(..12).unwrap_or(id))
}

/// A digest of everything a snapshot knows about one dirty path: its `XY` status, rename
/// source, submodule detail and current content.
fn entry_digest(entry: &DirtyEntry) -> String {
    let mut hasher = Xxh3::new();
    hasher.update(entry.xy().as_bytes());
    hasher.update(b"\0");
    hasher.update(entry.source_path().unwrap_or_default().as_bytes());
    hasher.update(b"\0");
    if let Some(WorktreeChange::Submodule(change)) = &entry.worktree {
        hasher.update(&[
            u8::from(change.commit_changed),
            u8::from(change.modified_content),
            u8::from(change.untracked_content),
        ]);
    }
    entry.content.hash_into(&mut hasher);
    format!("{:016x}", hasher.digest())
}

//! Owns the workspace state the gate remembers and persists ([`WorkspaceRecord`]: `HEAD`, the
//! snapshot fingerprint, a digest of the dirty paths and, in memory, one digest per dirty path),
//! what a caller observed ([`WorkspaceObservation`]), and drift: which paths changed between the
//! remembered state ([`Baseline`]) and any later snapshot — live, or a wave's baseline or
//! post-wave snapshot, full or path-limited — or that this cannot be proven. Every observation is
//! compared with the record before it replaces any part of it, so no change is absorbed unseen.

use pi_native_hooks_workspace::{
    DirtyEntry, Scope, WorkspaceError, WorkspaceSnapshot, WorktreeChange,
};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use xxhash_rust::xxh3::Xxh3;

/// Past this many dirty paths a record keeps only the digest of its dirty paths: drift then
/// cannot name paths and armed requirements become `unknown` instead.
pub const MAX_RECORDED_PATHS: usize = 5_000;

/// A state entry carries the named dirty paths of its record only while they fit in this many
/// bytes of JSON; past it, only their digest and count. Keeps every entry small however dirty
/// the worktree is.
pub const PERSISTED_PATHS_BYTES: usize = 4_096;

/// A full workspace snapshot reduced to what drift detection needs.
///
/// In memory the gate keeps one digest per dirty path (up to [`MAX_RECORDED_PATHS`]) so drift can
/// name the paths that changed. The persisted form ([`WorkspaceRecord::persisted`]) keeps that map
/// only while it is small; a record restored without it can still tell "nothing changed" (equal
/// digests) but not which paths did, so such drift makes armed requirements `unknown`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkspaceRecord {
    /// `HEAD`'s commit id; `None` for an unborn branch.
    pub head: Option<String>,
    /// The snapshot fingerprint; `None` once a path-limited snapshot patched the record.
    pub fingerprint: Option<String>,
    /// A digest (32 hex digits) of every dirty path with its status and content; `None` when it
    /// is not known (a path-limited snapshot patched a record that holds no named paths, or an
    /// entry written before the digest existed).
    #[serde(default)]
    pub dirty_digest: Option<String>,
    /// How many paths were dirty; `None` when not known.
    #[serde(default)]
    pub dirty_count: Option<usize>,
    /// Path → digest of its dirty status and content; `None` past [`MAX_RECORDED_PATHS`], and in
    /// a persisted record past [`PERSISTED_PATHS_BYTES`].
    #[serde(default)]
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
    /// A whole-worktree snapshot.
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
                let count = snapshot.entries().len();
                // Past the cap the per-path digests are hashed one by one, never kept.
                let (dirty_digest, dirty) = if count <= MAX_RECORDED_PATHS {
                    let dirty: BTreeMap<String, String> = digests.collect();
                    (map_digest(&dirty), Some(dirty))
                } else {
                    (map_digest(digests), None)
                };
                WorkspaceObservation::Full(WorkspaceRecord {
                    head,
                    fingerprint: Some(snapshot.fingerprint().to_owned()),
                    dirty_digest: Some(dirty_digest),
                    dirty_count: Some(count),
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
#[expect(missing_docs, reason = "`reason` names what it holds")]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Baseline {
    /// Every change up to this state was observed and applied.
    Known(WorkspaceRecord),
    /// The state could not be recorded; armed requirements were made `unknown` when it happened.
    Unknown { reason: String },
}

/// What changed between the baseline and a later observation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Drift {
    /// Nothing, or nothing the gate has not already accounted for.
    None,
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

    /// The form to persist: the record without its named paths once they outgrow
    /// [`PERSISTED_PATHS_BYTES`].
    pub(crate) fn persisted(&self) -> Self {
        match self {
            Baseline::Known(record) => Baseline::Known(record.persisted()),
            Baseline::Unknown { .. } => self.clone(),
        }
    }

    /// The changes from this baseline to `live`, for a refresh (session start, settle).
    pub(crate) fn drift_to(&self, live: &WorkspaceObservation) -> Drift {
        match (self, live) {
            (Baseline::Unknown { .. }, WorkspaceObservation::Unavailable { .. }) => Drift::None,
            (Baseline::Unknown { reason }, _) => Drift::Unknown(gap(reason)),
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

    /// At the start of a wave: the changes from this baseline to the wave's baseline snapshot
    /// `before` (all made before the wave's calls ran: out of band), and the baseline moved to
    /// it — replaced by a full snapshot, patched by a path-limited one on its paths only, so
    /// changes elsewhere stay visible to the next full snapshot.
    ///
    /// An unknown baseline stays unknown under a path-limited snapshot: the gap is reported at the
    /// next full one, and evidence only comes from waves with a full baseline (`bash`).
    pub(crate) fn catch_up(&mut self, before: &WorkspaceObservation) -> Drift {
        self.fold(before, "before", false)
    }

    /// After a wave: folds in the post-wave snapshot `after`. `before` is the wave's baseline
    /// snapshot when the gate saw it ([`Baseline::catch_up`]); without one of the same scope,
    /// whatever differs between this baseline and `after` was never compared and is returned as
    /// drift (the caller leaves out the wave's own changes). A lost baseline is returned as
    /// unknown drift. `None` (no snapshot) leaves the baseline as it was, so the wave's changes
    /// reappear as drift at the next snapshot.
    pub(crate) fn after_wave(
        &mut self,
        before: Option<&WorkspaceObservation>,
        after: Option<&WorkspaceObservation>,
    ) -> Drift {
        let Some(after) = after else {
            return Drift::None;
        };
        let caught_up = matches!(
            (before, after),
            (Some(WorkspaceObservation::Full(_)), _)
                | (
                    Some(WorkspaceObservation::Partial(_)),
                    WorkspaceObservation::Partial(_)
                )
        );
        self.fold(after, "after", caught_up)
    }

    /// Moves the baseline to `observation`, taken `when` (`before` or `after`) a wave, and
    /// returns what changed from the baseline to it — nothing when the two were `compared`
    /// already. A full snapshot replaces the baseline, a path-limited one patches it on its paths;
    /// one that failed loses it.
    fn fold(&mut self, observation: &WorkspaceObservation, when: &str, compared: bool) -> Drift {
        match (&mut *self, observation) {
            (Baseline::Unknown { .. }, WorkspaceObservation::Unavailable { .. })
            | (Baseline::Unknown { .. }, WorkspaceObservation::Partial(_)) => Drift::None,
            (Baseline::Unknown { reason }, WorkspaceObservation::Full(next)) => {
                let drift = Drift::Unknown(gap(reason));
                *self = Baseline::Known(next.clone());
                drift
            }
            (Baseline::Known(_), WorkspaceObservation::Unavailable { reason }) => self.lose(
                format!("the workspace snapshot {when} a wave failed: {reason}"),
            ),
            (Baseline::Known(record), WorkspaceObservation::Full(next)) => {
                let drift = if compared {
                    Drift::None
                } else {
                    record.drift_to(next)
                };
                *record = next.clone();
                drift
            }
            (Baseline::Known(record), WorkspaceObservation::Partial(partial)) => {
                let drift = if compared {
                    Drift::None
                } else {
                    record.drift_within(partial)
                };
                match record.patch(partial) {
                    Ok(()) => drift,
                    Err(moved) => self.lose(moved.to_string()),
                }
            }
        }
    }

    /// Marks the baseline lost for `reason` and returns that as unknown drift.
    fn lose(&mut self, reason: String) -> Drift {
        *self = Baseline::Unknown {
            reason: reason.clone(),
        };
        Drift::Unknown(reason)
    }
}

fn gap(reason: &str) -> String {
    format!(
        "the workspace could not be recorded earlier ({reason}), so changes since then cannot be attributed"
    )
}

impl WorkspaceRecord {
    /// The form to persist: without the named paths once they outgrow [`PERSISTED_PATHS_BYTES`]
    /// (the digest and count stay).
    #[must_use]
    pub fn persisted(&self) -> WorkspaceRecord {
        let dirty = self
            .dirty
            .as_ref()
            .filter(|dirty| fits_in(dirty, PERSISTED_PATHS_BYTES))
            .cloned();
        WorkspaceRecord {
            dirty,
            ..self.clone()
        }
    }

    fn drift_to(&self, after: &WorkspaceRecord) -> Drift {
        if self.fingerprint.is_some() && self.fingerprint == after.fingerprint {
            return Drift::None;
        }
        if self.head != after.head {
            return Drift::Unknown(head_moved(self.head.as_deref(), after.head.as_deref()));
        }
        if let (Some(before), Some(now)) = (&self.dirty, &after.dirty) {
            let changed: BTreeSet<String> = before
                .keys()
                .chain(now.keys())
                .filter(|path| before.get(*path) != now.get(*path))
                .cloned()
                .collect();
            return if changed.is_empty() {
                Drift::None
            } else {
                Drift::Paths(changed)
            };
        }
        if self.dirty_digest.is_some() && self.dirty_digest == after.dirty_digest {
            return Drift::None;
        }
        Drift::Unknown(match after.dirty {
            None => too_many(),
            Some(_) => self.unnamed(),
        })
    }

    /// The changes on `partial`'s paths only.
    fn drift_within(&self, partial: &PartialRecord) -> Drift {
        if self.head != partial.head {
            return Drift::Unknown(head_moved(self.head.as_deref(), partial.head.as_deref()));
        }
        let Some(dirty) = &self.dirty else {
            return Drift::Unknown(self.unnamed());
        };
        let scope = Scope::Paths(partial.paths.clone());
        let changed: BTreeSet<String> = dirty
            .keys()
            .chain(partial.dirty.keys())
            .filter(|path| scope.contains(path))
            .filter(|path| dirty.get(*path) != partial.dirty.get(*path))
            .cloned()
            .collect();
        if changed.is_empty() {
            Drift::None
        } else {
            Drift::Paths(changed)
        }
    }

    /// Why drift from this record cannot be named: it holds no named paths.
    fn unnamed(&self) -> String {
        match self.dirty_count {
            Some(count) if count <= MAX_RECORDED_PATHS && self.dirty_digest.is_some() => format!(
                "the saved verification state keeps only a digest of its {count} dirty paths, so the paths changed since it was saved cannot be named"
            ),
            _ => too_many(),
        }
    }

    /// Replaces the state of `partial.paths` with what the path-limited snapshot saw; the rest of
    /// the record stays as it was recorded, so a change elsewhere still differs from it at the
    /// next full snapshot.
    fn patch(&mut self, partial: &PartialRecord) -> Result<(), HeadMoved> {
        if partial.head != self.head {
            return Err(HeadMoved {
                from: self.head.clone(),
                to: partial.head.clone(),
            });
        }
        self.fingerprint = None;
        let Some(dirty) = &mut self.dirty else {
            // Nothing named to patch: the digest can no longer be brought up to date.
            self.dirty_digest = None;
            self.dirty_count = None;
            return Ok(());
        };
        let scope = Scope::Paths(partial.paths.clone());
        dirty.retain(|path, _| !scope.contains(path));
        dirty.extend(
            partial
                .dirty
                .iter()
                .filter(|(path, _)| scope.contains(path))
                .map(|(path, digest)| (path.clone(), digest.clone())),
        );
        self.dirty_count = Some(dirty.len());
        if dirty.len() > MAX_RECORDED_PATHS {
            self.dirty = None;
            self.dirty_digest = None;
        } else {
            self.dirty_digest = Some(map_digest(dirty));
        }
        Ok(())
    }
}

fn head_moved(from: Option<&str>, to: Option<&str>) -> String {
    format!(
        "HEAD moved from {} to {} outside the observed tool calls",
        short(from),
        short(to),
    )
}

fn too_many() -> String {
    format!("more than {MAX_RECORDED_PATHS} dirty paths: changed paths cannot be named")
}

/// A path-limited snapshot cannot patch a record made at another HEAD: the baseline is lost.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "HEAD moved from {} to {} during a wave with only a path-limited snapshot",
    short(.from.as_deref()),
    short(.to.as_deref())
)]
struct HeadMoved {
    from: Option<String>,
    to: Option<String>,
}

fn short(head: Option<&str>) -> &str {
    head.map_or("an unborn branch", |id| id.get(..12).unwrap_or(id))
}

/// Whether `dirty` serializes as a JSON object within `budget` bytes.
fn fits_in(dirty: &BTreeMap<String, String>, budget: usize) -> bool {
    let mut bytes = 2;
    for (path, digest) in dirty {
        // `"path":"digest",` with the path escaped as JSON.
        let path = serde_json::to_string(path).map_or(usize::MAX, |quoted| quoted.len());
        bytes = path
            .saturating_add(digest.len())
            .saturating_add(4)
            .saturating_add(bytes);
        if bytes > budget {
            return false;
        }
    }
    true
}

/// The digest of a dirty map: every path with its entry digest, in path order (32 hex digits).
/// The same for the map and for the snapshot's entries it was built from.
fn map_digest<P: AsRef<str>, D: AsRef<str>>(dirty: impl IntoIterator<Item = (P, D)>) -> String {
    let mut hasher = Xxh3::new();
    for (path, digest) in dirty {
        let (path, digest) = (path.as_ref(), digest.as_ref());
        hasher.update(path.as_bytes());
        hasher.update(b"\0");
        hasher.update(digest.as_bytes());
        hasher.update(b"\0");
    }
    format!("{:032x}", hasher.digest128())
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

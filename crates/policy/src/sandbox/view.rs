//! The read-only views a diagnostic policy sees: `Snapshot` and `Finding`, registered as Rhai types
//! with getters only (by [`crate::sandbox::rhai_api`]). Each holds the wave's `Arc<AnalysisSnapshot>` (plus an index), so findings
//! are shared by every policy and never copied into Rhai maps.

use crate::registry::contract::rule_selected;
use pi_native_hooks_analysis::{AnalysisSnapshot, Finding};
use pi_native_hooks_base::RuleId;
use rhai::{Array, Dynamic, INT};
use std::sync::Arc;

/// What `evaluate(snapshot)` receives: the wave's snapshot, restricted to the findings of the
/// rules the policy declared in `RULES`.
#[derive(Clone, Debug)]
pub(crate) struct SnapshotView {
    pub(crate) snapshot: Arc<AnalysisSnapshot>,
    pub(crate) selected: Arc<[usize]>,
}

impl SnapshotView {
    /// A view of `snapshot` showing the findings whose rule `rules` selects, in snapshot order.
    pub(crate) fn new(snapshot: Arc<AnalysisSnapshot>, rules: &[RuleId]) -> Self {
        let selected = snapshot
            .findings
            .iter()
            .enumerate()
            .filter(|(_, finding)| rule_selected(rules, finding.rule.as_str()))
            .map(|(index, _)| index)
            .collect();
        Self { snapshot, selected }
    }

    /// True when the policy sees no finding.
    pub(crate) fn is_empty(&self) -> bool {
        self.selected.is_empty()
    }

    /// The snapshot behind the view.
    pub(crate) fn snapshot(&self) -> &AnalysisSnapshot {
        &self.snapshot
    }

    pub(crate) fn views(&self) -> impl Iterator<Item = FindingView> + '_ {
        self.selected.iter().map(|&index| FindingView {
            snapshot: Arc::clone(&self.snapshot),
            index,
        })
    }

    pub(crate) fn findings(&mut self) -> Array {
        self.views().map(Dynamic::from).collect()
    }
}

/// One finding as a policy sees it: 1-based `line`/`column`/`end_line`/`end_column`.
#[derive(Clone, Debug)]
pub(crate) struct FindingView {
    snapshot: Arc<AnalysisSnapshot>,
    index: usize,
}

impl FindingView {
    /// The finding behind the view.
    pub(crate) fn finding(&self) -> &Finding {
        &self.snapshot.findings[self.index]
    }
}

/// A zero-based position as the 1-based integer policies see.
pub(crate) fn one_based(value: usize) -> INT {
    INT::try_from(value).map_or(INT::MAX, |v| v.saturating_add(1))
}

//! Owns the choice of the call whose result carries a wave's block: the last (in source order)
//! potentially mutating call with a real `tool_result`, else the last call with one — among the
//! calls whose handler is still waiting (a handler released by its timeout can carry nothing).

use crate::tracker::plan::PlannedCall;
use std::collections::BTreeSet;

/// The carrier among `calls` (source order) whose ids are in `waiting`.
pub(crate) fn choose<'a>(
    calls: &'a [PlannedCall],
    waiting: &BTreeSet<&str>,
) -> Option<&'a PlannedCall> {
    let candidates = || {
        calls
            .iter()
            .filter(|call| call.result.is_some() && waiting.contains(call.id.as_str()))
    };
    candidates()
        .rfind(|call| call.class.is_mutating())
        .or_else(|| candidates().next_back())
}

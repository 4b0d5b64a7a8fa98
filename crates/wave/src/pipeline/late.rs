//! Owns what arrives late: at the settle, the analyzers are asked once more for what a wave left
//! pending (a type check that outlasted the wave's wait), and the diagnostics that check finds
//! introduced — judged against each file's "before" and recorded as delivered, exactly as a
//! wave's — are rendered in one block for the settle's continuation.

use crate::coordinator::runtime::WaveRuntime;
use crate::pipeline::prior::Judged;
use crate::pipeline::snapshots::SnapshotSource;
use crate::pipeline::{introduced, pre_existing_per_file, remember};
use pi_native_hooks_analysis::PolicyDiagnostic;
use pi_native_hooks_base::run_blocking;
use pi_native_hooks_delivery::{Block, Warnings, render_late};
use std::time::Duration;

/// The block of what the pending analyses introduced, asked once more and waited for at most
/// `wait`; `None` when nothing was pending or they introduced nothing (a check still incomplete
/// stays pending and is named in the status: it gives the agent nothing to act on).
pub(crate) async fn late_block<W: SnapshotSource>(
    runtime: &WaveRuntime<W>,
    wait: Duration,
) -> Option<Block> {
    let lane = runtime.lane().await;
    if runtime.is_stopped() || !lane.has_pending() {
        return None;
    }
    let root = runtime
        .source()
        .git_root()
        .unwrap_or_else(|| runtime.source().cwd())
        .to_path_buf();
    let cancel = runtime.policy_cancellation();
    let source = runtime.shared_source();
    let (mut lane, analysis, priors) = run_blocking(move || {
        let mut lane = lane;
        let analysis = lane.flush(&root, wait, &cancel);
        let priors = lane.priors(&analysis, |paths, limit| {
            source.head_blobs(paths, None, limit)
        });
        (lane, analysis, priors)
    })
    .await
    .ok()?;
    let wave_diagnostics = analysis.diagnostics();
    let selection = lane.memory().select(&wave_diagnostics);
    let judged = Judged::new(&analysis, &priors);
    let (fresh, old) = introduced(&selection.fresh, &judged);
    let pre_existing = pre_existing_per_file(&old);
    let warnings = Warnings {
        policy_failures: analysis.policy_failures(),
        analyzer_failures: analysis.analyzer_failures(),
        files_not_analyzed: analysis.files_not_analyzed(),
        files_not_type_checked: analysis.files_not_type_checked(),
        coordinator_failures: 0,
    };
    let diagnostics: Vec<&PolicyDiagnostic> = fresh.iter().map(|k| &k.diagnostic).collect();
    let block = if fresh.is_empty() {
        None
    } else {
        render_late(
            &diagnostics,
            &pre_existing,
            &warnings,
            runtime.config().render,
        )
    };
    let shown = block.as_ref().map_or(&[][..], |block| &block.shown[..]);
    remember(
        &mut lane,
        &analysis,
        &judged,
        &wave_diagnostics,
        &fresh,
        shown,
    );
    runtime.note_stores(lane.stores());
    block
}

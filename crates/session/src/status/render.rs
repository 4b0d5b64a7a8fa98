//! Owns the `/hooks-status` text: the [`SessionReport`] rendered one escaped line per item
//! ([`pi_native_hooks_base::text`]), so a file name, a policy message or a reason cannot add
//! lines or drive the terminal; and the lines it shares with the doctor text (`put`, the files an
//! analyzer could not analyze).

use crate::status::report::SessionReport;
use crate::status::{
    AnalyzerStatus, ConfigHealth, RequirementStatus, SettingsStatus, VerificationStatus,
};
use pi_native_hooks_analysis::TreeCacheStats;
use pi_native_hooks_base::{byte_size, escape};
use pi_native_hooks_verification::Timestamp;
use pi_native_hooks_wave::{LaneStores, NotAnalyzed};
use pi_native_hooks_workspace::{WatchState, WatchStatus};
use std::fmt::Arguments;

/// Appends one line, escaped.
pub(super) fn put(out: &mut String, line: Arguments<'_>) {
    out.push_str(&escape(&line.to_string()));
    out.push('\n');
}

/// One line: whether whole-worktree snapshots come from the watcher, how many did, and why the
/// latest full one was taken.
fn render_watcher(out: &mut String, watcher: &WatchStatus) {
    let state = match &watcher.state {
        WatchState::Watching { directories } => format!("watching {directories} directories"),
        WatchState::Unarmed => "not watching until the next snapshot".to_owned(),
        WatchState::Unavailable { reason } => format!("off ({reason})"),
    };
    let last = watcher
        .last_fallback
        .as_ref()
        .map_or_else(String::new, |reason| {
            format!(", last full because {reason}")
        });
    put(
        out,
        format_args!(
            "workspace watcher: {state}; snapshots from events: {}, full: {}{last}",
            watcher.watched, watcher.full
        ),
    );
}

/// The status as `/hooks-status` prints it: one escaped line per item.
pub fn render_status(status: &SessionReport) -> String {
    let mut out = String::new();
    let hooks = &status.hooks;
    put(
        &mut out,
        format_args!(
            "pi-native-hooks {}",
            if status.active { "active" } else { "inactive" }
        ),
    );
    if let Some(guidance) = &status.guidance {
        put(&mut out, format_args!("{guidance}"));
    }
    match &hooks.config.health {
        ConfigHealth::Active { root } | ConfigHealth::Absent { root } => {
            put(&mut out, format_args!("config root: {}", root.display()));
        }
        ConfigHealth::Untrusted { root, error } => {
            put(
                &mut out,
                format_args!("config root: {} (untrusted: {error})", root.display()),
            );
        }
        ConfigHealth::Builtin => {
            put(&mut out, format_args!("config: built-in pack"));
        }
    }
    if status.active {
        put(
            &mut out,
            format_args!("registry digest: {}", hooks.config.registry_digest),
        );
        put(&mut out, format_args!("policies:"));
        for policy in &hooks.config.policies {
            put(
                &mut out,
                format_args!(
                    "  {} ({}) {}: loaded, digest {}",
                    policy.id,
                    policy.kind,
                    policy.path.display(),
                    policy.digest
                ),
            );
        }
    }
    for error in &hooks.config.load_errors {
        let state = if error.degraded_from.is_some() {
            "degraded"
        } else {
            "failed"
        };
        put(&mut out, format_args!("  {state}: {}", error.message));
    }
    for problem in &status.rule_problems {
        put(&mut out, format_args!("  rule problem: {problem}"));
    }
    if status.active {
        render_settings(&mut out, &hooks.settings);
    }
    let totals = &status.totals;
    put(
        &mut out,
        format_args!(
            "waves: {} ({} mutating), scans: {}, files parsed: {}, cached: {}, diagnostics delivered: {}",
            totals.waves,
            totals.mutating_waves,
            totals.scans,
            totals.files_parsed,
            totals.files_cached,
            totals.delivered
        ),
    );
    if status.active {
        render_stores(&mut out, &status.stores);
    }
    if let Some(watcher) = &status.watcher {
        render_watcher(&mut out, watcher);
    }
    for line in &status.analyzer_lines {
        put(&mut out, format_args!("{line}"));
    }
    for analyzer in &hooks.analyzers {
        render_analyzer(&mut out, analyzer);
    }
    for failure in &status.policy_failures {
        put(&mut out, format_args!("policy failure: {failure}"));
    }
    render_verification(&mut out, &hooks.verification);
    for failure in &hooks.coordinator_failures {
        put(&mut out, format_args!("coordinator failure: {failure}"));
    }
    for warning in &hooks.state_warnings {
        put(&mut out, format_args!("state warning: {warning}"));
    }
    out
}

/// One analyzer's runs and health, the trees it holds and the files it could not analyze.
fn render_analyzer(out: &mut String, analyzer: &AnalyzerStatus) {
    let last = analyzer
        .last_duration_micros
        .map_or_else(|| "-".to_owned(), |m| format!("{m} µs"));
    let health = analyzer.last_error.as_deref().unwrap_or("ok");
    put(
        out,
        format_args!(
            "analyzer {}: {} runs, last {last}, {health}",
            analyzer.key, analyzer.runs
        ),
    );
    if let Some(trees) = &analyzer.trees {
        render_trees(out, trees);
    }
    render_not_analyzed(out, &analyzer.not_analyzed);
}

/// The settings in force, one line per key as `doctor` lists them, then the file's problems.
fn render_settings(out: &mut String, settings: &SettingsStatus) {
    put(out, format_args!("settings: {}", settings.origin));
    // Without a file the values are the documented defaults (or a test's overrides).
    if settings.file.is_none() && settings.problems.is_empty() {
        return;
    }
    put(
        out,
        format_args!(
            "  verification.continuation_cap = {}, waves.timeout_ms = {}, diagnostic_block.max_tokens = {}, diagnostic_block.max_line_chars = {}, analysis.tree_cache_bytes = {}",
            settings.continuation_cap,
            settings.wave_timeout_ms,
            settings.block_max_tokens,
            settings.block_max_line_chars,
            settings.tree_cache_bytes
        ),
    );
    if !settings.read_only_tools.is_empty() {
        put(
            out,
            format_args!(
                "  tools.read_only = [{}]",
                settings.read_only_tools.join(", ")
            ),
        );
    }
    for tool in &settings.shell_tools {
        put(
            out,
            format_args!(
                "  tools.shell: {}, exit code from {}",
                tool.name, tool.exit_code
            ),
        );
    }
    for problem in &settings.problems {
        put(out, format_args!("  settings problem: {problem}"));
    }
}

/// The delivery's per-session stores against their bounds. What they let go of is only ever
/// delivered again, never hidden.
fn render_stores(out: &mut String, stores: &LaneStores) {
    let (delivered, history) = (&stores.delivered, &stores.history);
    put(
        out,
        format_args!(
            "session memory: delivered findings remembered {} of {} ({} forgotten, delivered again if still there); findings before each wave kept for {} of {} paths ({} forgotten, compared with HEAD again)",
            delivered.held,
            delivered.capacity,
            delivered.dropped,
            history.held,
            history.capacity,
            history.dropped
        ),
    );
}

/// What an analyzer holds for incremental re-analysis, and how it analyzed the files so far.
fn render_trees(out: &mut String, trees: &TreeCacheStats) {
    put(
        out,
        format_args!(
            "  held trees: {} files, {} of {} (analysis.tree_cache_bytes), {} evicted; files analyzed: {} in full, {} incrementally",
            trees.held_files,
            byte_size(trees.held_bytes),
            byte_size(trees.budget_bytes),
            trees.evictions,
            trees.full_analyses,
            trees.incremental_analyses
        ),
    );
}

/// The files an analyzer's last run could not analyze, one line each.
pub(super) fn render_not_analyzed(out: &mut String, not_analyzed: &NotAnalyzed) {
    for file in &not_analyzed.files {
        put(
            out,
            format_args!("  not analyzed: {}: {}", file.path, file.reason),
        );
    }
    if not_analyzed.more > 0 {
        put(
            out,
            format_args!("  not analyzed: {} more files", not_analyzed.more),
        );
    }
}

fn render_verification(out: &mut String, verification: &VerificationStatus) {
    match &verification.project_root {
        Some(root) => put(
            out,
            format_args!(
                "project: {} (revision {})",
                root.display(),
                verification.workspace.revision
            ),
        ),
        None => put(out, format_args!("project: not in a git worktree")),
    }
    if let Some(unknown) = &verification.workspace.unknown {
        put(out, format_args!("  workspace unknown: {unknown}"));
    }
    for problem in &verification.project_problems {
        put(out, format_args!("  project problem: {problem}"));
    }
    if verification.requirements.is_empty() {
        put(
            out,
            format_args!("verification: no requirement matches this project"),
        );
    }
    for requirement in &verification.requirements {
        let revision = requirement
            .required_revision
            .map_or_else(|| "-".to_owned(), |r| r.to_string());
        put(
            out,
            format_args!(
                "  {} `{}`: {} (required revision {revision})",
                requirement.key, requirement.command, requirement.state
            ),
        );
        if let Some(waiver) = &requirement.waiver {
            put(
                out,
                format_args!(
                    "    waived (not passed): {} (call {}, {})",
                    waiver.reason,
                    waiver.tool_call_id,
                    utc(waiver.at)
                ),
            );
        }
        if let Some(failure) = &requirement.last_failure {
            put(
                out,
                format_args!(
                    "    last failure: {failure} (call {}, revision {}, {})",
                    failure.tool_call_id,
                    failure.required_revision,
                    utc(failure.at)
                ),
            );
        }
        if let Some(reason) = &requirement.unknown_reason {
            put(out, format_args!("    unknown: {reason}"));
        }
        render_requirement_history(out, requirement);
    }
    let gate = &verification.gate;
    if gate.exhausted {
        put(
            out,
            format_args!(
                "gate exhausted after {} continuations without progress: checks stay pending",
                gate.continuations_without_progress
            ),
        );
    }
}

/// A requirement's project and directory, last success, last rejected run and, when no loaded
/// policy backs it, why: the lines that say why it is in its state.
fn render_requirement_history(out: &mut String, requirement: &RequirementStatus) {
    let project = &requirement.project;
    put(
        out,
        format_args!(
            "    project {project}, run in {}",
            requirement.dir.display()
        ),
    );
    match &requirement.last_success {
        Some(success) => put(
            out,
            format_args!(
                "    last success: call {} at revision {} (required {}), {}",
                success.tool_call_id,
                success.started_at_revision,
                success.required_revision,
                utc(success.at)
            ),
        ),
        None => put(out, format_args!("    last success: none")),
    }
    if let Some(rejection) = &requirement.last_rejection {
        put(
            out,
            format_args!(
                "    last rejected run: call {} at revision {}, {}: {}",
                rejection.tool_call_id,
                rejection.revision,
                utc(rejection.at),
                rejection.reason
            ),
        );
    }
    if let Some(detached) = &requirement.detached {
        put(out, format_args!("    detached: {detached}"));
    }
}

/// A timestamp as a UTC date and time (`2026-12-01 16:20:15 UTC`), from the days since the
/// epoch by the civil-from-days algorithm (H. Hinnant), so no clock or time zone is read.
fn utc(at: Timestamp) -> String {
    let seconds = at.0 / 1000;
    let (days, rest) = (seconds / 86_400, seconds % 86_400);
    // Shifted so the era starts on 0000-03-01; days fit in i64 for any u64 of milliseconds.
    let z = i64::try_from(days).unwrap_or(i64::MAX - 719_468) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

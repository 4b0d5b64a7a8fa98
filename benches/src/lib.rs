//! Shared helpers for the pi-native-hooks benchmarks: reading criterion's results back after a run
//! and reporting them as the ratios the performance targets are stated in.
//!
//! Criterion writes one `estimates.json` per benchmark under
//! `<criterion home>/<group>/<id>/new/`; [`mean_estimate`] reads the mean point estimate from it,
//! and only if the file was written by the current run, so a filtered run never reports a stale
//! figure as fresh.

pub mod figures;
pub mod ts_project;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

/// Where criterion writes its results, resolved the way criterion does: `$CRITERION_HOME`, else
/// `$CARGO_TARGET_DIR/criterion`, else the target directory `cargo metadata` reports, else
/// `<workspace_root>/target/criterion`.
pub fn criterion_home(workspace_root: &Path) -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(home);
    }
    if let Some(target) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(target).join("criterion");
    }
    cargo_target_directory()
        .unwrap_or_else(|| workspace_root.join("target"))
        .join("criterion")
}

fn cargo_target_directory() -> Option<PathBuf> {
    let output = Command::new(std::env::var_os("CARGO")?)
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .output()
        .ok()?;
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).ok()?;
    metadata
        .get("target_directory")?
        .as_str()
        .map(PathBuf::from)
}

/// Why a benchmark has no figure.
#[derive(Debug, Clone, PartialEq)]
pub enum NoEstimate {
    /// No `estimates.json` written since the run started (filtered out, skipped or test mode).
    NotMeasured,
    /// The file exists but could not be read or has no mean.
    Unreadable(String),
}

/// The mean time per iteration in nanoseconds of benchmark `<group>/<id>`, if criterion wrote it
/// at or after `since`.
pub fn mean_estimate(
    home: &Path,
    group: &str,
    id: &str,
    since: SystemTime,
) -> Result<f64, NoEstimate> {
    let path = home.join(group).join(id).join("new").join("estimates.json");
    let Ok(meta) = std::fs::metadata(&path) else {
        return Err(NoEstimate::NotMeasured);
    };
    let modified = meta
        .modified()
        .map_err(|e| NoEstimate::Unreadable(format!("{}: {e}", path.display())))?;
    if modified < since {
        return Err(NoEstimate::NotMeasured);
    }
    let text = std::fs::read_to_string(&path)
        .map_err(|e| NoEstimate::Unreadable(format!("{}: {e}", path.display())))?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| NoEstimate::Unreadable(format!("{}: {e}", path.display())))?;
    value
        .pointer("/mean/point_estimate")
        .and_then(serde_json::Value::as_f64)
        .ok_or_else(|| {
            NoEstimate::Unreadable(format!("{}: no mean.point_estimate", path.display()))
        })
}

/// A bound a ratio must respect.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Bound {
    /// The ratio must be at most this.
    AtMost(f64),
    /// The ratio must be strictly below this.
    Below(f64),
    /// The ratio must be at least this.
    AtLeast(f64),
}

impl Bound {
    /// Whether `ratio` respects the bound.
    pub fn holds(self, ratio: f64) -> bool {
        match self {
            Bound::AtMost(limit) => ratio <= limit,
            Bound::Below(limit) => ratio < limit,
            Bound::AtLeast(limit) => ratio >= limit,
        }
    }
}

impl std::fmt::Display for Bound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Bound::AtMost(limit) => write!(f, "<= {limit}"),
            Bound::Below(limit) => write!(f, "< {limit}"),
            Bound::AtLeast(limit) => write!(f, ">= {limit}"),
        }
    }
}

/// One reported ratio: the mean of `numerator` over the mean of `denominator` (both groups), for
/// each wave size, checked against `bound` for the wave sizes in `target_waves`.
#[derive(Debug, Clone, Copy)]
pub struct Ratio {
    /// The group measured in the numerator.
    pub numerator: &'static str,
    /// The group measured in the denominator.
    pub denominator: &'static str,
    /// The target, if the ratio has one.
    pub bound: Option<Bound>,
    /// The wave sizes the target applies to (empty: all).
    pub target_waves: &'static [usize],
}

impl Ratio {
    fn applies_to(&self, wave: usize) -> Option<Bound> {
        self.bound
            .filter(|_| self.target_waves.is_empty() || self.target_waves.contains(&wave))
    }
}

/// Formats nanoseconds with a unit that keeps three significant digits.
pub fn format_duration(nanos: f64) -> String {
    if nanos >= 1e9 {
        format!("{:.3} s", nanos / 1e9)
    } else if nanos >= 1e6 {
        format!("{:.3} ms", nanos / 1e6)
    } else if nanos >= 1e3 {
        format!("{:.2} µs", nanos / 1e3)
    } else {
        format!("{nanos:.0} ns")
    }
}

/// Formats a ratio: two decimals from 1 up, four significant-looking decimals below.
fn format_ratio(ratio: f64) -> String {
    if ratio >= 1.0 {
        format!("{ratio:.2}x")
    } else {
        format!("{ratio:.4}x")
    }
}

/// The text printed after a run: the Markdown table of [`markdown_report`] (or why there is
/// none), how many of the targets that apply were met, and any estimate that could not be read.
/// `mean(group, wave)` returns the measured mean in nanoseconds.
pub fn report(
    groups: &[&str],
    waves: &[usize],
    ratios: &[Ratio],
    mean: impl Fn(&str, usize) -> Result<f64, NoEstimate>,
) -> String {
    let mut problems = Vec::new();
    let mut lookup = |group: &str, wave: usize| match mean(group, wave) {
        Ok(nanos) => Some(nanos),
        Err(NoEstimate::NotMeasured) => None,
        Err(NoEstimate::Unreadable(why)) => {
            problems.push(why);
            None
        }
    };
    let Some((table, met, targets)) = render(groups, waves, "files", ratios, &mut lookup) else {
        return "\nNothing was measured in this run (test mode or filtered out): no ratios."
            .to_owned();
    };
    let mut text = format!("\n{table}\nTargets met: {met} of {targets}\n");
    problems.sort();
    problems.dedup();
    for problem in problems {
        let _ = writeln!(text, "warning: {problem}");
    }
    text
}

/// The same run as a Markdown table for the docs: one row per group with its mean per wave size,
/// then one row per ratio with its value per wave size and the target's verdict, or `None` when
/// nothing was measured. `unit` names the columns (`files`, `findings`).
pub fn markdown_report(
    groups: &[&str],
    waves: &[usize],
    unit: &str,
    ratios: &[Ratio],
    mean: impl Fn(&str, usize) -> Result<f64, NoEstimate>,
) -> Option<String> {
    render(groups, waves, unit, ratios, &mut |group, wave| {
        mean(group, wave).ok()
    })
    .map(|(table, _, _)| table)
}

/// The Markdown table of [`markdown_report`], with how many of the targets that apply were met.
fn render(
    groups: &[&str],
    waves: &[usize],
    unit: &str,
    ratios: &[Ratio],
    lookup: &mut dyn FnMut(&str, usize) -> Option<f64>,
) -> Option<(String, usize, usize)> {
    let means: Vec<Vec<Option<f64>>> = groups
        .iter()
        .map(|group| waves.iter().map(|&wave| lookup(group, wave)).collect())
        .collect();
    if means.iter().flatten().all(Option::is_none) {
        return None;
    }
    let mean_of = |group: &str, index: usize| {
        groups
            .iter()
            .position(|g| *g == group)
            .and_then(|g| means[g][index])
    };
    let mut out = String::new();
    let mut header = String::new();
    for &wave in waves {
        let unit = if wave == 1 {
            unit.trim_end_matches('s')
        } else {
            unit
        };
        let _ = write!(header, " {} {unit} |", thousands(wave));
    }
    let rule: String = waves.iter().map(|_| " ---: |").collect();
    let _ = writeln!(out, "| mean |{header}\n| --- |{rule}");
    for (group, row) in groups.iter().zip(&means) {
        let _ = write!(out, "| `{group}` |");
        for cell in row {
            let cell = cell.map_or_else(|| "—".to_owned(), format_duration);
            let _ = write!(out, " {cell} |");
        }
        out.push('\n');
    }
    let (mut met, mut targets) = (0, 0);
    if ratios.is_empty() {
        return Some((out, met, targets));
    }
    let _ = writeln!(
        out,
        "\n| ratio of the means |{header} target |\n| --- |{rule} --- |"
    );
    for ratio in ratios {
        let mut verdicts = Vec::new();
        let mut cells = String::new();
        for (index, &wave) in waves.iter().enumerate() {
            let (Some(top), Some(bottom)) = (
                mean_of(ratio.numerator, index),
                mean_of(ratio.denominator, index),
            ) else {
                cells.push_str(" not measured |");
                continue;
            };
            let value = top / bottom;
            if let Some(bound) = ratio.applies_to(wave) {
                verdicts.push((wave, bound.holds(value)));
            }
            let _ = write!(cells, " {} |", format_ratio(value));
        }
        targets += verdicts.len();
        met += verdicts.iter().filter(|(_, held)| *held).count();
        let target = target_verdict(ratio, &verdicts, unit);
        let _ = writeln!(
            out,
            "| `{}` / `{}` |{cells} {} |",
            ratio.numerator,
            ratio.denominator,
            target.replace("<=", "≤").replace(">=", "≥")
        );
    }
    Some((out, met, targets))
}

/// A ratio's target and its verdict at the wave sizes in `verdicts` (size, whether it held).
fn target_verdict(ratio: &Ratio, verdicts: &[(usize, bool)], unit: &str) -> String {
    match ratio.bound {
        None => "—".to_owned(),
        Some(bound) if verdicts.is_empty() => format!("{bound}: not measured"),
        Some(bound) => {
            let unit_for = |waves: &[String]| {
                if waves == ["1"] {
                    unit.trim_end_matches('s')
                } else {
                    unit
                }
            };
            let missed: Vec<String> = verdicts
                .iter()
                .filter(|(_, held)| !held)
                .map(|(wave, _)| thousands(*wave))
                .collect();
            let scope = if ratio.target_waves.is_empty() {
                String::new()
            } else {
                let waves: Vec<String> = ratio.target_waves.iter().map(|w| thousands(*w)).collect();
                format!(" at {} {}", waves.join(", "), unit_for(&waves))
            };
            if missed.is_empty() {
                format!("{bound}{scope}: met")
            } else {
                format!(
                    "{bound}{scope}: **missed** at {} {}",
                    missed.join(", "),
                    unit_for(&missed)
                )
            }
        }
    }
}

/// `12345` as `12,345`.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// Writes a bench's Markdown figures to `$FIGURES_OUT/<name>.md` when `scripts/bench-figures`
/// asked for them (the variable is set); says where, or why not.
pub fn write_figures(name: &str, markdown: Option<&str>) -> Option<String> {
    let dir = std::env::var_os("FIGURES_OUT")?;
    let Some(markdown) = markdown else {
        return Some(format!(
            "FIGURES_OUT is set but nothing was measured: no {name}.md written"
        ));
    };
    let path = PathBuf::from(dir).join(format!("{name}.md"));
    Some(match std::fs::write(&path, markdown) {
        Ok(()) => format!("figures written to {}", path.display()),
        Err(error) => format!("warning: cannot write {}: {error}", path.display()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn write_estimate(home: &Path, group: &str, id: &str, mean: f64) {
        let dir = home.join(group).join(id).join("new");
        std::fs::create_dir_all(&dir).unwrap();
        let json = format!(
            r#"{{"mean":{{"confidence_interval":{{"confidence_level":0.95,"lower_bound":1.0,"upper_bound":2.0}},"point_estimate":{mean},"standard_error":0.1}}}}"#
        );
        std::fs::write(dir.join("estimates.json"), json).unwrap();
    }

    #[test]
    fn reads_the_mean_written_by_this_run_only() {
        let home = tempfile::tempdir().unwrap();
        let before = SystemTime::now() - Duration::from_secs(60);
        write_estimate(home.path(), "engine", "10", 1_500_000.0);
        assert_eq!(
            mean_estimate(home.path(), "engine", "10", before),
            Ok(1_500_000.0)
        );
        let later = SystemTime::now() + Duration::from_secs(60);
        assert_eq!(
            mean_estimate(home.path(), "engine", "10", later),
            Err(NoEstimate::NotMeasured)
        );
        assert_eq!(
            mean_estimate(home.path(), "engine", "1", before),
            Err(NoEstimate::NotMeasured)
        );
    }

    #[test]
    fn a_file_without_a_mean_is_reported() {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("g/1/new");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("estimates.json"), "{}").unwrap();
        let since = SystemTime::now() - Duration::from_secs(60);
        assert!(matches!(
            mean_estimate(home.path(), "g", "1", since),
            Err(NoEstimate::Unreadable(_))
        ));
    }

    #[test]
    fn report_shows_ratios_and_verdicts() {
        let ratios = [
            Ratio {
                numerator: "engine",
                denominator: "parse-floor",
                bound: Some(Bound::AtMost(1.2)),
                target_waves: &[],
            },
            Ratio {
                numerator: "cli",
                denominator: "engine",
                bound: Some(Bound::AtLeast(10.0)),
                target_waves: &[1],
            },
        ];
        let mean = |group: &str, wave: usize| match (group, wave) {
            ("engine", 1) => Ok(1_100.0),
            ("parse-floor", 1) => Ok(1_000.0),
            ("cli", 1) => Ok(22_000.0),
            ("engine", 10) => Ok(13_000.0),
            ("parse-floor", 10) => Ok(10_000.0),
            ("cli", 10) => Err(NoEstimate::Unreadable("cli/10: no mean".to_owned())),
            _ => Err(NoEstimate::NotMeasured),
        };
        let groups = ["engine", "parse-floor", "cli"];
        let text = report(&groups, &[1, 10], &ratios, mean);
        let table = markdown_report(&groups, &[1, 10], "files", &ratios, mean).unwrap();
        assert!(
            table.contains(
                "| `engine` / `parse-floor` | 1.10x | 1.30x | ≤ 1.2: **missed** at 10 files |"
            ),
            "{table}"
        );
        assert!(
            table.contains("| `cli` / `engine` | 20.00x | not measured | ≥ 10 at 1 file: met |"),
            "{table}"
        );
        assert!(table.contains("| `cli` | 22.00 µs | — |"), "{table}");
        assert!(table.contains("1.10 µs"), "{table}");
        assert!(text.contains(&table), "{text}");
        assert!(text.contains("Targets met: 2 of 3"), "{text}");
        assert!(text.contains("warning: cli/10: no mean"), "{text}");
    }

    #[test]
    fn the_markdown_report_gives_every_verdict() {
        let ratios = [
            Ratio {
                numerator: "engine",
                denominator: "floor",
                bound: Some(Bound::AtMost(1.2)),
                target_waves: &[],
            },
            Ratio {
                numerator: "floor",
                denominator: "engine",
                bound: Some(Bound::AtLeast(10.0)),
                target_waves: &[1_000],
            },
        ];
        let text = markdown_report(
            &["engine", "floor"],
            &[1, 1_000],
            "files",
            &ratios,
            |group, wave| match (group, wave) {
                ("engine", 1) => Ok(1_100.0),
                ("floor", 1) => Ok(1_000.0),
                ("engine", 1_000) => Ok(1_300_000.0),
                ("floor", 1_000) => Ok(1_000_000.0),
                _ => Err(NoEstimate::NotMeasured),
            },
        )
        .unwrap();
        assert!(
            text.starts_with("| mean | 1 file | 1,000 files |\n| --- | ---: | ---: |\n"),
            "{text}"
        );
        assert!(text.contains("| `engine` | 1.10 µs | 1.300 ms |"), "{text}");
        assert!(
            text.contains(
                "| `engine` / `floor` | 1.10x | 1.30x | ≤ 1.2: **missed** at 1,000 files |"
            ),
            "{text}"
        );
        assert!(
            text.contains("| `floor` / `engine` | 0.9091x | 0.7692x | ≥ 10 at 1,000 files: **missed** at 1,000 files |"),
            "{text}"
        );
        assert_eq!(
            markdown_report(&["engine"], &[1], "files", &[], |_, _| Err(
                NoEstimate::NotMeasured
            )),
            None
        );
    }

    #[test]
    fn a_run_that_measured_nothing_says_so() {
        let text = report(&["engine"], &[1], &[], |_, _| Err(NoEstimate::NotMeasured));
        assert!(text.contains("Nothing was measured"), "{text}");
    }

    #[test]
    fn durations_keep_a_readable_unit() {
        assert_eq!(format_duration(950.0), "950 ns");
        assert_eq!(format_duration(12_345.0), "12.35 µs");
        assert_eq!(format_duration(1_234_567.0), "1.235 ms");
        assert_eq!(format_duration(2_500_000_000.0), "2.500 s");
    }

    #[test]
    fn bounds_hold_as_stated() {
        assert!(Bound::AtMost(1.2).holds(1.2));
        assert!(!Bound::Below(1.0).holds(1.0));
        assert!(Bound::AtLeast(10.0).holds(10.0));
    }
}

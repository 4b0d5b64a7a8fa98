//! Shared helpers for the pi-native-hooks benchmarks: reading criterion's results back after a run
//! and reporting them as the ratios the performance targets are stated in.
//!
//! Criterion writes one `estimates.json` per benchmark under
//! `<criterion home>/<group>/<id>/new/`; [`mean_estimate`] reads the mean point estimate from it,
//! and only if the file was written by the current run, so a filtered run never reports a stale
//! figure as fresh.

pub mod figures;

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

/// The report printed after a run: each group's mean per wave size, then each ratio with its
/// target verdict. `mean(group, wave)` returns the measured mean in nanoseconds.
pub fn report(
    groups: &[&str],
    waves: &[usize],
    ratios: &[Ratio],
    mean: impl Fn(&str, usize) -> Result<f64, NoEstimate>,
) -> String {
    let mut out = String::new();
    let measured = groups
        .iter()
        .any(|group| waves.iter().any(|&wave| mean(group, wave).is_ok()));
    if !measured {
        return "\nNothing was measured in this run (test mode or filtered out): no ratios."
            .to_owned();
    }
    let mut problems = Vec::new();
    let mut lookup = |group: &str, wave: usize| match mean(group, wave) {
        Ok(nanos) => Some(nanos),
        Err(NoEstimate::NotMeasured) => None,
        Err(NoEstimate::Unreadable(why)) => {
            problems.push(why);
            None
        }
    };

    let _ = writeln!(out, "\nMean time per wave (this run):");
    let _ = write!(out, "{:>6}", "files");
    for group in groups {
        let _ = write!(out, "  {group:>18}");
    }
    let _ = writeln!(out);
    for &wave in waves {
        let _ = write!(out, "{wave:>6}");
        for group in groups {
            let cell = lookup(group, wave).map_or_else(|| "-".to_owned(), format_duration);
            let _ = write!(out, "  {cell:>18}");
        }
        let _ = writeln!(out);
    }

    let _ = writeln!(out, "\nRatios of means (target in brackets):");
    let mut verdicts = Vec::new();
    for ratio in ratios {
        let _ = writeln!(out, "  {} / {}", ratio.numerator, ratio.denominator);
        for &wave in waves {
            let (Some(top), Some(bottom)) = (
                lookup(ratio.numerator, wave),
                lookup(ratio.denominator, wave),
            ) else {
                let _ = writeln!(out, "{wave:>8} files: not measured in this run");
                continue;
            };
            let value = top / bottom;
            let verdict = ratio.applies_to(wave).map(|bound| {
                let met = bound.holds(value);
                verdicts.push(met);
                format!("  [{bound}: {}]", if met { "met" } else { "MISSED" })
            });
            let _ = writeln!(
                out,
                "{wave:>8} files: {:>9}{}",
                format_ratio(value),
                verdict.unwrap_or_default()
            );
        }
    }
    let met = verdicts.iter().filter(|&&m| m).count();
    let _ = writeln!(out, "\nTargets met: {met} of {}", verdicts.len());
    for problem in problems {
        let _ = writeln!(out, "warning: {problem}");
    }
    out
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
    let lookup = |group: &str, wave: usize| mean(group, wave).ok();
    if !groups
        .iter()
        .any(|group| waves.iter().any(|&wave| lookup(group, wave).is_some()))
    {
        return None;
    }
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
    for group in groups {
        let _ = write!(out, "| `{group}` |");
        for &wave in waves {
            let cell = lookup(group, wave).map_or_else(|| "—".to_owned(), format_duration);
            let _ = write!(out, " {cell} |");
        }
        out.push('\n');
    }
    if ratios.is_empty() {
        return Some(out);
    }
    let _ = writeln!(
        out,
        "\n| ratio of the means |{header} target |\n| --- |{rule} --- |"
    );
    for ratio in ratios {
        let mut verdicts = Vec::new();
        let mut cells = String::new();
        for &wave in waves {
            let (Some(top), Some(bottom)) = (
                lookup(ratio.numerator, wave),
                lookup(ratio.denominator, wave),
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
        let target = match ratio.bound {
            None => "—".to_owned(),
            Some(bound) if verdicts.is_empty() => format!("{bound}: not measured"),
            Some(bound) => {
                let missed: Vec<String> = verdicts
                    .iter()
                    .filter(|(_, met)| !met)
                    .map(|(wave, _)| thousands(*wave))
                    .collect();
                let unit_for = |waves: &[String]| {
                    if waves == ["1"] {
                        unit.trim_end_matches('s')
                    } else {
                        unit
                    }
                };
                let scope = if ratio.target_waves.is_empty() {
                    String::new()
                } else {
                    let waves: Vec<String> =
                        ratio.target_waves.iter().map(|w| thousands(*w)).collect();
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
        };
        let _ = writeln!(
            out,
            "| `{}` / `{}` |{cells} {} |",
            ratio.numerator,
            ratio.denominator,
            target.replace("<=", "≤").replace(">=", "≥")
        );
    }
    Some(out)
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
        let text = report(
            &["engine", "parse-floor", "cli"],
            &[1, 10],
            &ratios,
            |group, wave| match (group, wave) {
                ("engine", 1) => Ok(1_100.0),
                ("parse-floor", 1) => Ok(1_000.0),
                ("cli", 1) => Ok(22_000.0),
                ("engine", 10) => Ok(13_000.0),
                ("parse-floor", 10) => Ok(10_000.0),
                ("cli", 10) => Ok(50_000.0),
                _ => Err(NoEstimate::NotMeasured),
            },
        );
        assert!(text.contains("1.10x  [<= 1.2: met]"), "{text}");
        assert!(text.contains("1.30x  [<= 1.2: MISSED]"), "{text}");
        assert!(text.contains("20.00x  [>= 10: met]"), "{text}");
        assert!(text.contains("3.85x\n"), "{text}");
        assert!(text.contains("Targets met: 2 of 3"), "{text}");
        assert!(text.contains("1.10 µs"), "{text}");
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
